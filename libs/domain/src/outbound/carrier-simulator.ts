import { DomainError } from '../domain-error';

/**
 * The embedded carrier (ARCHITECTURE "Outside world"): what happens to a dialed number, drawn from a
 * seeded generator so a run is reproducible. Times are in seconds.
 */

/** A uniform draw in [0, 1). */
export type RandomSource = () => number;

/**
 * mulberry32: a tiny 32-bit generator, good enough for simulation (not for secrets) and identical on
 * every platform, so a seed always gives the same run.
 */
export function mulberry32(seed: number): RandomSource {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const SIMULATED_OUTCOMES = ['human', 'machine', 'busy', 'noAnswer', 'failed'] as const;
export type SimulatedOutcome = (typeof SIMULATED_OUTCOMES)[number];

export interface SecondsRange {
  min: number;
  max: number;
}

export interface CarrierProfile {
  /** Probability a live person answers. */
  answerRate: number;
  /** Probability an answering machine picks up (detected by AMD and hung up, never reaches an agent). */
  machineRate: number;
  busyRate: number;
  /** Network or number failures. No answer takes whatever probability is left. */
  failedRate: number;
  /** Seconds of ringing before someone (or something) answers, uniform in the range. */
  ringSec: SecondsRange;
  /** The dialer gives up ringing after this long. */
  noAnswerTimeoutSec: number;
  busySignalSec: number;
  failureSec: number;
  /** Answering-machine detection time after the machine picks up. */
  machineDetectionSec: number;
  /** Conversation length with an agent: log-normal with this mean and standard deviation. */
  talkSec: { mean: number; sd: number };
}

export const DEFAULT_CARRIER_PROFILE: CarrierProfile = {
  answerRate: 0.3,
  machineRate: 0.1,
  busyRate: 0.1,
  failedRate: 0.02,
  ringSec: { min: 4, max: 20 },
  noAnswerTimeoutSec: 30,
  busySignalSec: 3,
  failureSec: 2,
  machineDetectionSec: 3,
  talkSec: { mean: 120, sd: 60 },
};

export function carrierProfile(overrides: Partial<CarrierProfile> = {}): CarrierProfile {
  const profile = { ...DEFAULT_CARRIER_PROFILE, ...overrides };
  const rates = [profile.answerRate, profile.machineRate, profile.busyRate, profile.failedRate];
  if (rates.some((rate) => !Number.isFinite(rate) || rate < 0) || rates.reduce((sum, rate) => sum + rate, 0) > 1 + 1e-12) {
    throw new DomainError('machine.invalidInput', 'Carrier rates must be ≥ 0 and add up to at most 1');
  }
  if (!(profile.ringSec.min >= 0 && profile.ringSec.max >= profile.ringSec.min)) {
    throw new DomainError('machine.invalidInput', 'ringSec needs 0 ≤ min ≤ max');
  }
  if (!(profile.talkSec.mean > 0 && profile.talkSec.sd >= 0)) {
    throw new DomainError('machine.invalidInput', 'talkSec needs a positive mean and sd ≥ 0');
  }
  return profile;
}

export interface SimulatedAttempt {
  outcome: SimulatedOutcome;
  /** Seconds from dialing until the carrier reports the outcome (for a human: the moment they answer). */
  resolvedAfterSec: number;
}

/** One dial attempt: the outcome by the profile's rates, then its timing. */
export function simulateAttempt(profile: CarrierProfile, random: RandomSource): SimulatedAttempt {
  const draw = random();
  const ring = () => profile.ringSec.min + random() * (profile.ringSec.max - profile.ringSec.min);
  let threshold = profile.answerRate;
  if (draw < threshold) return { outcome: 'human', resolvedAfterSec: ring() };
  threshold += profile.machineRate;
  if (draw < threshold) return { outcome: 'machine', resolvedAfterSec: ring() + profile.machineDetectionSec };
  threshold += profile.busyRate;
  if (draw < threshold) return { outcome: 'busy', resolvedAfterSec: profile.busySignalSec };
  threshold += profile.failedRate;
  if (draw < threshold) return { outcome: 'failed', resolvedAfterSec: profile.failureSec };
  return { outcome: 'noAnswer', resolvedAfterSec: profile.noAnswerTimeoutSec };
}

/** Standard normal by Box–Muller; 1 − u keeps the logarithm away from 0. */
function standardNormal(random: RandomSource): number {
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** A log-normal talk time with the profile's mean and sd: σ² = ln(1 + sd²/mean²), μ = ln(mean) − σ²/2. */
export function sampleTalkSec(profile: CarrierProfile, random: RandomSource): number {
  const { mean, sd } = profile.talkSec;
  const variance = Math.log(1 + (sd * sd) / (mean * mean));
  const mu = Math.log(mean) - variance / 2;
  return Math.exp(mu + Math.sqrt(variance) * standardNormal(random));
}
