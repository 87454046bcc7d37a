/**
 * The outbox: the one way an effect leaves a committed write. A row is written in the same
 * transaction (or statement) as the change it belongs to, and the API's relay delivers it after
 * commit: a socket push, a job for any queue of the registry (QUEUES, the worker's included), or
 * the removal of a delayed job. Every effect is typed here, from the socket event maps
 * (realtime.ts) and the queue registry (queues.ts), so the API and the worker write the same rows.
 */
import { createHash } from 'node:crypto';
import type { OutboxJob, QueueName } from '../queues';
import type { StaffServerEvents, VisitorServerEvents } from '../realtime';

export type SocketNamespace = 'staff' | 'visitor';

interface ServerEvents {
  staff: StaffServerEvents;
  visitor: VisitorServerEvents;
}

/** The events a namespace's clients listen to (`batch` is how the relay packs them, never an effect). */
export type SocketEvent<N extends SocketNamespace> = Exclude<keyof ServerEvents[N] & string, 'batch'>;
type EventPayload<N extends SocketNamespace, E extends SocketEvent<N>> = ServerEvents[N][E] extends (data: infer D) => void ? D : never;

/** One push: its namespace, rooms, event and the payload that event carries in the event map. */
export type SocketEmit = {
  [N in SocketNamespace]: { [E in SocketEvent<N>]: { namespace: N; rooms: string[]; event: E; data: EventPayload<N, E> } }[SocketEvent<N>];
}[SocketNamespace];

/**
 * What the relay does with a committed outbox row (column `topic`, payload in `payload`):
 * - `job`: add a job to a queue of the registry; `jobId` (a timer's own, `sentiment.<messageId>`,
 *   or else `ob-<outbox id>`) makes a second delivery of the row enqueue nothing;
 * - `job.remove`: remove a delayed job (a timer disarmed by the step);
 * - `socket`: push to rooms on every API process, in order.
 */
export type OutboxEffect =
  | { topic: 'job'; payload: OutboxJob }
  | { topic: 'job.remove'; payload: { queue: QueueName; jobId: string } }
  | { topic: 'socket'; payload: { emits: SocketEmit[] } };
export type OutboxTopic = OutboxEffect['topic'];

/** A push effect (one row for one or several emits). */
export function socketEffect(...emits: SocketEmit[]): OutboxEffect {
  return { topic: 'socket', payload: { emits } };
}

/** A job effect for queue `job.queue` (see outboxJob in queues.ts for building one checked by queue). */
export function jobEffect(job: OutboxJob): OutboxEffect {
  return { topic: 'job', payload: job };
}

/**
 * The outbox columns of `effects`, as every writer inserts them. The socket pushes of one write
 * share one row (their emits in order, where the first one stood): the relay sends a row's emits
 * one after the other anyway, and a customer's message then costs one socket row to insert and
 * mark delivered instead of two.
 */
export function outboxColumns(effects: OutboxEffect[]): { topics: OutboxTopic[]; payloads: string[] } {
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

/** One statement inserting the rows of `outboxColumns` in the order given (their ids follow it). */
export const INSERT_OUTBOX_SQL = `INSERT INTO outbox (topic, payload)
     SELECT t, p::jsonb FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(t, p, n) ORDER BY n
     RETURNING id`;

/** Anything that runs a query inside the caller's transaction (a TypeORM EntityManager or QueryRunner, a pg client). */
export interface OutboxQueryRunner {
  query(sql: string, params: unknown[]): Promise<unknown>;
}

/**
 * The PostgreSQL channel on which a process without a relay of its own (the worker) announces,
 * inside the transaction that wrote its rows, their ids. PostgreSQL delivers a notification only
 * when its transaction commits (and never for one rolled back), so the API's relays
 * (OutboxWakeListener) hear of committed rows at once instead of waiting for their poller to find
 * them stale. One channel per deployment, named after its QUEUE_PREFIX (its API and worker share
 * it, as they share its Redis keys): an API of another deployment on the same database would claim
 * the rows and push them into its own Redis streams, where this deployment's sockets never look.
 * A lower-case identifier (a digest of the prefix), so LISTEN needs no quoting and any prefix fits.
 */
export function outboxWakeChannel(queuePrefix: string): string {
  return `centralita_outbox_${createHash('sha256').update(queuePrefix).digest('hex').slice(0, 16)}`;
}

/** This process's deployment's wake channel: its QUEUE_PREFIX as the API's and the worker's configs read it. */
export function ownOutboxWakeChannel(env: NodeJS.ProcessEnv = process.env): string {
  return outboxWakeChannel(env.QUEUE_PREFIX?.trim() || 'centralita');
}
const WAKE_IDS_PER_NOTIFICATION = 400;

/**
 * Writes `effects` as outbox rows through `runner` (which must be inside the transaction of the
 * change they belong to) and answers their ids with their columns. The API's `writeOutbox` wraps it
 * to hand the rows to its relay after commit. A process that has no relay (the worker) passes
 * `wakeRelay`: the rows' ids are notified on its deployment's wake channel (ownOutboxWakeChannel), delivered at commit, and the
 * API's relays claim them at once; should no API process hear it, the poller delivers any row older
 * than OUTBOX_STALE_MS.
 */
export async function insertOutbox(
  runner: OutboxQueryRunner,
  effects: OutboxEffect[],
  options: { wakeRelay?: boolean } = {},
): Promise<{ ids: string[]; topics: OutboxTopic[]; payloads: string[] }> {
  if (effects.length === 0) return { ids: [], topics: [], payloads: [] };
  const { topics, payloads } = outboxColumns(effects);
  const rows = (await runner.query(INSERT_OUTBOX_SQL, [topics, payloads])) as { id: string | number }[];
  const ids = rows.map((row) => String(row.id));
  if (options.wakeRelay) {
    const channel = ownOutboxWakeChannel();
    for (let start = 0; start < ids.length; start += WAKE_IDS_PER_NOTIFICATION) {
      await runner.query('SELECT pg_notify($1, $2)', [channel, ids.slice(start, start + WAKE_IDS_PER_NOTIFICATION).join(',')]);
    }
  }
  return { ids, topics, payloads };
}

/** The ids a wake-up notification carries (see insertOutbox); anything that is not one is ignored. */
export function wokenOutboxIds(payload: string | undefined): string[] {
  return (payload ?? '').split(',').filter((id) => /^\d{1,19}$/.test(id));
}
