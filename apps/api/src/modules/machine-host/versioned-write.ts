import type { TransitionRecord } from '@centralita/domain';
import type { EntityManager } from 'typeorm';
import { outboxColumns, type OutboxEffect, type OutboxRecord } from './outbox';

/** A machine row's new state: the columns to set and what the transition log and outbox get. */
export interface VersionedWrite {
  table: 'conversations' | 'agent_presence';
  /** The key column and value of the row (`id`, `user_id`). */
  key: { column: string; value: string };
  /** The version the step was taken from: the write happens only if the row still has it. */
  version: number;
  /** Columns to set besides version (incremented) and their values, in order. */
  set: [column: string, value: unknown][];
  entity: 'conversation' | 'agent';
  record: TransitionRecord;
  logData: object | null;
  effects: OutboxEffect[];
  /**
   * Another INSERT that belongs to the step (a customer's message with its messageReceived event):
   * built with the statement's placeholder function, it must select FROM u, so it happens only if
   * the versioned UPDATE did.
   */
  companion?: (placeholder: (value: unknown) => string) => string;
}

export interface Written<TRow> {
  row: TRow;
  outboxIds: string[];
  records: OutboxRecord[];
}

/**
 * Writes one machine step in one statement: the versioned UPDATE, its transition-log row and its
 * outbox rows. Both INSERTs read the UPDATE's RETURNING, so they happen only if it did, and the
 * whole statement commits or fails as one — an event costs one round trip to PostgreSQL instead of
 * three. Answers null, having written nothing, when the version moved.
 */
export async function writeVersioned<TRow>(manager: EntityManager, write: VersionedWrite): Promise<Written<TRow> | null> {
  const params: unknown[] = [write.key.value, write.version];
  const placeholder = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const assignments = write.set.map(([column, value]) => `${column} = ${placeholder(value)}`).join(', ');
  const { record } = write;
  const log = [
    placeholder(write.entity),
    placeholder(record.from),
    placeholder(record.to),
    placeholder(record.event),
    placeholder(record.actor.kind),
    placeholder(record.actor.id ?? null),
    placeholder(new Date(record.at)),
    placeholder(record.at),
  ];
  const data = placeholder(write.logData === null ? null : JSON.stringify(write.logData));
  const { topics, payloads } = outboxColumns(write.effects);
  const topicsParam = placeholder(topics);
  const payloadsParam = placeholder(payloads);
  const key = write.key.column;
  const companion = write.companion ? `, companion AS (${write.companion(placeholder)})` : '';
  const [updated] = (await manager.query(
    `WITH u AS (
       UPDATE ${write.table} SET ${assignments}, version = version + 1 WHERE ${key} = $1 AND version = $2 RETURNING *
     ), logged AS (
       INSERT INTO transition_log (tenant_id, entity_type, entity_id, from_state, to_state, event, actor_kind, actor_id, at, at_ms, version, data)
       SELECT u.tenant_id, ${log[0]}, u.${key}, ${log.slice(1).join(', ')}, u.version, ${data} FROM u
     ), queued AS (
       INSERT INTO outbox (topic, payload)
       SELECT t, p::jsonb FROM u, unnest(${topicsParam}::text[], ${payloadsParam}::text[]) WITH ORDINALITY AS e(t, p, n) ORDER BY n
       RETURNING id
     )${companion}
     SELECT u.*, ARRAY(SELECT id::text FROM queued ORDER BY id) AS outbox_ids FROM u`,
    params,
  )) as (TRow & { outbox_ids: string[] })[];
  if (!updated) return null;
  const { outbox_ids: outboxIds, ...row } = updated;
  return {
    row: row as TRow,
    outboxIds,
    records: outboxIds.map((id, index) => ({ id, topic: topics[index], payload: payloads[index] })),
  };
}
