import {
  ASSIGNABLE_AGENT_STATUSES,
  READY_AGENT_STATUSES,
  sqlStatusList,
  type ConversationContext,
  type RoutingPolicy,
} from '@centralita/domain';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { AgentRow, ConversationRow } from '../machine-host/views';

/** Presence statuses ready for conversations, and those the presence machine may be assigned one in (with inCall), as SQL lists. */
const READY_SQL = sqlStatusList(READY_AGENT_STATUSES);
const ASSIGNABLE_SQL = sqlStatusList(ASSIGNABLE_AGENT_STATUSES);

/**
 * Each policy's order of the candidates (selectAgent's comparisons, in SQL), so a round locks only
 * the agents it will give its heads to. Occupancy as a float: with capacities of 1 to 5, equal ratios
 * divide to the same float and different ones stay apart, as the cross-multiplied comparison sees them.
 */
const IDLE_SINCE_SQL = `(p.snapshot->'context'->>'idleSince')::bigint`;
const OCCUPANCY_SQL = `p.active_count::float8 / p.capacity`;
const POLICY_ORDER_SQL: Record<RoutingPolicy, string> = {
  'longest-idle': `${IDLE_SINCE_SQL}, ${OCCUPANCY_SQL}, p.user_id`,
  'least-occupied': `${OCCUPANCY_SQL}, ${IDLE_SINCE_SQL}, p.user_id`,
};

/** What routeAgent needs of an agent: its tenant and campaign, and each of its lines with whether anyone waits there. */
export interface AgentLines {
  tenant_id: string | null;
  campaign_id: string | null;
  attention_line_id: string | null;
  waiting: boolean;
}

/** What a 'requeue' job needs of a conversation to put it back on its line. */
export interface RequeueRow {
  attention_line_id: string | null;
  agent_id: string | null;
  status: string;
  snapshot: { context: ConversationContext };
}

/** The line's attention_line_routing row (absent: the line takes the defaults). */
export interface LineRoutingRow {
  routing_policy: RoutingPolicy;
  chats_during_call: number;
  offer_calls_with_chats: boolean;
}

/** Which of a line's agents with room a round's candidates are. */
export interface CandidateFilter {
  attentionLineId: string;
  /** Agents on an inbound call too (the line allows chats during calls), not only the ready ones. */
  withInCall: boolean;
  policy: RoutingPolicy;
}

/**
 * One page of candidates. `skipLocked`: the next `limit` (null: all) in the policy's order, after
 * `lockedAlready`, skipping rows another transaction holds. Otherwise all of them, waiting for any
 * holder, in user-id order (the host's lock order).
 */
export type CandidatePage = { skipLocked: true; lockedAlready: string[]; limit: number | null } | { skipLocked: false };

/** What an agent holds, by kind: conversations of a call channel and the others. */
export interface HeldLoad {
  agent_id: string;
  calls: number;
  chats: number;
}

/**
 * The statements of routing (the sweep, routeAgent's lookup, requeue jobs and a routing round's
 * locks and reads). Every method runs on the manager it is given: a routing transaction's, or the
 * data source's for reads made alone. Rows of conversations and agents are the machine host's
 * (MachineRows); these are the queries routing adds over the same tables. PgRoutingRows is the real
 * one, FakeRoutingRows (routing-rows.fake.ts) the in-memory one RoutingService's unit spec runs on.
 */
export abstract class RoutingRows {
  /** Lines with at least one conversation waiting (what the sweep routes). */
  abstract waitingLines(manager: EntityManager): Promise<string[]>;
  /** Each agent's rows (at least one, with nulls for an unknown agent), in the order asked. */
  abstract agentLines(manager: EntityManager, agentIds: string[]): Promise<AgentLines[][]>;
  /** What a requeue job reads of the conversation, undefined when it is gone. */
  abstract readForRequeue(manager: EntityManager, conversationId: string): Promise<RequeueRow | undefined>;
  /** The line's advisory lock (`route:<line>`), held until the transaction ends: one router per line across processes. */
  abstract lockLine(manager: EntityManager, attentionLineId: string): Promise<void>;
  /**
   * The first `limit` waiting conversations of the line in queue order (priority, then waiting
   * time, then id), channels in `withheld` left out, locked FOR NO KEY UPDATE in id order (the lock order)
   * and answered in id order. One that left the queue before its lock was granted is not returned.
   */
  abstract lockHeads(manager: EntityManager, attentionLineId: string, limit: number, withheld: string[]): Promise<ConversationRow[]>;
  /** The line's routing row, undefined when it has none. */
  abstract lineRouting(manager: EntityManager, attentionLineId: string): Promise<LineRoutingRow | undefined>;
  /** Agents of the line with room (and the user's name), locked FOR NO KEY UPDATE OF the presence row, as `page` says. */
  abstract lockCandidates(manager: EntityManager, filter: CandidateFilter, page: CandidatePage): Promise<AgentRow[]>;
  /** What each of the agents holds Active, calls being the conversations of `callChannels`; agents holding nothing are left out. */
  abstract heldLoads(manager: EntityManager, agentIds: string[], callChannels: string[]): Promise<HeldLoad[]>;
  /** Whether an agent of the line with room, not in `lockedAlready`, exists as last committed (read without locking). */
  abstract roomBeyond(manager: EntityManager, filter: Omit<CandidateFilter, 'policy'>, lockedAlready: string[]): Promise<boolean>;
}

