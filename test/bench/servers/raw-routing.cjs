// P1's raw routing pipeline: bare node:http + pg doing the durable work of routing one web-chat
// conversation, nothing else. POST /menu {conversationId, version}:
//   1. one statement: the versioned UPDATE of the conversation to LiningUp on its entry line + its
//      transition_log row;
//   2. one assignment transaction (a single statement): the oldest waiting conversation of the line
//      and an agent with room, both `FOR UPDATE SKIP LOCKED LIMIT 1`, updated (conversation Active
//      with the agent, agent's active_count + 1, both versions + 1) + their two transition_log rows.
// A round that found nothing because every candidate was locked by a concurrent round is tried
// again while the line still has someone waiting (the product's routing re-runs likewise), so every
// conversation ends Active. Answers {"data": {assigned}}; prints {"port": N} when listening.
const { rawPool, serveJson } = require('./raw-common.cjs');

const db = rawPool(Number(process.env.BENCH_POOL || 10));
const READY = JSON.parse(process.env.BENCH_READY_STATUSES || '["available","busy"]');

const MENU = `
  WITH c AS (
    UPDATE conversations SET status = 'LiningUp', attention_line_id = entry_line_id, queued_at = now(),
      version = version + 1, last_event = 'conversation.menuCompleted', updated_at = now(),
      snapshot = jsonb_set(snapshot, '{value}', '"LiningUp"')
    WHERE id = $1 AND version = $2
    RETURNING id, tenant_id, attention_line_id, version)
  INSERT INTO transition_log (tenant_id, entity_type, entity_id, from_state, to_state, event, actor_kind, actor_id, at, at_ms, version)
  SELECT tenant_id, 'conversation', id, 'Menu', 'LiningUp', 'conversation.menuCompleted', 'customer', NULL, now(),
    (extract(epoch FROM now()) * 1000)::bigint, version FROM c
  RETURNING (SELECT attention_line_id FROM c) AS line_id`;

const ASSIGN = `
  WITH conv AS (
    SELECT id FROM conversations WHERE attention_line_id = $1 AND status = 'LiningUp'
    ORDER BY priority DESC, queued_at, id LIMIT 1 FOR UPDATE SKIP LOCKED),
  agent AS (
    SELECT p.user_id FROM agent_presence p JOIN agent_attention_lines a ON a.user_id = p.user_id
    WHERE a.attention_line_id = $1 AND p.status = ANY($2::text[]) AND p.active_count < p.capacity
    ORDER BY p.active_count, p.user_id LIMIT 1 FOR UPDATE OF p SKIP LOCKED),
  uc AS (
    UPDATE conversations c SET status = 'Active', agent_id = agent.user_id, version = c.version + 1,
      last_event = 'conversation.assigned', updated_at = now(),
      snapshot = jsonb_set(jsonb_set(c.snapshot, '{value}', '"Active"'), '{context,assignedAt}', to_jsonb((extract(epoch FROM now()) * 1000)::bigint))
    FROM conv, agent WHERE c.id = conv.id
    RETURNING c.id, c.tenant_id, c.version),
  ua AS (
    UPDATE agent_presence p SET active_count = p.active_count + 1, version = p.version + 1,
      last_event = 'agent.conversationAssigned', updated_at = now()
    FROM agent WHERE p.user_id = agent.user_id AND EXISTS (SELECT 1 FROM uc)
    RETURNING p.user_id, p.tenant_id, p.status, p.version)
  INSERT INTO transition_log (tenant_id, entity_type, entity_id, from_state, to_state, event, actor_kind, actor_id, at, at_ms, version)
  SELECT tenant_id, 'conversation', id, 'LiningUp', 'Active', 'conversation.assigned', 'system', NULL, now(),
    (extract(epoch FROM now()) * 1000)::bigint, version FROM uc
  UNION ALL
  SELECT tenant_id, 'agent', user_id, status, status, 'agent.conversationAssigned', 'system', NULL, now(),
    (extract(epoch FROM now()) * 1000)::bigint, version FROM ua`;

async function assign(lineId) {
  for (let attempt = 0; attempt < 100; attempt++) {
    const { rowCount } = await db.query(ASSIGN, [lineId, READY]);
    if (rowCount > 0) return true;
    const { rows } = await db.query(
      `SELECT EXISTS (SELECT 1 FROM conversations WHERE attention_line_id = $1 AND status = 'LiningUp') AS waiting`,
      [lineId],
    );
    if (!rows[0].waiting) return false;
  }
  return false;
}

serveJson(
  async ({ conversationId, version }) => {
    const { rows } = await db.query(MENU, [conversationId, version]);
    if (rows.length === 0) throw new Error(`conversation ${conversationId} is not at version ${version}`);
    return { assigned: await assign(rows[0].line_id) };
  },
  { db },
);
