import { describe, expect, it } from '@jest/globals';
import { DomainError } from '../domain-error';
import { agentsForServiceLevel, averageSpeedOfAnswer, erlangC, serviceLevel, trafficIntensity } from './erlang-c';

/*
 * Worked example from Call Centre Helper, "Erlang C Formula – Made Simple With an Easy Worked
 * Example" (callcentrehelper.com): 100 calls in 30 minutes, AHT 180 s, target 80 % answered in 20 s.
 *
 *   arrivalsPerSec = 100 / 1800 s = 0.0556 calls/s,  A = arrivalsPerSec · AHT = 100 · 180 / 1800 = 10 Erlangs.
 *   N = 11:  A^N/N! = 10^11 / 39 916 800 = 2 505.2108;  × N/(N − A) = × 11 → 27 557.3192
 *            Σ_{k=0..10} A^k/k! = 12 842.3051
 *            Pw = 27 557.3192 / (12 842.3051 + 27 557.3192) = 0.682118
 *            SL = 1 − 0.682118 · e^(−(11 − 10) · 20/180) = 1 − 0.682118 · 0.894839 = 0.389614
 *            ASA = 0.682118 · 180 / (11 − 10) = 122.78 s
 *   Same steps for N = 12..14 give Pw 0.449388, 0.285270, 0.174132 and SL 0.640158, 0.795595,
 *   0.888350: 13 agents reach 79.6 %, so 14 are needed (ASA 0.174132 · 180 / 4 = 7.84 s).
 */
const arrivalsPerSec = 100 / 1800;
const AHT = 180;

describe(erlangC.name, () => {
  it('gives traffic in Erlangs as arrival rate times handle time', () => {
    expect(trafficIntensity(arrivalsPerSec, AHT)).toBeCloseTo(10, 12);
  });

  it.each([
    [11, 0.682118],
    [12, 0.449388],
    [13, 0.28527],
    [14, 0.174132],
  ])('gives the textbook probability of waiting with %i agents', (agents, expected) => {
    expect(erlangC(arrivalsPerSec, AHT, agents)).toBeCloseTo(expected, 6);
  });

  it('is certain to wait when the agents cannot keep up', () => {
    expect(erlangC(arrivalsPerSec, AHT, 10)).toBe(1);
  });

  it('never waits when nothing arrives', () => {
    expect(erlangC(0, AHT, 3)).toBe(0);
  });

  it('refuses a fractional number of agents', () => {
    expect(() => erlangC(arrivalsPerSec, AHT, 11.5)).toThrow(DomainError);
  });

  it('refuses a negative arrival rate', () => {
    expect(() => erlangC(-1, AHT, 11)).toThrow(DomainError);
  });
});

describe(serviceLevel.name, () => {
  it.each([
    [11, 0.389614],
    [12, 0.640158],
    [13, 0.795595],
    [14, 0.88835],
  ])('gives the textbook share answered within 20 s with %i agents', (agents, expected) => {
    expect(serviceLevel(arrivalsPerSec, AHT, agents, 20)).toBeCloseTo(expected, 6);
  });

  it('is zero when the agents cannot keep up', () => {
    expect(serviceLevel(arrivalsPerSec, AHT, 9, 20)).toBe(0);
  });
});

describe(averageSpeedOfAnswer.name, () => {
  it('gives the textbook average speed of answer', () => {
    expect(averageSpeedOfAnswer(arrivalsPerSec, AHT, 11)).toBeCloseTo(122.7813, 3);
    expect(averageSpeedOfAnswer(arrivalsPerSec, AHT, 14)).toBeCloseTo(7.8359, 3);
  });

  it('is unbounded when the agents cannot keep up', () => {
    expect(averageSpeedOfAnswer(arrivalsPerSec, AHT, 10)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe(agentsForServiceLevel.name, () => {
  it('needs 14 agents for 80 % in 20 s in the textbook example', () => {
    expect(agentsForServiceLevel(0.8, 20, arrivalsPerSec, AHT)).toBe(14);
  });

  it('needs 13 agents for a 79 % target, which 13 reach with 79.6 %', () => {
    expect(agentsForServiceLevel(0.79, 20, arrivalsPerSec, AHT)).toBe(13);
  });

  it('needs nobody when nothing arrives', () => {
    expect(agentsForServiceLevel(0.8, 20, 0, AHT)).toBe(0);
  });

  it('refuses a target of 100 %, which no finite staff reaches', () => {
    expect(() => agentsForServiceLevel(1, 20, arrivalsPerSec, AHT)).toThrow(DomainError);
  });
});
