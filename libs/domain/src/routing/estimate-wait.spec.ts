import { describe, expect, it } from '@jest/globals';
import { DomainError } from '../domain-error';
import { estimateWait, estimateWaitForNewcomer } from './estimate-wait';

describe(estimateWait.name, () => {
  it('expects the next customer to wait one handle time shared among the agents', () => {
    // AHT = (120 + 180 + 240) / 3 = 180 s; 2 agents free one slot every 90 s.
    expect(estimateWait(1, [120, 180, 240], 2)).toBe(90);
  });

  it('expects the third customer to wait for three completions', () => {
    // 3 · 180 / 2 = 270 s.
    expect(estimateWait(3, [120, 180, 240], 2)).toBe(270);
  });

  it('counts chat slots as servers', () => {
    // 4 agents with 3 chats each = 12 slots; 6 · 300 / 12 = 150 s.
    expect(estimateWait(6, [300], 12)).toBe(150);
  });

  it('has no estimate without recent handle times', () => {
    expect(estimateWait(1, [], 2)).toBeNull();
  });

  it('has no estimate when nobody serves the line', () => {
    expect(estimateWait(1, [180], 0)).toBeNull();
  });

  it('refuses a position below 1', () => {
    expect(() => estimateWait(0, [180], 2)).toThrow(DomainError);
  });
});

describe(estimateWaitForNewcomer.name, () => {
  it('uses the known position when customers are waiting', () => {
    // Two waiting: the newcomer is third; 3 · 180 / 2 = 270 s.
    expect(estimateWaitForNewcomer({ waiting: 2, recentHandleTimesSec: [120, 180, 240], slots: 2, arrivalRatePerSec: 1 / 60 })).toBe(270);
  });

  it('uses Erlang C with an empty queue', () => {
    // λ = 1/60 s⁻¹, AHT = 180 s → A = 3 Erlangs on N = 5 slots.
    // Σ_{k<5} 3^k/k! = 1 + 3 + 4.5 + 4.5 + 3.375 = 16.375; 3^5/5! · 5/(5−3) = 2.025 · 2.5 = 5.0625
    // C = 5.0625 / (16.375 + 5.0625) = 0.236152…; ASA = C · 180 / (5 − 3) = 21.2536… s.
    expect(estimateWaitForNewcomer({ waiting: 0, recentHandleTimesSec: [180], slots: 5, arrivalRatePerSec: 1 / 60 })).toBeCloseTo(
      21.2536,
      3,
    );
  });

  it('expects no wait on a quiet line (no arrivals: nobody is ahead and a slot is free)', () => {
    expect(estimateWaitForNewcomer({ waiting: 0, recentHandleTimesSec: [180], slots: 2, arrivalRatePerSec: 0 })).toBe(0);
  });

  it('falls back to one handle time shared among the slots when arrivals outrun them', () => {
    // A = 6 Erlangs on 5 slots: no steady state; 1 · 180 / 5 = 36 s.
    expect(estimateWaitForNewcomer({ waiting: 0, recentHandleTimesSec: [180], slots: 5, arrivalRatePerSec: 1 / 30 })).toBe(36);
  });

  it('has no estimate without handle times or slots, and refuses a negative queue', () => {
    expect(estimateWaitForNewcomer({ waiting: 0, recentHandleTimesSec: [], slots: 5, arrivalRatePerSec: 0.1 })).toBeNull();
    expect(estimateWaitForNewcomer({ waiting: 3, recentHandleTimesSec: [180], slots: 0, arrivalRatePerSec: 0.1 })).toBeNull();
    expect(() => estimateWaitForNewcomer({ waiting: -1, recentHandleTimesSec: [180], slots: 5, arrivalRatePerSec: 0.1 })).toThrow(
      DomainError,
    );
  });
});
