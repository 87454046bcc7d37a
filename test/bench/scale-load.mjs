// The scale fixture of S1 and S2 (not a benchmark itself: no `.bench.mjs`), written untimed
// straight to PostgreSQL with snapshots produced by the real machines (libs/domain): every agent
// logged in on one of 20 lines holding 5 Active conversations (capacity 5), the other half of the
// conversations LiningUp, plus the supervisors. The load run on it is s1-load.mjs's (customer and
// agent messages 1:1, routing churn, a rate sweep): S1 on one API process and one worker, S2 on two
// of each behind HAProxy and on one of each as its baseline. retireScaleFixture clears a finished
// run's fixture so the next run on the same database starts as it did.
import { randomUUID } from 'node:crypto';
import { DEMO_CLIENT_ID, createLine, createUsers, domain, linkAgents } from './realtime-fixtures.mjs';

export const LINES = 20;
export const CAPACITY = 5;
const SYSTEM = { kind: 'system' };

function stepOk(machine, snapshot, event) {
  const result = domain.step(machine, snapshot, event);
  if (!result.changed) throw new Error(`fixture event ${event.type} refused`);
  return result.snapshot;
}

/** Agents logged in holding `CAPACITY` Active conversations each, plus as many LiningUp ones. */
async function fixture(db, agents, lines) {
  const { agentPresenceMachine, conversationMachine, initial, persist, describeAgentState, describeConversationState } = domain;
  const now = Date.now();
  const presence = [];
  const conversations = [];
  agents.forEach((agent, a) => {
    const lineId = lines[a % lines.length];
    const actor = { kind: 'agent', id: agent.id };
    let snapshot = initial(agentPresenceMachine, {
      agentId: agent.id,
      tenantId: DEMO_CLIENT_ID,
      capacity: CAPACITY,
      pauseReasons: ['break'],
      at: now,
      actor,
    }).snapshot;
    snapshot = stepOk(agentPresenceMachine, snapshot, {
      type: 'agent.loggedIn',
      capacity: CAPACITY,
      pauseReasons: ['break'],
      at: now + 1,
      actor,
    });
    for (let k = 0; k < CAPACITY * 2; k++) {
      const id = randomUUID();
      let conversation = initial(conversationMachine, {
        id,
        tenantId: DEMO_CLIENT_ID,
        channel: 'webchat',
        at: now,
        actor: { kind: 'customer' },
      }).snapshot;
      conversation = stepOk(conversationMachine, conversation, {
        type: 'conversation.menuCompleted',
        queryTypeId: 'q',
        submenuId: 's',
        attentionLineId: lineId,
        pollId: null,
        priority: 0,
        at: now + 2,
        actor: { kind: 'customer' },
      });
      let version = 2;
      if (k < CAPACITY) {
        snapshot = stepOk(agentPresenceMachine, snapshot, {
          type: 'agent.conversationAssigned',
          conversationId: id,
          at: now + 3 + k,
          actor: SYSTEM,
        });
        conversation = stepOk(conversationMachine, conversation, {
          type: 'conversation.assigned',
          agentId: agent.id,
          at: now + 3 + k,
          actor: SYSTEM,
        });
        version = 3;
      }
      const context = conversation.context;
      conversations.push({
        id,
        line: lineId,
        agent: context.agentId,
        status: describeConversationState(conversation),
        queuedAt: context.queuedAt === null ? null : new Date(context.queuedAt).toISOString(),
        snapshot: JSON.stringify(persist(conversationMachine, conversation)),
        version,
        visitor: randomUUID(),
      });
    }
    presence.push({
      id: agent.id,
      status: describeAgentState(snapshot),
      snapshot: JSON.stringify(persist(agentPresenceMachine, snapshot)),
      version: 2 + CAPACITY,
    });
  });
  await db.query(
    `INSERT INTO agent_presence (user_id, tenant_id, status, capacity, active_count, snapshot, version, last_event, state_since)
     SELECT u, $1, s, $2, $2, j::jsonb, v, 'agent.conversationAssigned', now() FROM unnest($3::uuid[], $4::text[], $5::text[], $6::int[]) AS x(u, s, j, v)`,
    [
      DEMO_CLIENT_ID,
      CAPACITY,
      presence.map((p) => p.id),
      presence.map((p) => p.status),
      presence.map((p) => p.snapshot),
      presence.map((p) => p.version),
    ],
  );
  await insertConversations(db, conversations);
  return conversations;
}

