import { loadDialerConfig } from './dialer-config';

describe('loadDialerConfig', () => {
  it('runs with the simulator by default, and is off under NODE_ENV=test unless asked for', () => {
    expect(loadDialerConfig({})).toMatchObject({
      enabled: true,
      tickMs: 500,
      driver: 'bullmq',
      tenantIds: null,
      telephony: { kind: 'simulator' },
    });
    expect(loadDialerConfig({ NODE_ENV: 'test' }).enabled).toBe(false);
    expect(loadDialerConfig({ NODE_ENV: 'test', DIALER_ENABLED: 'true' }).enabled).toBe(true);
    expect(loadDialerConfig({ DIALER_ENABLED: 'false' }).enabled).toBe(false);
  });

  it('reads tenants, driver and the simulator profile', () => {
    const config = loadDialerConfig({ DIALER_TENANTS: 'a, b', DIALER_DRIVER: 'interval', SIMULATOR_PROFILE: '{"answerRate":1}' });
    expect(config).toMatchObject({
      tenantIds: ['a', 'b'],
      driver: 'interval',
      telephony: { kind: 'simulator', profile: { answerRate: 1 } },
    });
  });

  it('reports every bad value at once', () => {
    expect(() => loadDialerConfig({ DIALER_TICK_MS: '0', DIALER_RING_TIMEOUT_SEC: 'x', SIMULATOR_PROFILE: '{' })).toThrow(
      /DIALER_TICK_MS[\s\S]*DIALER_RING_TIMEOUT_SEC[\s\S]*SIMULATOR_PROFILE|SIMULATOR_PROFILE[\s\S]*DIALER_TICK_MS/,
    );
  });
});
