import { VICIDIAL_LINK_TTL_SECONDS } from '@centralita/contracts';
import type { RateLimitRule } from '../../config/app-config';

/**
 * External dialer sign-in settings, read once at start-up (an invalid value stops the process,
 * naming the variable):
 *
 * - VICIDIAL_LINK_TTL_SECONDS (120): how long a sign-in link can be opened (10 to 900).
 * - VICIDIAL_ISSUE_PER_KEY (120 a minute): links one key may ask for; VICIDIAL_ISSUE_PER_IP (240 a minute)
 *   from one address, keys or not (unknown keys count too, so guessing is slow).
 * - Opening links is limited per address (60 a minute).
 */
export interface VicidialConfig {
  linkTtlSeconds: number;
  issuePerKey: RateLimitRule;
  issuePerIp: RateLimitRule;
  exchangePerIp: RateLimitRule;
}

export const VICIDIAL_CONFIG = Symbol('VICIDIAL_CONFIG');

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number, problems: string[]): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
    return fallback;
  }
  return value;
}

export function loadVicidialConfig(env: NodeJS.ProcessEnv): VicidialConfig {
  const problems: string[] = [];
  const config: VicidialConfig = {
    linkTtlSeconds: integer(env, 'VICIDIAL_LINK_TTL_SECONDS', VICIDIAL_LINK_TTL_SECONDS, 10, 900, problems),
    issuePerKey: { limit: integer(env, 'VICIDIAL_ISSUE_PER_KEY', 120, 1, 100_000, problems), windowSeconds: 60 },
    issuePerIp: { limit: integer(env, 'VICIDIAL_ISSUE_PER_IP', 240, 1, 100_000, problems), windowSeconds: 60 },
    exchangePerIp: { limit: integer(env, 'VICIDIAL_OPEN_PER_IP', 60, 1, 100_000, problems), windowSeconds: 60 },
  };
  if (problems.length) throw new Error(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  return config;
}
