import { DomainError } from '../domain-error';

/**
 * Erlang C (M/M/N queue): calls arrive at random at a steady rate, handle times are exponential,
 * nobody hangs up while waiting. Rates are per second and times in seconds throughout.
 * Traffic intensity A = arrival rate × average handle time, in Erlangs.
 */

function requireNonNegative(value: number, name: string): void {
  if (!Number.isFinite(value) || value < 0)
    throw new DomainError('routing.invalidArgument', `${name} must be a finite number ≥ 0, got ${value}`);
}

function requireAgents(agents: number): void {
  if (!Number.isInteger(agents) || agents < 0)
    throw new DomainError('routing.invalidArgument', `agents must be a whole number ≥ 0, got ${agents}`);
}

export function trafficIntensity(arrivalRatePerSec: number, ahtSec: number): number {
  requireNonNegative(arrivalRatePerSec, 'arrivalRatePerSec');
  requireNonNegative(ahtSec, 'ahtSec');
  return arrivalRatePerSec * ahtSec;
}

/**
 * Probability that a contact waits (is not answered at once). 1 when the agents cannot keep up
 * (N ≤ A): the queue then grows without bound. Computed through the Erlang B recurrence
 * B(k) = A·B(k−1) / (k + A·B(k−1)), C = N·B / (N − A·(1 − B)), which avoids huge factorials.
 */
export function erlangC(arrivalRatePerSec: number, ahtSec: number, agents: number): number {
  requireAgents(agents);
  const traffic = trafficIntensity(arrivalRatePerSec, ahtSec);
  if (traffic === 0) return 0;
  if (agents <= traffic) return 1;
  let erlangB = 1;
  for (let k = 1; k <= agents; k++) erlangB = (traffic * erlangB) / (k + traffic * erlangB);
  return (agents * erlangB) / (agents - traffic * (1 - erlangB));
}

/** Fraction of contacts answered within `thresholdSec`: 1 − C·e^(−(N − A)·t / AHT). */
export function serviceLevel(arrivalRatePerSec: number, ahtSec: number, agents: number, thresholdSec: number): number {
  requireNonNegative(thresholdSec, 'thresholdSec');
  const traffic = trafficIntensity(arrivalRatePerSec, ahtSec);
  const probabilityOfWaiting = erlangC(arrivalRatePerSec, ahtSec, agents);
  if (probabilityOfWaiting === 0) return 1;
  if (agents <= traffic) return 0;
  return 1 - probabilityOfWaiting * Math.exp((-(agents - traffic) * thresholdSec) / ahtSec);
}

/** Average speed of answer in seconds, C·AHT / (N − A); Infinity when the agents cannot keep up. */
export function averageSpeedOfAnswer(arrivalRatePerSec: number, ahtSec: number, agents: number): number {
  const traffic = trafficIntensity(arrivalRatePerSec, ahtSec);
  const probabilityOfWaiting = erlangC(arrivalRatePerSec, ahtSec, agents);
  if (probabilityOfWaiting === 0) return 0;
  if (agents <= traffic) return Number.POSITIVE_INFINITY;
  return (probabilityOfWaiting * ahtSec) / (agents - traffic);
}

/**
 * Fewest agents that answer at least `target` (a fraction below 1, e.g. 0.8) of contacts within
 * `thresholdSec`. No shrinkage or occupancy cap: those are applied by the caller.
 */
export function agentsForServiceLevel(target: number, thresholdSec: number, arrivalRatePerSec: number, ahtSec: number): number {
  if (!(target >= 0 && target < 1)) throw new DomainError('routing.invalidArgument', `target must be a fraction in [0, 1), got ${target}`);
  const traffic = trafficIntensity(arrivalRatePerSec, ahtSec);
  if (traffic === 0) return 0;
  // Below A + 1 agents the queue is unstable, so the search starts just above the traffic.
  let agents = Math.floor(traffic) + 1;
  while (serviceLevel(arrivalRatePerSec, ahtSec, agents, thresholdSec) < target) agents++;
  return agents;
}
