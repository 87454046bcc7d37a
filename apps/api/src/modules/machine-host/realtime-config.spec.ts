import { loadRealtimeConfig } from './realtime-config';

describe('loadRealtimeConfig', () => {
  it('works with no environment at all', () => {
    expect(loadRealtimeConfig({})).toMatchObject({
      defaultQueueTimeoutSeconds: 1800,
      outboxPollMs: 1000,
      socketStreamMaxLen: 250_000,
      supervisorBatchIntervalMs: 0,
    });
  });

  it('reads whole numbers, 0 only where 0 means something', () => {
    expect(loadRealtimeConfig({ SUPERVISOR_BATCH_INTERVAL_MS: '50', OUTBOX_POLL_MS: '250' })).toMatchObject({
      supervisorBatchIntervalMs: 50,
      outboxPollMs: 250,
    });
    expect(loadRealtimeConfig({ SUPERVISOR_BATCH_INTERVAL_MS: '0' }).supervisorBatchIntervalMs).toBe(0);
  });

  it('keeps delivered outbox rows 10 minutes by default, swept every 10 s; 0 deletes them at the next sweep', () => {
    expect(loadRealtimeConfig({})).toMatchObject({ outboxRetentionSeconds: 600, outboxSweepMs: 10_000 });
    expect(loadRealtimeConfig({ OUTBOX_RETENTION_SECONDS: '0', OUTBOX_SWEEP_MS: '500' })).toMatchObject({
      outboxRetentionSeconds: 0,
      outboxSweepMs: 500,
    });
    expect(() => loadRealtimeConfig({ OUTBOX_SWEEP_MS: '0' })).toThrow('OUTBOX_SWEEP_MS must be a whole number above 0, got "0"');
  });

  it('refuses every invalid value at once, naming each', () => {
    expect(() => loadRealtimeConfig({ SUPERVISOR_BATCH_INTERVAL_MS: '-5', OUTBOX_POLL_MS: '0', ROUTING_SWEEP_MS: '1.5' })).toThrow(
      [
        'Invalid configuration:',
        '  - OUTBOX_POLL_MS must be a whole number above 0, got "0"',
        '  - ROUTING_SWEEP_MS must be a whole number above 0, got "1.5"',
        '  - SUPERVISOR_BATCH_INTERVAL_MS must be a whole number 0 or more, got "-5"',
      ].join('\n'),
    );
  });
});
