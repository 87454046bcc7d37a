import { insertOutbox, type OutboxEffect, type OutboxTopic } from '@centralita/contracts/server';
import type { EntityManager } from 'typeorm';

// The effect types and the column writer are shared with the worker (libs/contracts/src/server/outbox.ts).
export { outboxColumns, socketEffect, jobEffect } from '@centralita/contracts/server';
export type { OutboxEffect, OutboxTopic, SocketEmit, SocketNamespace } from '@centralita/contracts/server';

/** A committed outbox row as the relay delivers it: the payload exactly as stored (JSON text). */
export interface OutboxRecord {
  id: string;
  topic: OutboxTopic;
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
  const { ids, topics, payloads } = await insertOutbox(manager, effects);
  rememberWritten(manager, ids, topics, payloads);
  return ids;
}

/** Outbox rows a statement of this transaction inserted (in `effects` order), for the relay after commit. */
export function rememberWritten(manager: EntityManager, ids: string[], topics: OutboxTopic[], payloads: string[]): void {
  const records = written.get(manager) ?? [];
  ids.forEach((id, index) => records.push({ id, topic: topics[index], payload: payloads[index] }));
  written.set(manager, records);
}

/** Timer job ids: the kind, the entity and the armedAt the event will echo (no ':' in BullMQ ids). */
export function timerJobId(kind: string, entityId: string, armedAt: number): string {
  return `${kind}.${entityId}.${armedAt}`;
}
