import { Injectable } from '@nestjs/common';
import { AppException } from '../../common/app.exception';
import type { EntityManager } from 'typeorm';
import { StepRows, withPgStepRows } from './step-rows';
import {
  insertAtVersion,
  writeVersionedBatch,
  type AtVersionInsert,
  type ColumnTypes,
  type VersionedWrite,
  type Written,
} from './versioned-write';
import type { AgentRow, ConversationRow } from './views';

/** What a conversation's creator gives (MachineHostService.createConversation). */
export interface NewConversation {
  id: string;
  tenantId: string;
  channel: string;
  entryLineId: string;
  customerName: string;
  customerEmail: string | null;
  visitorId: string | null;
}

/** A conversation's first row: what its creator gave and its machine's first snapshot (planCreate). */
export interface NewConversationRow extends NewConversation {
  status: string;
  snapshotJson: string;
  lastEvent: string;
  at: Date;
}

/** An agent's first presence row (logged out), from its machine's first snapshot (planCreate). */
export interface NewAgentRow {
  userId: string;
  tenantId: string;
  status: string;
  capacity: number;
  snapshotJson: string;
  lastEvent: string;
  stateSince: Date;
}

/** The waits a queue timeout is armed from: the line's own and the tenant's "max queue wait" (seconds). */
export interface QueueWaitRow {
  line: number | null;
  tenant: number | null;
}

/**
 * The machine host's tables (conversations, agent_presence) and what it writes with their steps
 * (transition_log, outbox). Every method runs on the manager it is given: a transaction's, or the
 * data source's for the writes made alone. Reads answer undefined for a row that is not there;
 * who may see it (the tenant) is the host's check. PgMachineRows is the real one, FakeMachineRows
 * (machine-rows.fake.ts) the in-memory one the host's unit specs run on.
 */
export abstract class MachineRows extends StepRows {
  /** The conversation, locked FOR NO KEY UPDATE by the manager's transaction. */
  abstract lockConversation(manager: EntityManager, id: string): Promise<ConversationRow | undefined>;
  /** The conversation as committed, without a lock. */
  abstract readConversation(manager: EntityManager, id: string): Promise<ConversationRow | undefined>;
  /** The conversations Active with the agent, locked in id order (the lock order: conversations before agents). */
  abstract lockHeldConversations(manager: EntityManager, agentId: string): Promise<ConversationRow[]>;
  /** The agent's presence row with the user's name, locked FOR NO KEY UPDATE. */
  abstract lockAgent(manager: EntityManager, userId: string): Promise<AgentRow | undefined>;
  /** The agent's presence row with the user's name, without a lock. */
  abstract readAgent(manager: EntityManager, userId: string): Promise<AgentRow | undefined>;
  /** Several agents' rows (of the tenant, when given), locked in user-id order. */
  abstract lockAgents(manager: EntityManager, userIds: string[], tenantId: string | null): Promise<AgentRow[]>;
  abstract insertConversation(manager: EntityManager, row: NewConversationRow): Promise<ConversationRow>;
  /** Inserts the row unless the agent has one; answers whether it did. */
  abstract insertAgent(manager: EntityManager, row: NewAgentRow): Promise<boolean>;
  /** Several rows' steps in one statement, each version-checked on its own (see writeVersionedBatch). */
  abstract writeVersionedBatch<TRow>(
    manager: EntityManager,
    writes: VersionedWrite[],
    types: ColumnTypes,
  ): Promise<(Written<TRow> | null)[]>;
  /** A row that belongs to the machine's row at a version, with its outbox rows (see insertAtVersion). */
  abstract insertAtVersion<TRow>(manager: EntityManager, write: AtVersionInsert): Promise<Written<TRow> | null>;
  /** The waits a queue timeout on the line is armed from (the policy read before a step's effects). */
  abstract readQueueWait(manager: EntityManager, attentionLineId: string, tenantId: string): Promise<QueueWaitRow>;
}

/** The row, or the not_found every lookup answers for a row that is missing or belongs to another tenant. */
export function ofTenant<TRow extends { tenant_id: string }>(row: TRow | undefined, tenantId?: string): TRow {
  if (!row || (tenantId !== undefined && row.tenant_id !== tenantId)) throw AppException.notFound();
  return row;
}

