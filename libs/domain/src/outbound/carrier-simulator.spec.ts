import { describe, expect, it } from '@jest/globals';
import { DomainError } from '../domain-error';
import { carrierProfile, mulberry32, sampleTalkSec, simulateAttempt, type SimulatedOutcome } from './carrier-simulator';

describe(mulberry32.name, () => {
  it('repeats the same sequence for the same seed', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    expect(Array.from({ length: 5 }, a)).toEqual(Array.from({ length: 5 }, b));
  });

  it('gives different sequences for different seeds', () => {
    expect(mulberry32(1)()).not.toBe(mulberry32(2)());
  });

  it('stays in [0, 1)', () => {
    const random = mulberry32(7);
    const draws = Array.from({ length: 10_000 }, random);
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(1);
  });
});

describe(simulateAttempt.name, () => {
  const profile = carrierProfile({ answerRate: 0.3, machineRate: 0.1, busyRate: 0.1, failedRate: 0.05 });

  it('draws outcomes at the profile’s rates', () => {
    const random = mulberry32(3);
    const counts: Record<SimulatedOutcome, number> = { human: 0, machine: 0, busy: 0, noAnswer: 0, failed: 0 };
    const draws = 50_000;
    for (let i = 0; i < draws; i++) counts[simulateAttempt(profile, random).outcome]++;
    // Binomial sd at p = 0.45 over 50 000 draws ≈ 0.0022: a 0.01 tolerance is over 4 sd.
    expect(Math.abs(counts.human / draws - 0.3)).toBeLessThan(0.01);
    expect(Math.abs(counts.machine / draws - 0.1)).toBeLessThan(0.01);
    expect(Math.abs(counts.busy / draws - 0.1)).toBeLessThan(0.01);
    expect(Math.abs(counts.failed / draws - 0.05)).toBeLessThan(0.01);
    expect(Math.abs(counts.noAnswer / draws - 0.45)).toBeLessThan(0.01);
  });

  it('answers within the ring range', () => {
    const random = mulberry32(4);
    for (let i = 0; i < 1000; i++) {
      const attempt = simulateAttempt(profile, random);
      if (attempt.outcome === 'human') {
        expect(attempt.resolvedAfterSec).toBeGreaterThanOrEqual(profile.ringSec.min);
        expect(attempt.resolvedAfterSec).toBeLessThanOrEqual(profile.ringSec.max);
      }
    }
  });

  it('gives up on no answer at the timeout', () => {
    const attempt = simulateAttempt(carrierProfile({ answerRate: 0, machineRate: 0, busyRate: 0, failedRate: 0 }), mulberry32(5));
    expect(attempt).toEqual({ outcome: 'noAnswer', resolvedAfterSec: 30 });
  });

  it('adds the detection time to a machine’s answer', () => {
    const attempt = simulateAttempt(
      carrierProfile({ answerRate: 0, machineRate: 1, busyRate: 0, failedRate: 0, ringSec: { min: 10, max: 10 } }),
      mulberry32(6),
    );
    expect(attempt).toEqual({ outcome: 'machine', resolvedAfterSec: 13 });
  });
});

describe(sampleTalkSec.name, () => {
  it('draws talk times with the profile’s mean and standard deviation', () => {
    const profile = carrierProfile({ talkSec: { mean: 120, sd: 60 } });
    const random = mulberry32(8);
    const samples = Array.from({ length: 50_000 }, () => sampleTalkSec(profile, random));
    const mean = samples.reduce((sum, value) => sum + value, 0) / samples.length;
    const sd = Math.sqrt(samples.reduce((sum, value) => sum + (value - mean) ** 2, 0) / samples.length);
    expect(Math.abs(mean - 120)).toBeLessThan(2);
    expect(Math.abs(sd - 60)).toBeLessThan(3);
    expect(Math.min(...samples)).toBeGreaterThan(0);
  });
});

describe(carrierProfile.name, () => {
  it('refuses rates adding up to more than 1', () => {
    expect(() => carrierProfile({ answerRate: 0.6, machineRate: 0.3, busyRate: 0.2 })).toThrow(DomainError);
  });

  it('refuses a ring range that ends before it starts', () => {
    expect(() => carrierProfile({ ringSec: { min: 10, max: 5 } })).toThrow(DomainError);
  });
});
