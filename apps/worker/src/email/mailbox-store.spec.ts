import { loadEmailReaderConfig } from './email-reader-config';
import { deliveryKeyOf, messageIdOf } from './mailbox-store';

describe(deliveryKeyOf.name, () => {
  it('keys a mail by its Message-ID (unfolded, whatever the header case), else by a hash of its bytes', () => {
    expect(deliveryKeyOf(Buffer.from('From: a@x\r\nmessage-ID:\r\n <abc@x.test>\r\n\r\nbody'))).toBe('id:<abc@x.test>');
    expect(messageIdOf(Buffer.from('From: a@x\n\nMessage-ID: <in-body@x>'))).toBeNull();
    expect(deliveryKeyOf(Buffer.from('From: a@x\r\n\r\nbody'))).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('hashes an id too long for the key column', () => {
    expect(deliveryKeyOf(Buffer.from(`Message-ID: <${'a'.repeat(400)}@x>\r\n\r\n`))).toMatch(/^id-sha256:[0-9a-f]{64}$/);
  });
});

describe(loadEmailReaderConfig.name, () => {
  it('has defaults that work locally and refuses nonsense', () => {
    expect(loadEmailReaderConfig({})).toEqual({
      enabled: true,
      pollMs: 60_000,
      accountsRefreshMs: 30_000,
      leaseMs: 30_000,
      retryMs: 5_000,
    });
    expect(loadEmailReaderConfig({ EMAIL_READER_ENABLED: 'off', EMAIL_POLL_MS: '500' })).toMatchObject({ enabled: false, pollMs: 500 });
    expect(() => loadEmailReaderConfig({ EMAIL_POLL_MS: 'soon' })).toThrow('EMAIL_POLL_MS must be a whole number');
    expect(() => loadEmailReaderConfig({ EMAIL_READER_ENABLED: 'maybe' })).toThrow('EMAIL_READER_ENABLED must be on or off');
  });
});
