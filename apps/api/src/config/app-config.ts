import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { configEncryptionKeyProblem, parseAllowedCidrs, parseFileStoreConfig, type FileStoreConfig } from '@centralita/contracts/server';

export type NodeEnv = 'development' | 'production' | 'test';
export type TrustProxy = false | number | string[];

export interface RateLimitRule {
  limit: number;
  windowSeconds: number;
}

/** Everything the API reads from the environment, validated once at start-up. */
export interface AppConfig {
  nodeEnv: NodeEnv;
  port: number;
  /** undefined: Node's default (every interface, IPv4 and IPv6). */
  host: string | undefined;
  databaseUrl: string;
  redisUrl: string;
  /** Prefix of every Redis key the platform writes, BullMQ queues included. */
  queuePrefix: string;
  /** Outbound carrier events applied at once per API process (each call's own events stay in order). */
  outboundEventsConcurrency: number;
  /**
   * VOICE_CONNECT_ENABLED (on by default): routing hands waiting callers to agents and the worker's
   * voice server bridges them to the agent's softphone (the 'connect' command; the browser's WebRTC
   * leg and SIP phones alike, docs/telephony.md). Phone conversations exist only where a voice
   * server runs, so the default changes nothing elsewhere. Off: routing offers phone conversations
   * to nobody (the chats behind them are served), e.g. while a deployment's softphones are not ready.
   */
  voiceConnectEnabled: boolean;
  publicUrl: string;
  smtpUrl: string | null;
  webDist: string;
  trustProxy: TrustProxy;
  bodyLimit: string;
  /**
   * POST /api/auth/register (SELF_REGISTRATION=on; off by default): each confirmed registration
   * becomes the ADMIN of a NEW tenant of its own under `resellerId` (SELF_REGISTRATION_RESELLER_ID,
   * else a reseller named "Self-service"), never a user of an existing tenant.
   */
  selfRegistration: { enabled: boolean; resellerId: string | null };
  /**
   * GET /api/dev/mailbox and the worker keeping mail without SMTP (DEV_MAILBOX=on; off by default,
   * refused in production): administrators read their own organisation's mail there.
   */
  devMailbox: boolean;
  /**
   * Non-public ranges (private, loopback…) the platform may still connect to for tenants
   * (OUTGOING_ALLOWED_CIDRS, e.g. on-premises trunks on 10.20.0.0/16): per deployment, never per tenant.
   */
  outgoingAllowedCidrs: string[];
  /** Where new files go (FILE_STORE=postgres|s3 and the S3_* settings; libs/contracts file-store-config.ts). */
  fileStore: FileStoreConfig;
  jwt: {
    secret: string;
    /** true when no JWT_SECRET was given outside production: sessions end when the process restarts. */
    ephemeral: boolean;
    issuer: string;
    audience: string;
    accessTtlSeconds: number;
  };
  session: {
    /** Hard cap on a refresh family (one sign-in), whatever the user's sessionTime. */
    maxFamilyAgeSeconds: number;
    resetTokenTtlSeconds: number;
  };
  rateLimits: {
    loginPerAccount: RateLimitRule;
    loginPerIp: RateLimitRule;
    resetPerAccount: RateLimitRule;
    resetPerIp: RateLimitRule;
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** Fields tests (and embedders) may override after the environment is read. */
export type ConfigOverrides = Partial<Omit<AppConfig, 'jwt' | 'session' | 'rateLimits'>> & {
  jwt?: Partial<AppConfig['jwt']>;
  session?: Partial<AppConfig['session']>;
  rateLimits?: Partial<AppConfig['rateLimits']>;
};

const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/centralita';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: ConfigOverrides = {}): AppConfig {
  const problems: string[] = [];
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };

