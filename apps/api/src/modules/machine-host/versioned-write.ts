import type { TransitionRecord } from '@centralita/domain';
import type { EntityManager } from 'typeorm';
import { outboxColumns, type OutboxEffect, type OutboxRecord } from './outbox';
import type { LoggedEntity } from './transition-log';

/** A machine row's new state: the columns to set and what the transition log and outbox get. */
export interface VersionedWrite {
  /** The machine's table: the host's two, and the outbound host's call and campaign machines. */
  table: 'conversations' | 'agent_presence' | 'outbound_calls' | 'dialer_campaigns';
  /** The key column and value of the row (`id`, `user_id`). */
  key: { column: string; value: string };
  /** The version the step was taken from: the write happens only if the row still has it. */
  version: number;
  /** Columns to set besides version (incremented) and their values, in order. */
  set: [column: string, value: unknown][];
  entity: LoggedEntity;
  record: TransitionRecord;
  logData: object | null;
  effects: OutboxEffect[];
  /** Another row that belongs to the step (a customer's message with its messageReceived event). */
  companion?: CompanionInsert;
}

/** The PostgreSQL type of a column a write sets (jsonb columns travel as text and are cast). */
export type ColumnType = 'text' | 'int' | 'jsonb' | 'timestamptz' | 'uuid';
export type ColumnTypes = Record<string, ColumnType>;

/**
 * An INSERT written with the step, read from the versioned UPDATE's RETURNING: it happens only if
 * the UPDATE did.
 */
