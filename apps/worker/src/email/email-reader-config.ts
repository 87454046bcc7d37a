/** The mailbox readers' settings, read once at start-up (defaults work locally). */
export interface EmailReaderConfig {
  /** EMAIL_READER_ENABLED (on): off leaves the mailboxes to other worker processes. */
  enabled: boolean;
  /** EMAIL_POLL_MS (60 s): the polling fallback, when IDLE is missing or silent. */
  pollMs: number;
  /** EMAIL_ACCOUNTS_REFRESH_MS (30 s): how soon a new, changed or removed email account is noticed. */
  accountsRefreshMs: number;
  /** EMAIL_LEASE_MS (30 s): how long a dead process's lease on a mailbox blocks another reader. */
  leaseMs: number;
  /** EMAIL_RETRY_MS (5 s): the wait before reconnecting after a failure. */
  retryMs: number;
}

export function loadEmailReaderConfig(env: NodeJS.ProcessEnv = process.env): EmailReaderConfig {
  const ms = (name: string, fallback: number, min: number) => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be a whole number of milliseconds of at least ${min}`);
    return value;
  };
  const switched = env.EMAIL_READER_ENABLED?.trim().toLowerCase();
  if (switched && !['on', 'off'].includes(switched)) throw new Error('EMAIL_READER_ENABLED must be on or off');
  return {
    enabled: switched !== 'off',
    pollMs: ms('EMAIL_POLL_MS', 60_000, 200),
    accountsRefreshMs: ms('EMAIL_ACCOUNTS_REFRESH_MS', 30_000, 200),
    leaseMs: ms('EMAIL_LEASE_MS', 30_000, 1000),
    retryMs: ms('EMAIL_RETRY_MS', 5_000, 100),
  };
}
