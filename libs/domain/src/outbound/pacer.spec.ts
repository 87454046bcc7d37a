import { describe, expect, it } from '@jest/globals';
import { DomainError } from '../domain-error';
import { abandonThrottle, campaignAbandonRate, pace, paceDecision, type PacerStats } from './pacer';

const stats = (overrides: Partial<PacerStats> = {}): PacerStats => ({
  agentsAvailable: 0,
  agentsAboutToFree: 0,
  callsInFlight: 0,
  attemptsResolved: 0,
  answeredByHuman: 0,
  abandoned: 0,
  ...overrides,
});

describe(pace.name, () => {
  describe('preview', () => {
    it('never places a call: the agent dials', () => {
      expect(pace(stats({ agentsAvailable: 5 }), { mode: 'preview' })).toBe(0);
    });
  });

  describe('progressive', () => {
    it('places one call per available agent without a call in flight', () => {
      // 5 available − 2 in flight = 3
      expect(pace(stats({ agentsAvailable: 5, callsInFlight: 2 }), { mode: 'progressive' })).toBe(3);
    });

    it('places nothing when calls in flight already cover the available agents', () => {
      // 2 available − 4 in flight = −2 → 0
      expect(pace(stats({ agentsAvailable: 2, callsInFlight: 4 }), { mode: 'progressive' })).toBe(0);
    });

    it('ignores agents about to free up', () => {
      expect(pace(stats({ agentsAvailable: 1, agentsAboutToFree: 6 }), { mode: 'progressive' })).toBe(1);
    });
  });

  describe('predictive', () => {
    it('dials like progressive until the answer rate is measured', () => {
      // 10 resolved < 30: throttle 0, ratio 1, expected free = 4 + 3·0 = 4; 4 − 1 in flight = 3
      expect(
        pace(stats({ agentsAvailable: 4, agentsAboutToFree: 3, callsInFlight: 1, attemptsResolved: 10, answeredByHuman: 3 }), {
          mode: 'predictive',
        }),
      ).toBe(3);
    });

    it('dials 1 / answer rate lines per expected free agent at full speed', () => {
      // answer rate 120/300 = 0.4 → ratio 2.5; abandon 1/120 = 0.83 % ≤ 1.5 % → throttle 1
      // expected free = 3 + 1 = 4; target ⌊4 × 2.5⌋ = 10; 10 − 6 in flight = 4
      const decision = paceDecision(
        stats({ agentsAvailable: 3, agentsAboutToFree: 1, callsInFlight: 6, attemptsResolved: 300, answeredByHuman: 120, abandoned: 1 }),
        { mode: 'predictive' },
      );
      expect(decision).toEqual({ callsToPlace: 4, dialRatio: 2.5, throttle: 1 });
    });

    it('never dials more than the maximum lines per agent', () => {
      // answer rate 50/200 = 0.25 → 4 lines, capped at 3; expected free 2 + 1 = 3; ⌊3 × 3⌋ = 9; 9 − 4 = 5
      expect(
        pace(stats({ agentsAvailable: 2, agentsAboutToFree: 1, callsInFlight: 4, attemptsResolved: 200, answeredByHuman: 50 }), {
          mode: 'predictive',
        }),
      ).toBe(5);
    });

    it('honours a configured maximum lines per agent', () => {
      // ratio 4 capped at 2; expected free 3; ⌊3 × 2⌋ = 6
      expect(
        pace(stats({ agentsAvailable: 3, attemptsResolved: 200, answeredByHuman: 50 }), { mode: 'predictive', maxLinesPerAgent: 2 }),
      ).toBe(6);
    });

    it('slows down as the abandon rate nears the cap', () => {
      // abandon 2/100 = 2 % → throttle (3 % − 2 %) / (3 % − 1.5 %) = 2/3
      // ratio = 1 + (3 − 1) × 2/3 = 2.333…; expected free = 3 + 3 × 2/3 = 5
      // target ⌊5 × 2.333…⌋ = ⌊11.67⌋ = 11; 11 − 2 in flight = 9 (full speed would be ⌊6 × 3⌋ − 2 = 16)
      const decision = paceDecision(
        stats({ agentsAvailable: 3, agentsAboutToFree: 3, callsInFlight: 2, attemptsResolved: 400, answeredByHuman: 100, abandoned: 2 }),
        { mode: 'predictive' },
      );
      expect(decision.callsToPlace).toBe(9);
      expect(decision.throttle).toBeCloseTo(2 / 3, 12);
      expect(decision.dialRatio).toBeCloseTo(7 / 3, 12);
    });

    it('falls back to progressive at the abandon cap', () => {
      // abandon 3/100 = 3 % = cap → throttle 0, ratio 1, expected free 3; 3 − 1 = 2
      expect(
        pace(
          stats({ agentsAvailable: 3, agentsAboutToFree: 3, callsInFlight: 1, attemptsResolved: 400, answeredByHuman: 100, abandoned: 3 }),
          { mode: 'predictive' },
        ),
      ).toBe(2);
    });

    it('stays progressive above the cap', () => {
      expect(
        pace(stats({ agentsAvailable: 3, agentsAboutToFree: 3, attemptsResolved: 400, answeredByHuman: 100, abandoned: 9 }), {
          mode: 'predictive',
        }),
      ).toBe(3);
    });

    it('honours a configured abandon cap', () => {
      // cap 5 %, band 0.5 → full speed up to 2.5 %; 2/100 = 2 % → throttle 1; ratio 400/100 = 4 capped 3; ⌊3 × 3⌋ = 9
      expect(
        pace(stats({ agentsAvailable: 3, attemptsResolved: 400, answeredByHuman: 100, abandoned: 2 }), {
          mode: 'predictive',
          abandonCap: 0.05,
        }),
      ).toBe(9);
    });

    it('places nothing with no agent free or about to free', () => {
      expect(pace(stats({ attemptsResolved: 400, answeredByHuman: 100 }), { mode: 'predictive' })).toBe(0);
    });
  });

  describe('validation', () => {
    it('refuses a negative count', () => {
      expect(() => pace(stats({ agentsAvailable: -1 }), { mode: 'progressive' })).toThrow(DomainError);
    });

    it('refuses more abandons than human answers', () => {
      expect(() => pace(stats({ attemptsResolved: 5, answeredByHuman: 1, abandoned: 2 }), { mode: 'predictive' })).toThrow(DomainError);
    });

    it('refuses an abandon cap above 100 %', () => {
      expect(() => pace(stats(), { mode: 'predictive', abandonCap: 3 })).toThrow(DomainError);
    });

    it('refuses fewer than one line per agent', () => {
      expect(() => pace(stats(), { mode: 'predictive', maxLinesPerAgent: 0.5 })).toThrow(DomainError);
    });
  });
});

describe(abandonThrottle.name, () => {
  it.each([
    [0, 1],
    [0.015, 1],
    [0.0225, 0.5],
    [0.03, 0],
    [0.05, 0],
  ])('gives %d abandonment a throttle of %d with a 3 %% cap and a 0.5 band', (rate, throttle) => {
    expect(abandonThrottle(rate, 0.03, 0.5)).toBeCloseTo(throttle, 12);
  });
});

describe(campaignAbandonRate.name, () => {
  it('divides abandons by human answers', () => {
    expect(campaignAbandonRate({ answeredByHuman: 200, abandoned: 5 })).toBe(0.025);
  });

  it('is 0 before anyone answered', () => {
    expect(campaignAbandonRate({ answeredByHuman: 0, abandoned: 0 })).toBe(0);
  });
});