export interface CompanionInsert {
  table: string;
  /** Its own columns: column → [value, type]. */
  values: Record<string, [unknown, ColumnType]>;
  /** Columns copied from the updated row: column → the row's column (conversation_id ← id). */
  fromRow: Record<string, string>;
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
  const companion = write.companion
    ? `, companion AS (${companionSql(write.companion, (_column, value, type) => `${placeholder(value)}::${type}`)})`
    : '';
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

/**
 * A row that belongs to a machine's row without stepping it (an agent's message leaves its
 * conversation's state and version alone), with its outbox rows.
 */
export interface AtVersionInsert {
  table: VersionedWrite['table'];
  key: VersionedWrite['key'];
  /** The version the caller's checks were made on: the insert happens only if the row still has it. */
  version: number;
  companion: CompanionInsert;
  effects: OutboxEffect[];
}

/**
 * Inserts `companion` and its outbox rows in one statement, only if the machine's row still has
 * `version` — the checks the caller made on that row (who may write, in which state) still hold,
 * without a transaction or a row lock. Every step of the row moves its version, so a write whose
 * checks were overtaken by a committed step writes nothing and answers null. (The statement reads
 * the row as of its start: a step still committing then — a close in the same instant — is not
 * waited for, and the two are ordered reply first, as if the reply had come just before.)
 * Answers the row as it is (same version).
 */
export async function insertAtVersion<TRow>(manager: EntityManager, write: AtVersionInsert): Promise<Written<TRow> | null> {
  const params: unknown[] = [write.key.value, write.version];
  const placeholder = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const { topics, payloads } = outboxColumns(write.effects);
  const topicsParam = placeholder(topics);
  const payloadsParam = placeholder(payloads);
  const companion = companionSql(write.companion, (_column, value, type) => `${placeholder(value)}::${type}`);
  const [found] = (await manager.query(
    `WITH u AS (
       SELECT * FROM ${write.table} WHERE ${write.key.column} = $1 AND version = $2
     ), companion AS (${companion}
     ), queued AS (
       INSERT INTO outbox (topic, payload)
       SELECT t, p::jsonb FROM u, unnest(${topicsParam}::text[], ${payloadsParam}::text[]) WITH ORDINALITY AS e(t, p, n) ORDER BY n
       RETURNING id
     )
     SELECT u.*, ARRAY(SELECT id::text FROM queued ORDER BY id) AS outbox_ids FROM u`,
    params,
  )) as (TRow & { outbox_ids: string[] })[];
  if (!found) return null;
  const { outbox_ids: outboxIds, ...row } = found;
  return {
    row: row as TRow,
    outboxIds,
    records: outboxIds.map((id, index) => ({ id, topic: topics[index], payload: payloads[index] })),
  };
}

/** `INSERT INTO <table> (…) SELECT <own values>, u.<copied> FROM u<join>`, each own value rendered by `render`. */
function companionSql(companion: CompanionInsert, render: (column: string, value: unknown, type: ColumnType) => string, join = ''): string {
  const own = Object.entries(companion.values);
  const copied = Object.entries(companion.fromRow);
  const columns = [...own.map(([column]) => column), ...copied.map(([column]) => column)];
  const selected = [...own.map(([column, [value, type]]) => render(column, value, type)), ...copied.map(([, from]) => `u.${from}`)];
  return `INSERT INTO ${companion.table} (${columns.join(', ')}) SELECT ${selected.join(', ')} FROM u${join}`;
}

/**
 * Several rows' machine steps in one statement (group commit): what `writeVersioned` does for one
 * write, for many, each row's UPDATE still version-checked on its own. A write whose version moved
 * writes nothing and answers null; the others commit together. Writes must be for different rows,
 * set the same columns in the same order (`types` names their types), and either all carry a
 * companion of the same shape or none does.
 * Under load this turns N round trips, N statements' protocol work and N wake-ups of the server
 * process into one.
 */
export async function writeVersionedBatch<TRow>(
  manager: EntityManager,
  writes: VersionedWrite[],
  types: ColumnTypes,
): Promise<(Written<TRow> | null)[]> {
  const [first] = writes;
  const columns = first.set.map(([column]) => column);
  const params: unknown[] = [];
  const array = (values: unknown[], type: string) => {
    params.push(values);
    return `$${params.length}::${type}[]`;
  };
  const arrayType = (column: string) => (types[column] === 'jsonb' ? 'text' : types[column]);
  const cast = (column: string, value: string) => (types[column] === 'jsonb' ? `${value}::jsonb` : value);

  const indexes = writes.map((_, index) => index);
  // The rows to update go in key order: two batches that share rows then lock them in the same
  // order, so they wait for each other instead of deadlocking.
  const byKey = [...indexes].sort((x, y) => (writes[x].key.value < writes[y].key.value ? -1 : 1));
  const rowsColumn = (pick: (write: VersionedWrite) => unknown, type: string) =>
    array(
      byKey.map((index) => pick(writes[index])),
      type,
    );
  const rows = array(byKey, 'int');
  const keys = rowsColumn((write) => write.key.value, 'uuid');
  const versions = rowsColumn((write) => write.version, 'int');
  const values = columns.map((column, c) => rowsColumn((write) => write.set[c][1], arrayType(column)));
  const logColumn = (pick: (write: VersionedWrite) => unknown, type: string) => array(writes.map(pick), type);
  const log = [
    array(indexes, 'int'),
    logColumn((write) => write.entity, 'text'),
    logColumn((write) => write.record.from, 'text'),
    logColumn((write) => write.record.to, 'text'),
    logColumn((write) => write.record.event, 'text'),
    logColumn((write) => write.record.actor.kind, 'text'),
    logColumn((write) => write.record.actor.id ?? null, 'text'),
    logColumn((write) => new Date(write.record.at), 'timestamptz'),
    logColumn((write) => write.record.at, 'bigint'),
    logColumn((write) => (write.logData === null ? null : JSON.stringify(write.logData)), 'text'),
  ];
  // The outbox rows of every write, in write order: e.batch_index says whose they are.
  const outbox = writes.map((write) => outboxColumns(write.effects));
  const effectOwners = array(
    outbox.flatMap((columnsOf, index) => columnsOf.topics.map(() => index)),
    'int',
  );
  const effectTopics = array(
    outbox.flatMap((columnsOf) => columnsOf.topics),
    'text',
  );
  const effectPayloads = array(
    outbox.flatMap((columnsOf) => columnsOf.payloads),
    'text',
  );

  // Companions (one per write, same table and columns): k.batch_index says whose they are.
  let companion = '';
  if (first.companion) {
    const own = Object.entries(first.companion.values);
    const names = new Map(own.map(([column], c) => [column, `k${c}`]));
    const arrays = own.map(([column, [, type]]) =>
      array(
        writes.map((write) => write.companion!.values[column][0]),
        type === 'jsonb' ? 'text' : type,
      ),
    );
    const join = ` JOIN unnest(${array(indexes, 'int')}, ${arrays.join(', ')}) AS k(batch_index, ${[...names.values()].join(', ')})
         ON k.batch_index = u.batch_index`;
    const fromK = (column: string, _value: unknown, type: ColumnType) => `k.${names.get(column)}${type === 'jsonb' ? '::jsonb' : ''}`;
    companion = `, companion AS (${companionSql(first.companion, fromK, join)})`;
  }

  const { table } = first;
  const key = first.key.column;
  const valueNames = columns.map((_, c) => `c${c}`);
  const assignments = columns.map((column, c) => `${column} = ${cast(column, `v.${valueNames[c]}`)}`).join(', ');
  const updated = (await manager.query(
    `WITH v AS (
       SELECT * FROM unnest(${rows}, ${keys}, ${versions}, ${values.join(', ')}) AS v(batch_index, row_key, expected_version, ${valueNames.join(', ')})
     ), u AS (
       UPDATE ${table} t SET ${assignments}, version = t.version + 1
       FROM v WHERE t.${key} = v.row_key AND t.version = v.expected_version
       RETURNING t.*, v.batch_index
     ), logged AS (
       INSERT INTO transition_log (tenant_id, entity_type, entity_id, from_state, to_state, event, actor_kind, actor_id, at, at_ms, version, data)
       SELECT u.tenant_id, l.entity, u.${key}, l.from_state, l.to_state, l.event, l.actor_kind, l.actor_id, l.at, l.at_ms, u.version, l.data::jsonb
       FROM u JOIN unnest(${log.join(', ')}) AS l(batch_index, entity, from_state, to_state, event, actor_kind, actor_id, at, at_ms, data)
         ON l.batch_index = u.batch_index
     ), queued AS (
       INSERT INTO outbox (topic, payload)
       SELECT e.t, e.p::jsonb FROM u JOIN unnest(${effectOwners}, ${effectTopics}, ${effectPayloads}) WITH ORDINALITY AS e(batch_index, t, p, n)
         ON e.batch_index = u.batch_index
       ORDER BY e.n
       RETURNING id
     )${companion}
     SELECT u.*, ARRAY(SELECT id::text FROM queued ORDER BY id) AS outbox_ids FROM u`,
    params,
  )) as (TRow & { batch_index: number; outbox_ids: string[] })[];

  // The ids were drawn in e.n order: the written steps' outbox rows, in write order.
  const results: (Written<TRow> | null)[] = writes.map(() => null);
  const byIndex = new Map(updated.map((row) => [row.batch_index, row]));
  const ids = updated[0]?.outbox_ids ?? [];
  let next = 0;
  for (const index of indexes) {
    const row = byIndex.get(index);
    if (!row) continue;
    const { topics, payloads } = outbox[index];
    const outboxIds = ids.slice(next, next + topics.length);
    next += topics.length;
    const { batch_index: _index, outbox_ids: _ids, ...columnsOfRow } = row;
    results[index] = {
      row: columnsOfRow as TRow,
      outboxIds,
      records: outboxIds.map((id, k) => ({ id, topic: topics[k], payload: payloads[k] })),
    };
  }
  return results;
}
