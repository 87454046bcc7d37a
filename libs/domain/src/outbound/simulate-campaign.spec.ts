import { describe, expect, it } from '@jest/globals';
import { DomainError } from '../domain-error';
import { simulateCampaign, type SimulateCampaignOptions } from './simulate-campaign';

/*
 * Setting (documented in docs for P7): 20 agents for 4 simulated hours; carrier answers by a
 * human at the given rate, answering machines 10 % (detected in 3 s and hung up), busy 10 %,
 * failures 2 %, no answer for the rest (given up after 30 s); humans and machines answer after
 * 4–20 s of ringing; talk time log-normal, mean 120 s, sd 60 s; 10 s wrap-up; abandon threshold
 * 2 s; pacer defaults (cap 3 %, at most 3 lines per agent, slows down from 1.5 %).
 *
 * Results with seed 42 (seeds 1 and 7 within about ±1.5 points; occupancy = talk + wrap-up over logged-in time):
 *
 *   human answer rate | progressive occ. | predictive occ. | ratio | predictive abandon
 *   10 %              | 35.2 %           | 65.8 %          | 1.87× | 0.00 %
 *   20 %              | 54.7 %           | 83.5 %          | 1.53× | 1.22 %
 *   30 %              | 66.2 %           | 85.3 %          | 1.29× | 1.87 %
 *   60 %              | 84.1 %           | 90.0 %          | 1.07× | 2.07 %
 *
 * The P7 bar (≥ 1.3×) is met up to a 20 % answer rate and is borderline at 30 % (1.29×–1.34×
 * depending on the seed). At 60 % it cannot be met: progressive already keeps agents 84 % busy,
 * and 1.3× would mean 109 %. Progressive never abandons (one call per idle agent), so "equal
 * abandonment" here means both within the 3 % cap.
 */
const setting = (overrides: Partial<SimulateCampaignOptions>): SimulateCampaignOptions => ({
  mode: 'predictive',
  agents: 20,
  answerRate: 0.3,
  machineRate: 0.1,
  busyRate: 0.1,
  failedRate: 0.02,
  seed: 42,
  durationSec: 4 * 3600,
  ...overrides,
});

describe(simulateCampaign.name, () => {
  it('gives the same result for the same seed', () => {
    const options = setting({ durationSec: 3600 });
    expect(simulateCampaign(options)).toEqual(simulateCampaign(options));
  });

  it('gives a different run for another seed', () => {
    expect(simulateCampaign(setting({ durationSec: 3600, seed: 1 })).placed).not.toBe(
      simulateCampaign(setting({ durationSec: 3600, seed: 2 })).placed,
    );
  });

  it('never abandons a call in progressive mode', () => {
    const result = simulateCampaign(setting({ mode: 'progressive', answerRate: 0.6 }));
    expect(result.abandoned).toBe(0);
    expect(result.connected).toBe(result.answered);
  });

  it('never abandons a call in preview mode', () => {
    expect(simulateCampaign(setting({ mode: 'preview' })).abandoned).toBe(0);
  });

  it('counts every human answer as either connected or abandoned (up to calls still waiting at the end)', () => {
    const result = simulateCampaign(setting({}));
    expect(result.answered - result.connected - result.abandoned).toBeGreaterThanOrEqual(0);
    expect(result.answered - result.connected - result.abandoned).toBeLessThanOrEqual(20);
  });

  it.each([0.1, 0.3, 0.6])('keeps predictive abandonment within 3 %% of human answers at a %d answer rate', (answerRate) => {
    for (const seed of [42, 1, 7]) {
      const result = simulateCampaign(setting({ answerRate, seed }));
      expect(result.abandonRate).toBeLessThanOrEqual(0.03);
    }
  });

  it.each([0.1, 0.2])('makes predictive occupancy at least 1.3× progressive at a %d answer rate, both within the cap', (answerRate) => {
    for (const seed of [42, 1, 7]) {
      const progressive = simulateCampaign(setting({ mode: 'progressive', answerRate, seed }));
      const predictive = simulateCampaign(setting({ mode: 'predictive', answerRate, seed }));
      expect(progressive.abandonRate).toBeLessThanOrEqual(0.03);
      expect(predictive.abandonRate).toBeLessThanOrEqual(0.03);
      expect(predictive.occupancy / progressive.occupancy).toBeGreaterThanOrEqual(1.3);
    }
  });

  it.each([0.3, 0.6])('still keeps agents busier than progressive at a %d answer rate', (answerRate) => {
    const progressive = simulateCampaign(setting({ mode: 'progressive', answerRate }));
    const predictive = simulateCampaign(setting({ mode: 'predictive', answerRate }));
    expect(predictive.occupancy).toBeGreaterThan(progressive.occupancy);
  });

  it('keeps agents busier in progressive than in preview', () => {
    expect(simulateCampaign(setting({ mode: 'progressive' })).occupancy).toBeGreaterThan(
      simulateCampaign(setting({ mode: 'preview' })).occupancy,
    );
  });

  it('refuses a run without agents', () => {
    expect(() => simulateCampaign(setting({ agents: 0 }))).toThrow(DomainError);
  });
});
