import type { StartChatResult } from '@centralita/contracts';
import type { DataSource } from 'typeorm';
import { data } from '../support/realtime';
import { bearer, type TestApp } from '../support/test-app';

/** A web-chat customer through the public API: started, then queued on the line by their menu choice. */
export async function queueCustomer(t: TestApp, attentionLineId: string, name: string): Promise<string> {
  const started = data<StartChatResult>(await t.http().post('/api/webchat/conversations').send({ attentionLineId, name }));
  await t
    .http()
    .post('/api/webchat/conversation/menu')
    .set(bearer(started.visitorToken))
    .send({ queryTypeId: 'q', submenuId: 's' })
    .expect(200);
  return started.conversation.id;
}

export interface LogRow {
  entity_type: 'conversation' | 'agent';
  entity_id: string;
  from_state: string | null;
  to_state: string;
  event: string;
  at_ms: string;
  version: number;
  data: { agentId?: string | null; conversationId?: string; conversationIds?: string[] } | null;
}

export async function tenantLog(dataSource: DataSource, tenantId: string): Promise<LogRow[]> {
  return (await dataSource.query(
    `SELECT entity_type, entity_id, from_state, to_state, event, at_ms, version, data FROM transition_log
     WHERE tenant_id = $1 ORDER BY entity_type, entity_id, version`,
    [tenantId],
  )) as LogRow[];
}

/** Each entity's log is versions 1…n with every `from` the previous `to`, and n is the row's version. */
export async function expectGaplessLogs(dataSource: DataSource, tenantId: string): Promise<void> {
  const log = await tenantLog(dataSource, tenantId);
  const rows = (await dataSource.query(
    `SELECT 'conversation' AS entity_type, id::text AS entity_id, version FROM conversations WHERE tenant_id = $1
     UNION ALL SELECT 'agent', user_id::text, version FROM agent_presence WHERE tenant_id = $1`,
    [tenantId],
  )) as { entity_type: string; entity_id: string; version: number }[];
  const byEntity = new Map<string, LogRow[]>();
  for (const row of log) {
    const key = `${row.entity_type}:${row.entity_id}`;
    byEntity.set(key, [...(byEntity.get(key) ?? []), row]);
  }
  for (const row of rows) {
    const entries = byEntity.get(`${row.entity_type}:${row.entity_id}`) ?? [];
    expect(entries.map((entry) => entry.version)).toEqual(entries.map((_, index) => index + 1));
    expect(entries.length).toBe(row.version);
    for (let i = 1; i < entries.length; i++) expect(entries[i].from_state).toBe(entries[i - 1].to_state);
  }
}

/**
 * The most conversations each agent held Active at once, replayed from the conversations' log: a
 * conversation is with an agent from the row that makes it Active with them to the row that makes
 * it leave them (half-open: at equal times a release counts before an assignment).
 */
export function mostHeldAtOnce(log: LogRow[]): Map<string, number> {
  const changes: { agentId: string; at: number; delta: 1 | -1 }[] = [];
  const holders = new Map<string, string | null>();
  for (const row of log) {
    if (row.entity_type !== 'conversation') continue;
    const before = holders.get(row.entity_id) ?? null;
    const after = row.to_state === 'Active' ? (row.data?.agentId ?? null) : null;
    if (before === after) continue;
    const at = Number(row.at_ms);
    if (before) changes.push({ agentId: before, at, delta: -1 });
    if (after) changes.push({ agentId: after, at, delta: 1 });
    holders.set(row.entity_id, after);
  }
  changes.sort((x, y) => x.at - y.at || x.delta - y.delta);
  const held = new Map<string, number>();
  const most = new Map<string, number>();
  for (const change of changes) {
    const now = (held.get(change.agentId) ?? 0) + change.delta;
    held.set(change.agentId, now);
    most.set(change.agentId, Math.max(most.get(change.agentId) ?? 0, now));
  }
  return most;
}

/** Every Active conversation is held by its agent's presence, and by nobody else; every held one is Active with that agent. */
export async function expectHoldingsAgree(dataSource: DataSource, tenantId: string): Promise<void> {
  const presence = (await dataSource.query(`SELECT user_id, capacity, snapshot FROM agent_presence WHERE tenant_id = $1`, [tenantId])) as {
    user_id: string;
    capacity: number;
    snapshot: { context: { activeConversationIds: string[] } };
  }[];
  const active = (await dataSource.query(`SELECT id, agent_id FROM conversations WHERE tenant_id = $1 AND status = 'Active'`, [
    tenantId,
  ])) as { id: string; agent_id: string }[];
  const held = new Map<string, string[]>();
  for (const agent of presence) {
    expect(agent.snapshot.context.activeConversationIds.length).toBeLessThanOrEqual(agent.capacity);
    for (const id of agent.snapshot.context.activeConversationIds) held.set(id, [...(held.get(id) ?? []), agent.user_id]);
  }
  for (const conversation of active) expect(held.get(conversation.id)).toEqual([conversation.agent_id]);
  expect([...held.keys()].sort()).toEqual(active.map((conversation) => conversation.id).sort());
}
