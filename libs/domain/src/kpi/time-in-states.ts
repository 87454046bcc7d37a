import { DomainError } from '../domain-error';
import type { TransitionRecord } from '../machines/machine-step';

/**
 * Milliseconds spent in each status within the window [from, to), from a transition log in the
 * order it was written (by time; rows with the same time keep their log order). The status at
 * `from` is the `to` of the last record at or before it; time before the first record belongs
 * to no status. So when the log starts at or before `from`, the values sum to exactly to − from.
 */
export function timeInStates<TStatus extends string>(
  transitions: readonly TransitionRecord<TStatus>[],
  from: number,
  to: number,
): Partial<Record<TStatus, number>> {
  if (!(to >= from)) throw new DomainError('kpi.invalidWindow', `The window must end at or after its start (${from} → ${to})`);
  const totals: Partial<Record<TStatus, number>> = {};
  const add = (status: TStatus, ms: number) => {
    if (ms > 0) totals[status] = (totals[status] ?? 0) + ms;
  };
  let current: TStatus | null = null;
  let since = from;
  for (const record of transitions) {
    if (record.at >= to) break;
    if (record.at > from) {
      if (current !== null) add(current, record.at - since);
      since = record.at;
    }
    current = record.to;
  }
  if (current !== null) add(current, to - since);
  return totals;
}