/** Routing's statements in PostgreSQL. */
@Injectable()
export class PgRoutingRows extends RoutingRows {
  async waitingLines(manager: EntityManager): Promise<string[]> {
    const lines: { attention_line_id: string }[] = await manager.query(
      `SELECT DISTINCT attention_line_id FROM conversations WHERE status = 'LiningUp' AND attention_line_id IS NOT NULL`,
    );
    return lines.map((line) => line.attention_line_id);
  }

  async agentLines(manager: EntityManager, agentIds: string[]): Promise<AgentLines[][]> {
    const rows: (AgentLines & { asked: number })[] = await manager.query(
      `SELECT me.asked, p.tenant_id, p.campaign_id, a.attention_line_id,
         EXISTS (SELECT 1 FROM conversations c WHERE c.attention_line_id = a.attention_line_id AND c.status = 'LiningUp') AS waiting
       FROM unnest($1::uuid[]) WITH ORDINALITY AS me(user_id, asked)
       LEFT JOIN agent_presence p ON p.user_id = me.user_id
       LEFT JOIN agent_attention_lines a ON a.user_id = me.user_id`,
      [agentIds],
    );
    const byAgent: AgentLines[][] = agentIds.map(() => []);
    for (const { asked, ...row } of rows) byAgent[Number(asked) - 1].push(row);
    return byAgent;
  }

  async readForRequeue(manager: EntityManager, conversationId: string): Promise<RequeueRow | undefined> {
    const [row] = (await manager.query(`SELECT attention_line_id, agent_id, status, snapshot FROM conversations WHERE id = $1`, [
      conversationId,
    ])) as RequeueRow[];
    return row;
  }

  async lockLine(manager: EntityManager, attentionLineId: string): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext('route:' || $1))`, [attentionLineId]);
  }

  async lockHeads(manager: EntityManager, attentionLineId: string, limit: number, withheld: string[]): Promise<ConversationRow[]> {
    return (await manager.query(
      `SELECT * FROM conversations
             WHERE id = ANY(ARRAY(SELECT id FROM conversations WHERE attention_line_id = $1 AND status = 'LiningUp'
                                    AND channel <> ALL($3::text[])
                                  ORDER BY priority DESC, queued_at, id LIMIT $2))
               AND attention_line_id = $1 AND status = 'LiningUp'
             ORDER BY id FOR NO KEY UPDATE`,
      [attentionLineId, limit, withheld],
    )) as ConversationRow[];
  }

  async lineRouting(manager: EntityManager, attentionLineId: string): Promise<LineRoutingRow | undefined> {
    const [row] = (await manager.query(
      `SELECT routing_policy, chats_during_call, offer_calls_with_chats FROM attention_line_routing WHERE attention_line_id = $1`,
      [attentionLineId],
    )) as LineRoutingRow[];
    return row;
  }

  async lockCandidates(manager: EntityManager, filter: CandidateFilter, page: CandidatePage): Promise<AgentRow[]> {
    const statuses = filter.withInCall ? ASSIGNABLE_SQL : READY_SQL;
    return (await manager.query(
      page.skipLocked
        ? `SELECT p.*, u.name FROM agent_presence p JOIN agent_attention_lines a ON a.user_id = p.user_id JOIN users u ON u.id = p.user_id
           WHERE a.attention_line_id = $1 AND p.status IN ${statuses} AND p.active_count < p.capacity AND p.user_id <> ALL($2::uuid[])
           ORDER BY ${POLICY_ORDER_SQL[filter.policy]} LIMIT $3 FOR NO KEY UPDATE OF p SKIP LOCKED`
        : `SELECT p.*, u.name FROM agent_presence p JOIN agent_attention_lines a ON a.user_id = p.user_id JOIN users u ON u.id = p.user_id
           WHERE a.attention_line_id = $1 AND p.status IN ${statuses} AND p.active_count < p.capacity
           ORDER BY p.user_id FOR NO KEY UPDATE OF p`,
      page.skipLocked ? [filter.attentionLineId, page.lockedAlready, page.limit] : [filter.attentionLineId],
    )) as AgentRow[];
  }

  async heldLoads(manager: EntityManager, agentIds: string[], callChannels: string[]): Promise<HeldLoad[]> {
    return (await manager.query(
      `SELECT agent_id, count(*) FILTER (WHERE channel = ANY($2::text[]))::int AS calls,
               count(*) FILTER (WHERE channel <> ALL($2::text[]))::int AS chats
             FROM conversations WHERE agent_id = ANY($1::uuid[]) AND status = 'Active' GROUP BY agent_id`,
      [agentIds, callChannels],
    )) as HeldLoad[];
  }

  async roomBeyond(manager: EntityManager, filter: Omit<CandidateFilter, 'policy'>, lockedAlready: string[]): Promise<boolean> {
    const statuses = filter.withInCall ? ASSIGNABLE_SQL : READY_SQL;
    const [row] = (await manager.query(
      `SELECT EXISTS (SELECT 1 FROM agent_presence p JOIN agent_attention_lines a ON a.user_id = p.user_id
         WHERE a.attention_line_id = $1 AND p.status IN ${statuses} AND p.active_count < p.capacity AND p.user_id <> ALL($2::uuid[])) AS skipped`,
      [filter.attentionLineId, lockedAlready],
    )) as { skipped: boolean }[];
    return row.skipped;
  }
}
