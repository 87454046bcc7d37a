import { clockOffset, type ClockReading } from '@centralita/contracts';

/** 'hh:mm:ss' (spec §9 time format) for a duration; hours grow past 24 rather than wrapping. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.floor((Number.isFinite(ms) ? ms : 0) / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  return [hours, minutes, seconds].map((part) => String(part).padStart(2, '0')).join(':');
}

/** Milliseconds from an ISO timestamp of the server to now, both on the server clock. */
export function elapsedSince(iso: string | null | undefined, localNow: number, offsetMs: number): number {
  if (!iso) return 0;
  const start = Date.parse(iso);
  if (Number.isNaN(start)) return 0;
  return Math.max(0, localNow + offsetMs - start);
}

/** A compact wait ("2 min", "45 s") for the widget's estimated wait; null stays unknown. */
export function roundedWait(seconds: number | null): { unit: 's' | 'min'; value: number } | null {
  if (seconds === null || !Number.isFinite(seconds) || seconds < 0) return null;
  if (seconds < 60) return { unit: 's', value: Math.max(1, Math.round(seconds)) };
  return { unit: 'min', value: Math.round(seconds / 60) };
}

/** The offset to add to the local clock, measured with GET /api/clock. */
export function offsetFrom(reading: ClockReading, receivedAt: number): number {
  return clockOffset(reading, receivedAt);
}
