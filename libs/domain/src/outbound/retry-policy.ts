import { DomainError } from '../domain-error';
import type { CallOutcome } from './outbound-call.machine';

/** Outcomes that may be worth another attempt; `done` and `cancelled` never are. */
export type RetryableOutcome = Exclude<CallOutcome, 'done' | 'cancelled'>;

export interface RetryRule {
  delaySec: number;
  /** Attempts allowed when the last one ended this way; the policy's `maxAttempts` still caps it. */
  maxAttempts?: number;
}

export interface RetryPolicy {
  /** Attempts per contact and campaign, the first included. */
  maxAttempts: number;
  /** An outcome without a rule is not retried. */
  byOutcome: Partial<Record<RetryableOutcome, RetryRule>>;
}

/**
 * Defaults that work for most campaigns. An abandoned contact is not called again for 72 hours
 * (Ofcom's rule unless a live agent is guaranteed, which a pacer cannot promise).
 */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 5,
  byOutcome: {
    busy: { delaySec: 5 * 60 },
    noAnswer: { delaySec: 60 * 60 },
    answeringMachine: { delaySec: 4 * 60 * 60, maxAttempts: 3 },
    failed: { delaySec: 15 * 60, maxAttempts: 2 },
    abandoned: { delaySec: 72 * 60 * 60, maxAttempts: 2 },
  },
};

export interface NextAttempt {
  /** When to place the next attempt (epoch ms), or null when the contact is finished for this campaign. */
  retryAt: number | null;
  /** The next attempt's number, or null. */
  attempt: number | null;
}

/**
 * Whether and when to call the contact again after an attempt. `endedAt` is when the attempt
 * ended (its `reportOutcome` time): the domain never reads a clock.
 */
export function nextAttempt(outcome: CallOutcome, attempt: number, policy: RetryPolicy, endedAt: number): NextAttempt {
  if (!Number.isInteger(attempt) || attempt < 1)
    throw new DomainError('machine.invalidInput', `attempt must be a whole number ≥ 1, got ${attempt}`);
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new DomainError('machine.invalidInput', `maxAttempts must be a whole number ≥ 1, got ${policy.maxAttempts}`);
  }
  if (!Number.isFinite(endedAt)) throw new DomainError('machine.invalidInput', `endedAt must be epoch milliseconds, got ${endedAt}`);
  const none: NextAttempt = { retryAt: null, attempt: null };
  if (outcome === 'done' || outcome === 'cancelled') return none;
  const rule = policy.byOutcome[outcome];
  if (rule === undefined) return none;
  if (!Number.isFinite(rule.delaySec) || rule.delaySec < 0) {
    throw new DomainError('machine.invalidInput', `The retry delay for ${outcome} must be ≥ 0 seconds, got ${rule.delaySec}`);
  }
  const allowed = Math.min(policy.maxAttempts, rule.maxAttempts ?? Number.POSITIVE_INFINITY);
  if (attempt >= allowed) return none;
  return { retryAt: endedAt + rule.delaySec * 1000, attempt: attempt + 1 };
}
