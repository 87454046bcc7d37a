import { DomainError } from '../domain-error';

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