  const nodeEnvRaw = read('NODE_ENV') ?? 'development';
  if (!['development', 'production', 'test'].includes(nodeEnvRaw))
    problems.push(`NODE_ENV must be development, production or test (got "${nodeEnvRaw}")`);
  const nodeEnv = nodeEnvRaw as NodeEnv;
  const production = nodeEnv === 'production';

  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const url = (name: string, protocols: string[], fallback: string | undefined, requiredInProduction: boolean): string | undefined => {
    const raw = read(name) ?? (production && requiredInProduction ? undefined : fallback);
    if (raw === undefined) {
      if (requiredInProduction && production) problems.push(`${name} is required when NODE_ENV=production`);
      return undefined;
    }
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) problems.push(`${name} must use ${protocols.join(' or ')} (got "${parsed.protocol}")`);
    } catch {
      problems.push(`${name} must be a valid URL`);
    }
    return raw;
  };

  const port = int('PORT', 3000, 0, 65535);
  const databaseUrl = url('DATABASE_URL', ['postgres:', 'postgresql:'], DEFAULT_DATABASE_URL, true) ?? '';
  const redisUrl = url('REDIS_URL', ['redis:', 'rediss:'], 'redis://127.0.0.1:6379', true) ?? '';
  const publicUrl = (url('PUBLIC_URL', ['http:', 'https:'], `http://localhost:${port}`, true) ?? '').replace(/\/+$/, '');
  const smtpUrl = url('SMTP_URL', ['smtp:', 'smtps:'], undefined, false) ?? null;

  const queuePrefix = read('QUEUE_PREFIX') ?? 'centralita';
  if (!/^[A-Za-z0-9_.-]{1,100}$/.test(queuePrefix)) problems.push('QUEUE_PREFIX may only contain letters, digits, "_", "." and "-"');

  let secret = read('JWT_SECRET');
  let ephemeral = false;
  if (!secret) {
    if (production) problems.push('JWT_SECRET is required when NODE_ENV=production');
    secret = randomBytes(48).toString('hex');
    ephemeral = true;
  } else if (production && secret.length < 32) {
    problems.push('JWT_SECRET must be at least 32 characters when NODE_ENV=production');
  }

  const flag = (name: string): boolean => {
    const raw = read(name)?.toLowerCase();
    if (raw === undefined || ['off', 'false', '0', 'no'].includes(raw)) return false;
    if (['on', 'true', '1', 'yes'].includes(raw)) return true;
    problems.push(`${name} must be on or off (got "${raw}")`);
    return false;
  };

  // Self-registration used to add AGENT users to an existing tenant: refuse the old setting loudly.
  if (read('REGISTRATION_CLIENT_ID') !== undefined)
    problems.push(
      'REGISTRATION_CLIENT_ID is no longer supported: self-registration never joins an existing tenant; set SELF_REGISTRATION=on to let each registration create a tenant of its own, or remove it',
    );
  const selfRegistrationReseller = read('SELF_REGISTRATION_RESELLER_ID') ?? null;
  if (selfRegistrationReseller !== null && !UUID.test(selfRegistrationReseller))
    problems.push('SELF_REGISTRATION_RESELLER_ID must be a reseller UUID');

  const devMailbox = flag('DEV_MAILBOX');
  if (devMailbox && production) problems.push('DEV_MAILBOX cannot be on when NODE_ENV=production (configure SMTP_URL)');

  // Secrets at rest: there is no fallback key. Checked here too so production names it with the rest.
  const keyProblem = configEncryptionKeyProblem(env);
  if (keyProblem && (production || read('CONFIG_ENCRYPTION_KEY') !== undefined)) problems.push(keyProblem);

  const config: AppConfig = {
    nodeEnv,
    port,
    host: read('HOST'),
    databaseUrl,
    redisUrl,
    queuePrefix,
    outboundEventsConcurrency: int('OUTBOUND_EVENTS_CONCURRENCY', 8, 1, 64),
    voiceConnectEnabled: read('VOICE_CONNECT_ENABLED') === undefined || flag('VOICE_CONNECT_ENABLED'),
    publicUrl,
    smtpUrl,
    // Relative to this file so it resolves the same from src (tests) and dist (npm start).
    webDist: path.resolve(read('WEB_DIST') ?? path.join(__dirname, '..', '..', '..', 'web', 'dist')),
    trustProxy: parseTrustProxy(read('TRUST_PROXY'), problems),
    bodyLimit: read('BODY_LIMIT') ?? '100kb',
    selfRegistration: { enabled: flag('SELF_REGISTRATION'), resellerId: selfRegistrationReseller },
    devMailbox,
    outgoingAllowedCidrs: parseAllowedCidrs(read('OUTGOING_ALLOWED_CIDRS'), problems),
    fileStore: parseFileStoreConfig(env, problems),
    jwt: {
      secret,
      ephemeral,
      issuer: read('JWT_ISSUER') ?? 'centralita',
      audience: read('JWT_AUDIENCE') ?? 'centralita-console',
      accessTtlSeconds: int('ACCESS_TOKEN_TTL_SECONDS', 600, 30, 3600),
    },
    session: {
      maxFamilyAgeSeconds: int('SESSION_MAX_AGE_SECONDS', 7 * 24 * 3600, 300, 90 * 24 * 3600),
      resetTokenTtlSeconds: 30 * 60,
    },
    rateLimits: {
      loginPerAccount: { limit: int('RATE_LIMIT_LOGIN_ACCOUNT', 5, 1, 10_000), windowSeconds: 60 },
      loginPerIp: { limit: int('RATE_LIMIT_LOGIN_IP', 20, 1, 100_000), windowSeconds: 60 },
      resetPerAccount: { limit: int('RATE_LIMIT_RESET_ACCOUNT', 3, 1, 10_000), windowSeconds: 15 * 60 },
      resetPerIp: { limit: int('RATE_LIMIT_RESET_IP', 10, 1, 100_000), windowSeconds: 15 * 60 },
    },
  };
  if (problems.length) throw new ConfigError(problems);
  return {
    ...config,
    ...overrides,
    jwt: { ...config.jwt, ...overrides.jwt },
    session: { ...config.session, ...overrides.session },
    rateLimits: { ...config.rateLimits, ...overrides.rateLimits },
  };
}

/**
 * Which proxies may set X-Forwarded-For (Express "trust proxy"): unset or "false" trusts none, so
 * rate limits key on the socket address; a hop count; or a comma list of addresses, CIDRs and
 * Express names (loopback, linklocal, uniquelocal). "true" is refused: any client could spoof.
 */
export function parseTrustProxy(raw: string | undefined, problems: string[]): TrustProxy {
  if (raw === undefined || raw === 'false' || raw === '0') return false;
  if (/^\d+$/.test(raw)) return Number(raw);
  if (raw === 'true') {
    problems.push('TRUST_PROXY=true would trust X-Forwarded-For from anyone: give a hop count or the proxy addresses');
    return false;
  }
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const named = ['loopback', 'linklocal', 'uniquelocal'];
  for (const entry of entries) {
    if (!named.includes(entry) && !/^[0-9a-fA-F.:]+(\/\d{1,3})?$/.test(entry))
      problems.push(`TRUST_PROXY entry "${entry}" is not an address, CIDR or ${named.join('/')}`);
  }
  return entries;
}

/** Only what the database CLI needs: migrating must not require the API's other settings. */
export function loadDatabaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  const url = env.DATABASE_URL?.trim();
  if (url) return url;
  if ((env.NODE_ENV ?? 'development').trim() === 'production') throw new ConfigError(['DATABASE_URL is required when NODE_ENV=production']);
  return DEFAULT_DATABASE_URL;
}

export const APP_CONFIG = Symbol('APP_CONFIG');
