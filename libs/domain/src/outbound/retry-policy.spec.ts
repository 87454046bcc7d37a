import { describe, expect, it } from '@jest/globals';
import { DomainError } from '../domain-error';
import { DEFAULT_RETRY_POLICY, nextAttempt, type RetryPolicy } from './retry-policy';

const ENDED = Date.UTC(2025, 0, 15, 10, 0, 0);

describe(nextAttempt.name, () => {
  it('retries a busy number after its delay', () => {
    expect(nextAttempt('busy', 1, DEFAULT_RETRY_POLICY, ENDED)).toEqual({ retryAt: ENDED + 5 * 60_000, attempt: 2 });
  });

  it('retries no answer an hour later', () => {
    expect(nextAttempt('noAnswer', 2, DEFAULT_RETRY_POLICY, ENDED)).toEqual({ retryAt: ENDED + 3_600_000, attempt: 3 });
  });

  it('waits 72 hours before calling an abandoned contact again', () => {
    expect(nextAttempt('abandoned', 1, DEFAULT_RETRY_POLICY, ENDED).retryAt).toBe(ENDED + 72 * 3_600_000);
  });

  it('stops at the policy’s maximum attempts', () => {
    expect(nextAttempt('noAnswer', 5, DEFAULT_RETRY_POLICY, ENDED)).toEqual({ retryAt: null, attempt: null });
  });

  it('stops at the outcome’s own maximum when lower', () => {
    expect(nextAttempt('answeringMachine', 3, DEFAULT_RETRY_POLICY, ENDED)).toEqual({ retryAt: null, attempt: null });
  });

  it('never retries a call that reached an agent', () => {
    expect(nextAttempt('done', 1, DEFAULT_RETRY_POLICY, ENDED).retryAt).toBeNull();
  });

  it('never retries a cancelled call', () => {
    expect(nextAttempt('cancelled', 1, DEFAULT_RETRY_POLICY, ENDED).retryAt).toBeNull();
  });

  it('does not retry an outcome the policy has no rule for', () => {
    const policy: RetryPolicy = { maxAttempts: 3, byOutcome: { busy: { delaySec: 60 } } };
    expect(nextAttempt('failed', 1, policy, ENDED).retryAt).toBeNull();
  });

  it('refuses an attempt number below 1', () => {
    expect(() => nextAttempt('busy', 0, DEFAULT_RETRY_POLICY, ENDED)).toThrow(DomainError);
  });

  it('refuses a negative delay', () => {
    const policy: RetryPolicy = { maxAttempts: 3, byOutcome: { busy: { delaySec: -1 } } };
    expect(() => nextAttempt('busy', 1, policy, ENDED)).toThrow(DomainError);
  });
});
