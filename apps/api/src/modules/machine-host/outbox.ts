import { REALTIME_QUEUES } from '@centralita/contracts';
import type { EntityManager } from 'typeorm';

export type SocketNamespace = 'staff' | 'visitor';

export interface SocketEmit {
  namespace: SocketNamespace;
  rooms: string[];
  event: string;
  data: unknown;
}

/**
 * What the relay does with a committed outbox row. Jobs carry a deterministic id (a timer's own,
 * or `ob-<outbox id>`), so delivering a row twice enqueues once.
 */
export type OutboxEffect =
  | {
      topic: 'job';
      payload: {
        queue: (typeof REALTIME_QUEUES)[keyof typeof REALTIME_QUEUES];
        name: string;
        jobId?: string;
        delayMs?: number;
        data: unknown;
      };
    }
  | { topic: 'job.remove'; payload: { queue: (typeof REALTIME_QUEUES)[keyof typeof REALTIME_QUEUES]; jobId: string } }
  | { topic: 'socket'; payload: { emits: SocketEmit[] } };

/** A committed outbox row as the relay delivers it: the payload exactly as stored (JSON text). */
export interface OutboxRecord {
  id: string;
  topic: OutboxEffect['topic'];
  payload: string;
}

/**
 * What each open transaction wrote to the outbox, so the relay can deliver right after commit
 * without reading the rows back. Keyed by the transaction's EntityManager: a rolled-back
 * transaction's entry is never read and goes with its manager.
 */
const written = new WeakMap<EntityManager, OutboxRecord[]>();

export function writtenInTransaction(manager: EntityManager): OutboxRecord[] {
  return written.get(manager) ?? [];
}

export async function writeOutbox(manager: EntityManager, effects: OutboxEffect[]): Promise<string[]> {
  if (effects.length === 0) return [];
  const { topics, payloads } = outboxColumns(effects);
  // unnest keeps the rows in the order given, so their ids follow the order the intents were made in.
  const rows: { id: string }[] = await manager.query(
    `INSERT INTO outbox (topic, payload)
     SELECT t, p::jsonb FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(t, p, n) ORDER BY n
     RETURNING id`,
    [topics, payloads],
  );
  const ids = rows.map((row) => String(row.id));
  rememberWritten(manager, ids, topics, payloads);
  return ids;
}

/** Outbox rows a statement of this transaction inserted (in `effects` order), for the relay after commit. */
export function rememberWritten(manager: EntityManager, ids: string[], topics: OutboxEffect['topic'][], payloads: string[]): void {
  const records = written.get(manager) ?? [];
  ids.forEach((id, index) => records.push({ id, topic: topics[index], payload: payloads[index] }));
  written.set(manager, records);
}

/**
 * The outbox columns of `effects`, as `writeOutbox` and the one-statement writers insert them. The
 * socket pushes of one write share one row (their emits in order, where the first one stood): the
 * relay sends a row's emits one after the other anyway, and a customer's message then costs one
 * socket row to insert and mark delivered instead of two.
 */
export function outboxColumns(effects: OutboxEffect[]): { topics: OutboxEffect['topic'][]; payloads: string[] } {
  const rows: OutboxEffect[] = [];
  let pushes: SocketEmit[] | null = null;
  for (const effect of effects) {
    if (effect.topic !== 'socket') rows.push(effect);
    else if (pushes) pushes.push(...effect.payload.emits);
    else {
      pushes = [...effect.payload.emits];
      rows.push({ topic: 'socket', payload: { emits: pushes } });
    }
  }
  return { topics: rows.map((row) => row.topic), payloads: rows.map((row) => JSON.stringify(row.payload)) };
}

/** Timer job ids: the kind, the entity and the armedAt the event will echo (no ':' in BullMQ ids). */
export function timerJobId(kind: string, entityId: string, armedAt: number): string {
  return `${kind}.${entityId}.${armedAt}`;
}
