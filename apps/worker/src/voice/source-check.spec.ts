import { carrierSourceAllowed } from './source-check';

describe('carrierSourceAllowed', () => {
  const noDns = async (): Promise<string[]> => {
    throw new Error('no lookup expected');
  };

  it('accepts the listed addresses and networks only', async () => {
    const trunk = { trunkHost: 'sip.carrier.example', allowedSources: ['203.0.113.10', '198.51.100.0/24', '2001:db8::/32'] };
    expect(await carrierSourceAllowed(trunk, '203.0.113.10', noDns)).toBe(true);
    expect(await carrierSourceAllowed(trunk, '::ffff:198.51.100.77', noDns)).toBe(true);
    expect(await carrierSourceAllowed(trunk, '2001:db8:1::5', noDns)).toBe(true);
    expect(await carrierSourceAllowed(trunk, '203.0.113.11', noDns)).toBe(false);
    expect(await carrierSourceAllowed(trunk, '2001:db9::1', noDns)).toBe(false);
    expect(await carrierSourceAllowed(trunk, 'not-an-address', noDns)).toBe(false);
  });

  it("without a list accepts the trunk's host: its address, or what its name resolves to", async () => {
    expect(await carrierSourceAllowed({ trunkHost: '203.0.113.10', allowedSources: [] }, '203.0.113.10', noDns)).toBe(true);
    expect(await carrierSourceAllowed({ trunkHost: '203.0.113.10', allowedSources: [] }, '203.0.113.9', noDns)).toBe(false);
    const resolve = async (host: string) => (host === 'sip.carrier.example' ? ['192.0.2.1', '192.0.2.2'] : []);
    expect(await carrierSourceAllowed({ trunkHost: 'sip.carrier.example', allowedSources: [] }, '192.0.2.2', resolve)).toBe(true);
    expect(await carrierSourceAllowed({ trunkHost: 'sip.carrier.example', allowedSources: [] }, '192.0.2.3', resolve)).toBe(false);
    const failing = async (): Promise<string[]> => {
      throw new Error('ENOTFOUND');
    };
    expect(await carrierSourceAllowed({ trunkHost: 'gone.example', allowedSources: [] }, '192.0.2.1', failing)).toBe(false);
  });

  it('ignores a stored entry that is not an address (it never opens the trunk)', async () => {
    expect(await carrierSourceAllowed({ trunkHost: 'x', allowedSources: ['garbage', '10.0.0.0/99'] }, '10.0.0.1', noDns)).toBe(false);
  });

  it('does not check numbers without trunk data', async () => {
    expect(await carrierSourceAllowed({}, '192.0.2.1', noDns)).toBe(true);
  });
});
