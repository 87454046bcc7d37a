import { DomainError } from '../domain-error';

/**
 * Dialer pacing: how many calls to place now. Pure; the host calls it on every tick (e.g. once a
 * second) and on every agent or call change, with counts it reads from the machines' state.
 *
 * - preview: the agent sees the contact and dials by hand, so the pacer never places a call.
 * - progressive: one call per available agent, never more calls in flight than available agents,
 *   so a human who answers always has an agent and nothing is abandoned.
 * - predictive: dials ahead. It expects `available + aboutToFree` agents to need a call during the
 *   next ring time and keeps `expectedFree × dialRatio` calls in flight, where the dial ratio is
 *   1 / (measured human-answer rate), never above `maxLinesPerAgent`. An abandonment controller
 *   scales the look-ahead down as the campaign's measured abandonment approaches its cap: full
 *   speed below `cap × (1 − slowdownBand)`, linearly slower up to the cap, and plain progressive
 *   (no look-ahead, ratio 1, which cannot abandon) at or above it.
 */
export const DIALING_MODES = ['preview', 'progressive', 'predictive'] as const;
export type DialingMode = (typeof DIALING_MODES)[number];

export interface PacerStats {
  /** Logged-in agents idle and waiting for an outbound call. */
  agentsAvailable: number;
  /**
   * Busy agents expected to be free within about one ring time: those whose after-call-work timer
   * ends within it. (Counting agents on long calls too made the simulation worse: talk times are
   * long-tailed.) Scaled down with the throttle; 0 is always safe.
   */
  agentsAboutToFree: number;
  /** Calls placed and not yet resolved (dialing or ringing). */
  callsInFlight: number;
  /** Attempts over the campaign window whose outcome is known (answered, busy, no answer…). */
  attemptsResolved: number;
  /** Of those, answered by a human (machines detected by AMD are not counted). */
  answeredByHuman: number;
  /** Humans who answered and were not connected to an agent within the threshold. */
  abandoned: number;
}

export interface PacerConfig {
  mode: DialingMode;
  /** Abandoned calls as a fraction of human-answered calls over the campaign window; 0.03 by default. */
  abandonCap?: number;
  /** Hard ceiling on calls in flight per expected free agent; 3 by default. */
  maxLinesPerAgent?: number;
  /** Fraction of the cap over which the controller slows down; 0.5 by default (from 1.5 % to 3 %). */
  slowdownBand?: number;
  /** Resolved attempts needed before the answer rate is trusted; until then predictive dials like progressive. 30 by default. */
  minAttemptsForRate?: number;
}

export const PACER_DEFAULTS = { abandonCap: 0.03, maxLinesPerAgent: 3, slowdownBand: 0.5, minAttemptsForRate: 30 } as const;

function requireCount(value: number, name: string): void {
  if (!Number.isInteger(value) || value < 0)
    throw new DomainError('machine.invalidInput', `${name} must be a whole number ≥ 0, got ${value}`);
}

function requireFraction(value: number, name: string, { allowZero }: { allowZero: boolean }): void {
  if (!Number.isFinite(value) || value > 1 || value < 0 || (!allowZero && value === 0)) {
    throw new DomainError('machine.invalidInput', `${name} must be a fraction in ${allowZero ? '[0' : '(0'}, 1], got ${value}`);
  }
}

function resolveConfig(config: PacerConfig): Required<PacerConfig> {
  const resolved = { ...PACER_DEFAULTS, ...stripUndefined(config) } as Required<PacerConfig>;
  if (!DIALING_MODES.includes(resolved.mode))
    throw new DomainError('machine.invalidInput', `Unknown dialing mode ${String(resolved.mode)}`);
  requireFraction(resolved.abandonCap, 'abandonCap', { allowZero: false });
  requireFraction(resolved.slowdownBand, 'slowdownBand', { allowZero: false });
  requireCount(resolved.minAttemptsForRate, 'minAttemptsForRate');
  if (!Number.isFinite(resolved.maxLinesPerAgent) || resolved.maxLinesPerAgent < 1) {
    throw new DomainError('machine.invalidInput', `maxLinesPerAgent must be ≥ 1, got ${resolved.maxLinesPerAgent}`);
  }
  return resolved;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}

function validateStats(stats: PacerStats): void {
  for (const key of [
    'agentsAvailable',
    'agentsAboutToFree',
    'callsInFlight',
    'attemptsResolved',
    'answeredByHuman',
    'abandoned',
  ] as const) {
    requireCount(stats[key], key);
  }
  if (stats.answeredByHuman > stats.attemptsResolved) {
    throw new DomainError('machine.invalidInput', 'answeredByHuman cannot exceed attemptsResolved');
  }
  if (stats.abandoned > stats.answeredByHuman) throw new DomainError('machine.invalidInput', 'abandoned cannot exceed answeredByHuman');
}

/** Abandoned ÷ human-answered over the campaign window; 0 before anyone answered. */
export function campaignAbandonRate(stats: Pick<PacerStats, 'answeredByHuman' | 'abandoned'>): number {
  return stats.answeredByHuman === 0 ? 0 : stats.abandoned / stats.answeredByHuman;
}

/**
 * How much of the predictive look-ahead the abandonment controller allows, from 1 (full speed) to
 * 0 (progressive): 1 while the measured rate is below cap × (1 − band), then linear down to 0 at the cap.
 */
export function abandonThrottle(measuredAbandonRate: number, abandonCap: number, slowdownBand: number): number {
  const slowFrom = abandonCap * (1 - slowdownBand);
  if (measuredAbandonRate <= slowFrom) return 1;
  if (measuredAbandonRate >= abandonCap) return 0;
  return (abandonCap - measuredAbandonRate) / (abandonCap - slowFrom);
}

export interface PaceDecision {
  callsToPlace: number;
  /** Calls in flight aimed at per expected free agent; 1 for progressive, 0 for preview. */
  dialRatio: number;
  throttle: number;
}

/** The full decision, for dashboards and tests; `pace` returns only the count. */
export function paceDecision(stats: PacerStats, config: PacerConfig): PaceDecision {
  validateStats(stats);
  const { mode, abandonCap, maxLinesPerAgent, slowdownBand, minAttemptsForRate } = resolveConfig(config);
  if (mode === 'preview') return { callsToPlace: 0, dialRatio: 0, throttle: 0 };
  if (mode === 'progressive') {
    return { callsToPlace: Math.max(0, stats.agentsAvailable - stats.callsInFlight), dialRatio: 1, throttle: 0 };
  }
  const trusted = stats.attemptsResolved >= minAttemptsForRate && stats.answeredByHuman > 0;
  const throttle = trusted ? abandonThrottle(campaignAbandonRate(stats), abandonCap, slowdownBand) : 0;
  const fullRatio = trusted ? Math.min(maxLinesPerAgent, stats.attemptsResolved / stats.answeredByHuman) : 1;
  const dialRatio = 1 + (fullRatio - 1) * throttle;
  const expectedFree = stats.agentsAvailable + stats.agentsAboutToFree * throttle;
  // A small epsilon keeps exact products (e.g. 3 × 1.6666… = 5) from flooring one call short.
  const target = Math.floor(expectedFree * dialRatio + 1e-9);
  return { callsToPlace: Math.max(0, target - stats.callsInFlight), dialRatio, throttle };
}

/** Calls to place now. */
export function pace(stats: PacerStats, config: PacerConfig): number {
  return paceDecision(stats, config).callsToPlace;
}
