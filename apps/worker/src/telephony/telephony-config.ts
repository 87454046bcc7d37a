import type { CarrierProfile } from '@centralita/domain';

/** Which telephony the worker uses, read from the environment once at start-up. */
export type TelephonyConfig =
  | {
      kind: 'simulator';
      seed: number;
      timeFactor: number;
      maxCallsPerTrunk: number;
      profile?: Partial<CarrierProfile>;
    }
  | { kind: 'drachtio'; host: string; port: number; secret: string; connectTimeoutMs: number };

export class TelephonyConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid telephony configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'TelephonyConfigError';
  }
}

/**
 * TELEPHONY=simulator (default) | drachtio. The simulator takes SIMULATOR_SEED, SIMULATOR_TIME_FACTOR
 * and SIMULATOR_MAX_CALLS_PER_TRUNK; drachtio needs DRACHTIO_HOST, DRACHTIO_PORT and DRACHTIO_SECRET.
 * Every problem is reported at once.
 */
export function loadTelephonyConfig(env: NodeJS.ProcessEnv = process.env): TelephonyConfig {
  const problems: string[] = [];
  const read = (name: string): string | undefined => env[name]?.trim() || undefined;
  const number = (name: string, fallback: number, valid: (value: number) => boolean, rule: string): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!valid(value)) problems.push(`${name} must be ${rule} (got "${raw}")`);
    return value;
  };

  const kind = read('TELEPHONY') ?? 'simulator';
  if (kind === 'simulator') {
    const seed = number('SIMULATOR_SEED', 1, Number.isInteger, 'an integer');
    const timeFactor = number('SIMULATOR_TIME_FACTOR', 1, (value) => value > 0 && Number.isFinite(value), 'a number > 0');
    const maxCallsPerTrunk = number(
      'SIMULATOR_MAX_CALLS_PER_TRUNK',
      30,
      (value) => Number.isInteger(value) && value >= 1,
      'an integer ≥ 1',
    );
    if (problems.length) throw new TelephonyConfigError(problems);
    return { kind, seed, timeFactor, maxCallsPerTrunk };
  }
  if (kind === 'drachtio') {
    const host = read('DRACHTIO_HOST');
    const portRaw = read('DRACHTIO_PORT');
    const secret = read('DRACHTIO_SECRET');
    const missing = [host ? null : 'DRACHTIO_HOST', portRaw ? null : 'DRACHTIO_PORT', secret ? null : 'DRACHTIO_SECRET'].filter(Boolean);
    if (missing.length) problems.push(`TELEPHONY=drachtio requires ${missing.join(', ')}`);
    const port = Number(portRaw);
    if (portRaw && !(Number.isInteger(port) && port >= 1 && port <= 65535))
      problems.push(`DRACHTIO_PORT must be an integer between 1 and 65535 (got "${portRaw}")`);
    const connectTimeoutMs = number('DRACHTIO_CONNECT_TIMEOUT_MS', 5000, (value) => Number.isInteger(value) && value > 0, 'an integer > 0');
    if (problems.length) throw new TelephonyConfigError(problems);
    return { kind, host: host!, port, secret: secret!, connectTimeoutMs };
  }
  throw new TelephonyConfigError([`TELEPHONY must be simulator or drachtio (got "${kind}")`]);
}
