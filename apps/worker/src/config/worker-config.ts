import { configEncryptionKeyProblem, parseAllowedCidrs, parseFileStoreConfig, type FileStoreConfig } from '@centralita/contracts/server';
import { loadVoiceConfig, VoiceConfigError, type VoiceConfig } from '../voice/voice-config';

/** What the worker reads from the environment, validated once at start-up. */
export interface WorkerConfig {
  nodeEnv: 'development' | 'production' | 'test';
  redisUrl: string;
  /** Same QUEUE_PREFIX as the API: BullMQ prefix and the prefix of every Redis key. */
  queuePrefix: string;
  /** smtp(s)://user:pass@host:port; unset outside production = log the mail (and keep it in the dev mailbox when devMailbox). */
  smtpUrl: string | null;
  /** DEV_MAILBOX=on (never in production): mail without SMTP is kept in Redis for GET /api/dev/mailbox. */
  devMailbox: boolean;
  mailFrom: string;
  mailConcurrency: number;
  /** PostgreSQL of the phone-list import processor. */
  databaseUrl: string;
  /** Export files (in the shared file store) are deleted this many hours after they were written (REPORT_EXPORT_RETENTION_HOURS). */
  reportRetentionHours: number;
  /** Non-public ranges the dialer may still connect to (OUTGOING_ALLOWED_CIDRS, the API's setting too). */
  outgoingAllowedCidrs: string[];
  /**
   * CHANNEL_SEND_ENABLED (on by default): off leaves QUEUES.channelSend to other worker processes,
   * e.g. workers dedicated to dialing, or a test's worker that must not send through real providers.
   */
  channelSendEnabled: boolean;
  /** The API's file store settings (FILE_STORE, S3_*): both build it with createFileStore. */
  fileStore: FileStoreConfig;
  /** Inbound voice (VOICE_SIP_PORT, RTPENGINE_NG, VOICE_MEDIA_DIR…); null = no SIP server in this process. */
  voice: VoiceConfig | null;
}

export class WorkerConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid worker configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'WorkerConfigError';
  }
}

export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<WorkerConfig> = {}): WorkerConfig {
  const problems: string[] = [];
  const read = (name: string): string | undefined => env[name]?.trim() || undefined;

  const nodeEnv = (read('NODE_ENV') ?? 'development') as WorkerConfig['nodeEnv'];
  if (!['development', 'production', 'test'].includes(nodeEnv))
    problems.push(`NODE_ENV must be development, production or test (got "${nodeEnv}")`);

  const checkUrl = (name: string, value: string | undefined, protocols: string[]): void => {
    if (value === undefined) return;
    try {
      const { protocol } = new URL(value);
      if (!protocols.includes(protocol)) problems.push(`${name} must use ${protocols.join(' or ')} (got "${protocol}")`);
    } catch {
      problems.push(`${name} must be a valid URL`);
    }
  };
  const redisUrl = read('REDIS_URL') ?? (nodeEnv === 'production' ? undefined : 'redis://127.0.0.1:6379');
  if (!redisUrl) problems.push('REDIS_URL is required when NODE_ENV=production');
  checkUrl('REDIS_URL', redisUrl, ['redis:', 'rediss:']);
  const smtpUrl = read('SMTP_URL') ?? null;
  checkUrl('SMTP_URL', smtpUrl ?? undefined, ['smtp:', 'smtps:']);

  const databaseUrl = read('DATABASE_URL') ?? (nodeEnv === 'production' ? undefined : 'postgres://postgres@127.0.0.1:5432/centralita');
  if (!databaseUrl) problems.push('DATABASE_URL is required when NODE_ENV=production');
  checkUrl('DATABASE_URL', databaseUrl, ['postgres:', 'postgresql:']);

  const queuePrefix = read('QUEUE_PREFIX') ?? 'centralita';
  if (!/^[A-Za-z0-9_.-]{1,100}$/.test(queuePrefix)) problems.push('QUEUE_PREFIX may only contain letters, digits, "_", "." and "-"');

  const devMailboxRaw = read('DEV_MAILBOX')?.toLowerCase();
  const devMailbox = devMailboxRaw !== undefined && ['on', 'true', '1', 'yes'].includes(devMailboxRaw);
  if (devMailboxRaw !== undefined && !devMailbox && !['off', 'false', '0', 'no'].includes(devMailboxRaw))
    problems.push(`DEV_MAILBOX must be on or off (got "${devMailboxRaw}")`);
  if (devMailbox && nodeEnv === 'production') problems.push('DEV_MAILBOX cannot be on when NODE_ENV=production (configure SMTP_URL)');

  // The dialer reads trunk passwords the API encrypted: production needs the API's key, no fallback.
  const keyProblem = configEncryptionKeyProblem(env);
  if (keyProblem && (nodeEnv === 'production' || read('CONFIG_ENCRYPTION_KEY') !== undefined)) problems.push(keyProblem);

  const concurrencyRaw = read('MAIL_CONCURRENCY');
  const mailConcurrency = concurrencyRaw === undefined ? 5 : Number(concurrencyRaw);
  if (!Number.isInteger(mailConcurrency) || mailConcurrency < 1 || mailConcurrency > 100)
    problems.push('MAIL_CONCURRENCY must be an integer between 1 and 100');

  const retentionRaw = read('REPORT_EXPORT_RETENTION_HOURS');
  const reportRetentionHours = retentionRaw === undefined ? 24 : Number(retentionRaw);
  if (!Number.isFinite(reportRetentionHours) || reportRetentionHours <= 0 || reportRetentionHours > 24 * 365)
    problems.push('REPORT_EXPORT_RETENTION_HOURS must be a number of hours between 0 and 8760');

  const outgoingAllowedCidrs = parseAllowedCidrs(read('OUTGOING_ALLOWED_CIDRS'), problems);

  const channelSendRaw = read('CHANNEL_SEND_ENABLED')?.toLowerCase();
  const channelSendEnabled = channelSendRaw === undefined || ['on', 'true', '1', 'yes'].includes(channelSendRaw);
  if (channelSendRaw !== undefined && channelSendEnabled === false && !['off', 'false', '0', 'no'].includes(channelSendRaw))
    problems.push(`CHANNEL_SEND_ENABLED must be on or off (got "${channelSendRaw}")`);

  const fileStore = parseFileStoreConfig(env, problems);

  let voice: VoiceConfig | null = null;
  try {
    voice = loadVoiceConfig(env);
  } catch (error) {
    if (!(error instanceof VoiceConfigError)) throw error;
    problems.push(...error.problems);
  }

  if (problems.length) throw new WorkerConfigError(problems);
  return {
    nodeEnv,
    redisUrl: redisUrl!,
    queuePrefix,
    smtpUrl,
    devMailbox,
    mailFrom: read('MAIL_FROM') ?? 'Centralita <no-reply@centralita.local>',
    mailConcurrency,
    databaseUrl: databaseUrl!,
    reportRetentionHours,
    outgoingAllowedCidrs,
    channelSendEnabled,
    fileStore,
    voice,
    ...overrides,
  };
}

export const WORKER_CONFIG = Symbol('WORKER_CONFIG');
