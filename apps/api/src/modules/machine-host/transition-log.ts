import type { TransitionRecord } from '@centralita/domain';
import type { EntityManager } from 'typeorm';

/** Every machine whose steps are logged: the host's two and the outbound host's two. */
export type LoggedEntity = 'conversation' | 'agent' | 'outbound_call' | 'dialer_campaign';

/** One `transition_log` row: the step of a machine's entity, the version it wrote and its KPI data. */
export interface LogEntry {
  entity: LoggedEntity;
  id: string;
  tenantId: string;
  record: TransitionRecord;
  version: number;
  data: object | null;
}

/**
 * The one writer of `transition_log` rows: one row per accepted step, in the step's transaction,
 * with the version the step wrote and the KPI data the host copies onto it (see kpi-log.ts).
 */
export async function appendTransitionLog(
  manager: EntityManager,
  { entity, id, tenantId, record, version, data }: LogEntry,
): Promise<void> {
  await manager.query(
    `INSERT INTO transition_log (tenant_id, entity_type, entity_id, from_state, to_state, event, actor_kind, actor_id, at, at_ms, version, data)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      tenantId,
      entity,
      id,
      record.from,
      record.to,
      record.event,
      record.actor.kind,
      record.actor.id ?? null,
      new Date(record.at),
      record.at,
      version,
      data === null ? null : JSON.stringify(data),
    ],
  );
}
