import type { CarrierProfile } from '@centralita/domain';
import { loadTelephonyConfig, TelephonyConfigError, type TelephonyConfig } from '../telephony/telephony-config';

/** What the dialer reads from the environment (besides the worker's REDIS_URL, DATABASE_URL, QUEUE_PREFIX). */
export interface DialerConfig {
  /** DIALER_ENABLED: on by default, off under NODE_ENV=test unless DIALER_ENABLED=true (test workers share one database). */
  enabled: boolean;
  /** DIALER_TENANTS: comma-separated tenant ids this dialer paces (default all; tests and sharding). */
  tenantIds: string[] | null;
  /** DIALER_DRIVER: 'bullmq' (default, one repeatable job) or 'interval' (a local timer; tests). */
  driver: 'bullmq' | 'interval';
  /** DIALER_TICK_MS: how often running campaigns are paced (default 500). */
  tickMs: number;
  /** DIALER_RING_TIMEOUT_SEC: give up ringing after this long (default 25). */
  ringTimeoutSec: number;
  /** DIALER_MAX_CALLS_PER_TICK: placed per campaign per tick at most (default 50). */
  maxCallsPerTick: number;
  telephony: TelephonyConfig;
}

function number(env: NodeJS.ProcessEnv, name: string, fallback: number, problems: string[]): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) problems.push(`${name} must be a whole number ≥ 1 (got "${raw}")`);
  return value;
}

export function loadDialerConfig(env: NodeJS.ProcessEnv = process.env): DialerConfig {
  const problems: string[] = [];
  const telephony = loadTelephonyConfig(env);
  // SIMULATOR_PROFILE: JSON overrides of the carrier profile (answerRate, machineRate, talkSec…), for demos and tests.
  const profileRaw = env.SIMULATOR_PROFILE?.trim();
  if (profileRaw && telephony.kind === 'simulator') {
    try {
      telephony.profile = JSON.parse(profileRaw) as Partial<CarrierProfile>;
    } catch {
      problems.push('SIMULATOR_PROFILE must be JSON');
    }
  }
  const config: DialerConfig = {
    enabled: env.DIALER_ENABLED?.trim() ? env.DIALER_ENABLED.trim() !== 'false' : env.NODE_ENV !== 'test',
    tenantIds: env.DIALER_TENANTS?.trim()
      ? env.DIALER_TENANTS.split(',')
          .map((id) => id.trim())
          .filter(Boolean)
      : null,
    driver: env.DIALER_DRIVER?.trim() === 'interval' ? 'interval' : 'bullmq',
    tickMs: number(env, 'DIALER_TICK_MS', 500, problems),
    ringTimeoutSec: number(env, 'DIALER_RING_TIMEOUT_SEC', 25, problems),
    maxCallsPerTick: number(env, 'DIALER_MAX_CALLS_PER_TICK', 50, problems),
    telephony,
  };
  if (problems.length) throw new TelephonyConfigError(problems);
  return config;
}
