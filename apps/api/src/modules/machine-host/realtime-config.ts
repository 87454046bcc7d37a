/**
 * Durations and intervals of the real-time core, read once from the environment with defaults
 * that work locally. Per-line settings (queue timeout, routing policy, poll) override where they exist.
 */
export interface RealtimeConfig {
  /** Used when a line has no routing settings row. */
  defaultQueueTimeoutSeconds: number;
  inactivityTimeoutSeconds: number;
  surveyExpirySeconds: number;
  afterCallWorkSeconds: number;
  disconnectGraceSeconds: number;
  /**
   * How often each API process refreshes its liveness key in the socket registry and sweeps the
   * processes whose key expired (after three periods): a crashed process's agents start their
   * disconnect grace within about four periods.
   */
  presenceHeartbeatMs: number;
  /** How often the relay looks for outbox rows another process committed but never delivered. */
  outboxPollMs: number;
  /** A row younger than this is left to the process that wrote it. */
  outboxStaleMs: number;
  /**
   * How long a delivered outbox row is kept before the retention sweep deletes it (0: at the next
   * sweep). Nothing reads delivered rows; the window only leaves recent deliveries to look at.
   */
  outboxRetentionSeconds: number;
  /** How often an API process tries to sweep delivered rows (one process at a time does it). */
  outboxSweepMs: number;
  routingSweepMs: number;
  webchatStartsPerIpPerMinute: number;
  webchatMessagesPerConversationPerMinute: number;
  visitorTokenTtlSeconds: number;
  /**
   * After its conversation is Closed (survey answered or expired, or closed with no survey), a
   * visitor token keeps working this long (the widget's closing screen), then it is refused.
   */
  visitorClosedGraceSeconds: number;
  /** How long a dropped socket may stay away and still be sent what it missed. */
  socketRecoveryWindowMs: number;
  /**
   * Entries the socket event stream keeps in Redis. Recovery only works while a socket's last
   * offset is still in the stream, so size it for the recovery window at peak event rate
   * (S1: ~500 msg/s, a few events each); the adapter's own default (10,000) is ~10 s of that.
   */
  socketStreamMaxLen: number;
  /**
   * Least time between two frames of the batched tenant stream (supervisor boards) under load. A
   * push after a quiet spell still leaves at the end of its event-loop turn; while pushes keep
   * coming, everything pushed meanwhile goes in the next frame, so a process writes at most
   * 1000 / this frames a second per batched supervisor socket, whatever the message rate. 0 (the
   * default) = a frame every turn that pushed: boards as fresh as the server can make them (P3).
   * At S1 scale, 50 took the API from ~88% to ~80% of a core and message p50 from ~60 to ~35 ms, at
   * the price of up to 50 ms on every board update (`SUPERVISOR_BATCH_INTERVAL_MS=50 npm run bench
   * -- --only S1` against the same run without it).
   */
  supervisorBatchIntervalMs: number;
}

export const REALTIME_CONFIG = Symbol('REALTIME_CONFIG');

/** A whole number of at least `min` (0 or 1) from the environment; a problem is noted, not thrown. */
function wholeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number, problems: string[], min: 0 | 1 = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    problems.push(`${name} must be a whole number ${min === 1 ? 'above 0' : '0 or more'}, got "${raw}"`);
    return fallback;
  }
  return value;
}

const positiveInt = (env: NodeJS.ProcessEnv, name: string, fallback: number, problems: string[]) =>
  wholeNumber(env, name, fallback, problems, 1);

export function loadRealtimeConfig(env: NodeJS.ProcessEnv = process.env): RealtimeConfig {
  const problems: string[] = [];
  const config: RealtimeConfig = {
    defaultQueueTimeoutSeconds: positiveInt(env, 'QUEUE_TIMEOUT_SECONDS', 1800, problems),
    inactivityTimeoutSeconds: positiveInt(env, 'INACTIVITY_TIMEOUT_SECONDS', 1800, problems),
    surveyExpirySeconds: positiveInt(env, 'SURVEY_EXPIRY_SECONDS', 900, problems),
    afterCallWorkSeconds: positiveInt(env, 'AFTER_CALL_WORK_SECONDS', 60, problems),
    disconnectGraceSeconds: positiveInt(env, 'DISCONNECT_GRACE_SECONDS', 60, problems),
    presenceHeartbeatMs: positiveInt(env, 'PRESENCE_HEARTBEAT_MS', 2000, problems),
    outboxPollMs: positiveInt(env, 'OUTBOX_POLL_MS', 1000, problems),
    outboxStaleMs: positiveInt(env, 'OUTBOX_STALE_MS', 2000, problems),
    outboxRetentionSeconds: wholeNumber(env, 'OUTBOX_RETENTION_SECONDS', 600, problems),
    outboxSweepMs: positiveInt(env, 'OUTBOX_SWEEP_MS', 10_000, problems),
    routingSweepMs: positiveInt(env, 'ROUTING_SWEEP_MS', 5000, problems),
    webchatStartsPerIpPerMinute: positiveInt(env, 'RATE_LIMIT_WEBCHAT_START_IP', 60, problems),
    webchatMessagesPerConversationPerMinute: positiveInt(env, 'RATE_LIMIT_WEBCHAT_MESSAGES', 120, problems),
    visitorTokenTtlSeconds: positiveInt(env, 'VISITOR_TOKEN_TTL_SECONDS', 86_400, problems),
    visitorClosedGraceSeconds: wholeNumber(env, 'VISITOR_CLOSED_GRACE_SECONDS', 60, problems),
    socketRecoveryWindowMs: positiveInt(env, 'SOCKET_RECOVERY_WINDOW_MS', 120_000, problems),
    socketStreamMaxLen: positiveInt(env, 'SOCKET_STREAM_MAXLEN', 250_000, problems),
    supervisorBatchIntervalMs: wholeNumber(env, 'SUPERVISOR_BATCH_INTERVAL_MS', 0, problems),
  };
  if (problems.length > 0) throw new Error(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  return config;
}
