import { DomainError } from '../domain-error';
import type { LogRecord, TimeWindow } from './kpi-log';

// Helpers shared by the KPI modules; not exported from the package.

export function requireWindow({ from, to }: TimeWindow): void {
  if (!Number.isFinite(from) || !Number.isFinite(to) || !(to >= from)) {
    throw new DomainError('kpi.invalidWindow', `The window must end at or after its start (${from} → ${to})`);
  }
}

/** Settings that no log can repair (a negative threshold) are refused like any impossible input. */
export function requireNonNegative(value: number, name: string): void {
  if (!Number.isFinite(value) || value < 0)
    throw new DomainError('machine.invalidInput', `${name} must be a finite number ≥ 0, got ${value}`);
}

/**
 * Each entity's rows in time order. The sort is stable, so rows with the same `at` keep the order
 * they were given in (the log order), which decides the state after a zero-duration stay.
 */
export function byEntity<TRecord extends LogRecord<string, unknown>>(records: readonly TRecord[]): Map<string, TRecord[]> {
  const timelines = new Map<string, TRecord[]>();
  for (const record of records) {
    const timeline = timelines.get(record.entityId);
    if (timeline) timeline.push(record);
    else timelines.set(record.entityId, [record]);
  }
  for (const timeline of timelines.values()) timeline.sort((a, b) => a.at - b.at);
  return timelines;
}

/** Ratio that is null, not NaN or 0, when nothing was counted: "no traffic" is not "0 %". */
export function ratio(numerator: number, denominator: number): number | null {
  return denominator > 0 ? numerator / denominator : null;
}