/** Writes conversation rows built as `fixture` builds them, in chunks of 2,000. */
async function insertConversations(db, conversations) {
  for (let start = 0; start < conversations.length; start += 2000) {
    const chunk = conversations.slice(start, start + 2000);
    const col = (key) => chunk.map((c) => c[key]);
    await db.query(
      `INSERT INTO conversations (id, tenant_id, channel, entry_line_id, attention_line_id, agent_id, status, priority, queued_at, customer_name, visitor_id, snapshot, version, last_event)
       SELECT id, $1, 'webchat', line, line, agent, status, 0, queued, 'Bench customer', visitor, snap::jsonb, v, 'bench.fixture'
       FROM unnest($2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::timestamptz[], $7::text[], $8::text[], $9::int[]) AS x(id, line, agent, status, queued, visitor, snap, v)`,
      [
        DEMO_CLIENT_ID,
        col('id'),
        col('line'),
        col('agent'),
        col('status'),
        col('queuedAt'),
        col('visitor'),
        col('snapshot'),
        col('version'),
      ],
    );
  }
}

/**
 * `count` more conversations LiningUp on `lines` (round robin), queued now, written as the fixture
 * writes its own: S1's open-conversation slope pads the queues with them. Answers their ids.
 */
export async function insertQueuedConversations(db, lines, count) {
  const { conversationMachine, initial, persist, describeConversationState } = domain;
  const now = Date.now();
  const conversations = [];
  for (let k = 0; k < count; k++) {
    const id = randomUUID();
    const lineId = lines[k % lines.length];
    let conversation = initial(conversationMachine, {
      id,
      tenantId: DEMO_CLIENT_ID,
      channel: 'webchat',
      at: now,
      actor: { kind: 'customer' },
    }).snapshot;
    conversation = stepOk(conversationMachine, conversation, {
      type: 'conversation.menuCompleted',
      queryTypeId: 'q',
      submenuId: 's',
      attentionLineId: lineId,
      pollId: null,
      priority: 0,
      at: now + 1,
      actor: { kind: 'customer' },
    });
    conversations.push({
      id,
      line: lineId,
      agent: null,
      status: describeConversationState(conversation),
      queuedAt: new Date(conversation.context.queuedAt).toISOString(),
      snapshot: JSON.stringify(persist(conversationMachine, conversation)),
      version: 2,
      visitor: randomUUID(),
    });
  }
  await insertConversations(db, conversations);
  return conversations.map((c) => c.id);
}

/**
 * The untimed fixture: `LINES` lines, the agents (2,000, or a tenth with `quick`) spread over them,
 * the supervisors (200 or 20), and their conversations. `tag` names the lines and users ("s1": the
 * names S1 has always used).
 */
export async function scaleFixture(db, { quick, tag }) {
  const fraction = quick ? 0.1 : 1;
  const agentCount = Math.round(2000 * fraction);
  const supervisorCount = Math.round(200 * fraction);
  const lines = [];
  for (let i = 0; i < LINES; i++) lines.push(await createLine(db, `${tag}-${i}`));
  const agents = await createUsers(db, { count: agentCount, role: 'AGENT', tag: `${tag}a` });
  const supervisors = await createUsers(db, { count: supervisorCount, role: 'SUPER', tag: `${tag}s` });
  for (let i = 0; i < LINES; i++)
    await linkAgents(
      db,
      agents.filter((_, a) => a % LINES === i),
      lines[i],
    );
  const conversations = await fixture(db, agents, lines);
  await db.query('ANALYZE'); // planner statistics, as a database in service has them after a bulk load
  const active = conversations.filter((c) => c.status === 'Active');
  return { lines, agents, supervisors, conversations, active, agentCount, supervisorCount };
}

/**
 * Takes a finished run's fixture out of the way of the next one, its processes stopped: every
 * conversation on its lines (the fixture's, the churn's, the slopes'; their messages go with them)
 * and its agents' presence rows. S2 measures two sides on one database; without this the second
 * would carry the first one's open conversations and logged-in agents.
 */
export async function retireScaleFixture(db, fx) {
  await db.query(`DELETE FROM conversations WHERE attention_line_id = ANY($1::uuid[]) OR entry_line_id = ANY($1::uuid[])`, [fx.lines]);
  await db.query(`DELETE FROM agent_presence WHERE user_id = ANY($1::uuid[])`, [fx.agents.map((agent) => agent.id)]);
  await db.query('ANALYZE conversations');
}
