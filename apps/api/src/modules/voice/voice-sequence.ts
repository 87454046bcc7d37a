/**
 * The order of one call's events (libs/contracts voice.ts): the worker numbers them 1, 2, … per call
 * and the API applies number n only after n-1, whoever consumes them and in whatever order they
 * arrive. Pure: the caller keeps `lastSeq` and `pending` on the call's row, under its row lock.
 */

/** Events held ahead of a gap, per call; a call that runs past this has lost an event for good. */
export const MAX_PENDING_EVENTS = 64;

export type AdmitOutcome =
  /** Applied now (with any held events it unblocked, in `ready`). */
  | 'ready'
  /** Already applied, or already held: nothing to do. */
  | 'duplicate'
  /** Ahead of a gap: kept in `pending` until the missing ones arrive. */
  | 'held'
  /** Not a positive integer sequence number, or too far ahead to hold. */
  | 'invalid';

export interface Admission<E extends { seq: number }> {
  outcome: AdmitOutcome;
  /** Events to apply now, in order (empty unless `ready`). */
  ready: E[];
  /** What stays held after applying `ready`, sorted by seq. */
  pending: E[];
  /** The call's last applied seq once `ready` is applied. */
  lastSeq: number;
}

export function admitEvent<E extends { seq: number }>(lastSeq: number, pending: readonly E[], incoming: E): Admission<E> {
  const held = [...pending].sort((x, y) => x.seq - y.seq);
  const seq = incoming.seq;
  if (!Number.isSafeInteger(seq) || seq < 1) return { outcome: 'invalid', ready: [], pending: held, lastSeq };
  if (seq <= lastSeq || held.some((event) => event.seq === seq)) return { outcome: 'duplicate', ready: [], pending: held, lastSeq };
  if (seq > lastSeq + 1) {
    if (held.length >= MAX_PENDING_EVENTS) return { outcome: 'invalid', ready: [], pending: held, lastSeq };
    return { outcome: 'held', ready: [], pending: [...held, incoming].sort((x, y) => x.seq - y.seq), lastSeq };
  }
  const ready = [incoming];
  let next = seq + 1;
  const rest: E[] = [];
  for (const event of held) {
    if (event.seq === next) {
      ready.push(event);
      next++;
    } else if (event.seq > next) rest.push(event);
  }
  return { outcome: 'ready', ready, pending: rest, lastSeq: next - 1 };
}
