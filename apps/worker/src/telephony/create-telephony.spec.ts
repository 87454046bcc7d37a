import { createTelephony } from './create-telephony';
import { DrachtioTelephony } from './drachtio-telephony';
import { SimulatedCarrier } from './simulated-carrier';
import { loadTelephonyConfig, TelephonyConfigError } from './telephony-config';
import { FakeDrachtioServer } from './testing/fake-drachtio-server';

describe(loadTelephonyConfig.name, () => {
  it('defaults to the simulator', () => {
    expect(loadTelephonyConfig({})).toEqual({ kind: 'simulator', seed: 1, timeFactor: 1, maxCallsPerTrunk: 30 });
  });

  it('reads the simulator settings', () => {
    const env = { TELEPHONY: 'simulator', SIMULATOR_SEED: '42', SIMULATOR_TIME_FACTOR: '0.01', SIMULATOR_MAX_CALLS_PER_TRUNK: '5' };
    expect(loadTelephonyConfig(env)).toEqual({ kind: 'simulator', seed: 42, timeFactor: 0.01, maxCallsPerTrunk: 5 });
  });

  it('lists every missing drachtio setting at once', () => {
    expect(() => loadTelephonyConfig({ TELEPHONY: 'drachtio' })).toThrow(TelephonyConfigError);
    expect(() => loadTelephonyConfig({ TELEPHONY: 'drachtio', DRACHTIO_HOST: 'sbc' })).toThrow(
      'TELEPHONY=drachtio requires DRACHTIO_PORT, DRACHTIO_SECRET',
    );
  });

  it('reads a complete drachtio setup', () => {
    expect(loadTelephonyConfig({ TELEPHONY: 'drachtio', DRACHTIO_HOST: 'sbc', DRACHTIO_PORT: '9022', DRACHTIO_SECRET: 's' })).toEqual({
      kind: 'drachtio',
      host: 'sbc',
      port: 9022,
      secret: 's',
      connectTimeoutMs: 5000,
    });
  });

  it('refuses a bad port, a bad time factor and an unknown implementation', () => {
    expect(() => loadTelephonyConfig({ TELEPHONY: 'drachtio', DRACHTIO_HOST: 'h', DRACHTIO_PORT: '99999', DRACHTIO_SECRET: 's' })).toThrow(
      /DRACHTIO_PORT must be/,
    );
    expect(() => loadTelephonyConfig({ SIMULATOR_TIME_FACTOR: '0' })).toThrow(/SIMULATOR_TIME_FACTOR must be a number > 0/);
    expect(() => loadTelephonyConfig({ TELEPHONY: 'asterisk' })).toThrow(/TELEPHONY must be simulator or drachtio/);
  });
});

describe(createTelephony.name, () => {
  it('builds the simulator by default', async () => {
    const telephony = await createTelephony(loadTelephonyConfig({}));
    expect(telephony).toBeInstanceOf(SimulatedCarrier);
    await telephony.close();
  });

  it('connects to the drachtio server when asked to', async () => {
    const fake = await FakeDrachtioServer.start({ secret: 'shh', script: () => ({ responses: [] }) });
    const env = { TELEPHONY: 'drachtio', DRACHTIO_HOST: '127.0.0.1', DRACHTIO_PORT: String(fake.port), DRACHTIO_SECRET: 'shh' };
    const telephony = await createTelephony(loadTelephonyConfig(env));
    expect(telephony).toBeInstanceOf(DrachtioTelephony);
    await telephony.close();
    await fake.close();
  });

  it('gives up on an unreachable drachtio server with a clear error', async () => {
    const fake = await FakeDrachtioServer.start({ secret: 'shh', script: () => ({ responses: [] }) });
    const port = fake.port;
    await fake.close();
    await expect(createTelephony({ kind: 'drachtio', host: '127.0.0.1', port, secret: 'shh', connectTimeoutMs: 300 })).rejects.toThrow(
      new RegExp(`No answer from the drachtio server at 127.0.0.1:${port} within 300 ms.*ECONNREFUSED`),
    );
  });
});