const AGENT_WITH_NAME = `SELECT p.*, u.name FROM agent_presence p JOIN users u ON u.id = p.user_id`;

/** The machine host's tables in PostgreSQL. */
@Injectable()
export class PgMachineRows extends withPgStepRows(MachineRows) {
  async lockConversation(manager: EntityManager, id: string): Promise<ConversationRow | undefined> {
    const [row] = (await manager.query(`SELECT * FROM conversations WHERE id = $1 FOR NO KEY UPDATE`, [id])) as ConversationRow[];
    return row;
  }

  async readConversation(manager: EntityManager, id: string): Promise<ConversationRow | undefined> {
    const [row] = (await manager.query(`SELECT * FROM conversations WHERE id = $1`, [id])) as ConversationRow[];
    return row;
  }

  async lockHeldConversations(manager: EntityManager, agentId: string): Promise<ConversationRow[]> {
    return (await manager.query(`SELECT * FROM conversations WHERE agent_id = $1 AND status = 'Active' ORDER BY id FOR NO KEY UPDATE`, [
      agentId,
    ])) as ConversationRow[];
  }

  async lockAgent(manager: EntityManager, userId: string): Promise<AgentRow | undefined> {
    const [row] = (await manager.query(`${AGENT_WITH_NAME} WHERE p.user_id = $1 FOR NO KEY UPDATE OF p`, [userId])) as AgentRow[];
    return row;
  }

  async readAgent(manager: EntityManager, userId: string): Promise<AgentRow | undefined> {
    const [row] = (await manager.query(`${AGENT_WITH_NAME} WHERE p.user_id = $1`, [userId])) as AgentRow[];
    return row;
  }

  async lockAgents(manager: EntityManager, userIds: string[], tenantId: string | null): Promise<AgentRow[]> {
    return (await manager.query(
      `${AGENT_WITH_NAME}
       WHERE p.user_id = ANY($1::uuid[]) AND ($2::uuid IS NULL OR p.tenant_id = $2)
       ORDER BY p.user_id FOR NO KEY UPDATE OF p`,
      [userIds, tenantId],
    )) as AgentRow[];
  }

  async insertConversation(manager: EntityManager, row: NewConversationRow): Promise<ConversationRow> {
    const [inserted] = (await manager.query(
      `INSERT INTO conversations (id, tenant_id, channel, entry_line_id, status, customer_name, customer_email, visitor_id, snapshot, version, last_event, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 1, $10, $11, $11) RETURNING *`,
      [
        row.id,
        row.tenantId,
        row.channel,
        row.entryLineId,
        row.status,
        row.customerName,
        row.customerEmail,
        row.visitorId,
        row.snapshotJson,
        row.lastEvent,
        row.at,
      ],
    )) as ConversationRow[];
    return inserted;
  }

  async insertAgent(manager: EntityManager, row: NewAgentRow): Promise<boolean> {
    const inserted = (await manager.query(
      `INSERT INTO agent_presence (user_id, tenant_id, status, capacity, active_count, snapshot, version, last_event, state_since)
       VALUES ($1, $2, $3, $4, 0, $5, 1, $6, $7) ON CONFLICT (user_id) DO NOTHING RETURNING user_id`,
      [row.userId, row.tenantId, row.status, row.capacity, row.snapshotJson, row.lastEvent, row.stateSince],
    )) as { user_id: string }[];
    return inserted.length > 0;
  }

  writeVersionedBatch<TRow>(manager: EntityManager, writes: VersionedWrite[], types: ColumnTypes): Promise<(Written<TRow> | null)[]> {
    return writeVersionedBatch<TRow>(manager, writes, types);
  }

  insertAtVersion<TRow>(manager: EntityManager, write: AtVersionInsert): Promise<Written<TRow> | null> {
    return insertAtVersion<TRow>(manager, write);
  }

  async readQueueWait(manager: EntityManager, attentionLineId: string, tenantId: string): Promise<QueueWaitRow> {
    const [wait] = (await manager.query(
      `SELECT (SELECT queue_timeout_seconds FROM attention_line_routing WHERE attention_line_id = $1) AS line,
              (SELECT (settings->>'maxQueueWaitSeconds')::int FROM platform_settings WHERE client_id = $2) AS tenant`,
      [attentionLineId, tenantId],
    )) as QueueWaitRow[];
    return wait;
  }
}
