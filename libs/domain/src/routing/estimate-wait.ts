import { DomainError } from '../domain-error';
import { averageSpeedOfAnswer } from './erlang-c';

/**
 * Expected wait in seconds for the customer at `position` (1 = next) in a line's queue, or null
 * when there is nothing to base it on (no recent handle times, or nobody serving the line).
 *
 * With N busy servers and exponential handle times of mean AHT, one finishes on average every
 * AHT / N seconds; the customer at position k waits for k such completions: k · AHT / N.
 * `agentsServing` counts conversation slots (agents × chats each) for chat lines.
 */
export function estimateWait(position: number, recentHandleTimesSec: readonly number[], agentsServing: number): number | null {
  if (!Number.isInteger(position) || position < 1) {
    throw new DomainError('routing.invalidArgument', `position must be a whole number ≥ 1, got ${position}`);
  }
  if (recentHandleTimesSec.length === 0 || agentsServing <= 0) return null;
  const averageHandleTime = recentHandleTimesSec.reduce((sum, seconds) => sum + seconds, 0) / recentHandleTimesSec.length;
  return (position * averageHandleTime) / agentsServing;
}

/**
 * Expected wait in seconds for a customer who has not joined yet (what the widget shows before
 * the chat starts), or null with nothing to base it on.
 *
 * With customers already waiting the newcomer's position is known (waiting + 1): `estimateWait`.
 * With an empty queue the wait depends on whether every slot is busy when they arrive, which is
 * what Erlang C answers from the staffing: the average speed of answer C·AHT / (N − A) for the
 * line's recent arrival rate. When the slots cannot keep up with arrivals (N ≤ A) Erlang C has no
 * steady state; the positional estimate for position 1 is used instead.
 */
export function estimateWaitForNewcomer(input: {
  waiting: number;
  recentHandleTimesSec: readonly number[];
  slots: number;
  arrivalRatePerSec: number;
}): number | null {
  const { waiting, recentHandleTimesSec, slots, arrivalRatePerSec } = input;
  if (!Number.isInteger(waiting) || waiting < 0) {
    throw new DomainError('routing.invalidArgument', `waiting must be a whole number ≥ 0, got ${waiting}`);
  }
  if (recentHandleTimesSec.length === 0 || slots <= 0) return null;
  if (waiting > 0) return estimateWait(waiting + 1, recentHandleTimesSec, slots);
  const averageHandleTime = recentHandleTimesSec.reduce((sum, seconds) => sum + seconds, 0) / recentHandleTimesSec.length;
  const asa = averageSpeedOfAnswer(arrivalRatePerSec, averageHandleTime, slots);
  return Number.isFinite(asa) ? asa : estimateWait(1, recentHandleTimesSec, slots);
}
