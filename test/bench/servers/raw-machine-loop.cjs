// P6's baseline (QUALITY.md): a raw pg loop writing what the machine host writes for an agent event,
// with plain `pg` — no Nest, no xstate, no relay. Each event is ONE round trip: the statement of
// writeVersioned (apps/api/src/modules/machine-host/versioned-write.ts), the versioned UPDATE of the
// agent_presence row, its transition-log row and its outbox rows as one CTE. What the rows hold is
// what the host wrote for one pause and one resume (BENCH_SAMPLES, from host-loop.cjs), with the
// sampled agent's id (BENCH_SAMPLE_AGENT) replaced by each raw agent's own. The agents
// (BENCH_AGENTS, their agent_presence rows made by the benchmark) alternate pause / resume, one
// event in flight each, for BENCH_SECONDS, on a pool as large as the API's (data-source.ts: max 10).
// Prints one JSON line: {rate, events, seconds}.
const pg = require('pg');

const agents = process.env.BENCH_AGENTS.split(',');
const seconds = Number(process.env.BENCH_SECONDS || 5);
const samples = JSON.parse(process.env.BENCH_SAMPLES);
const sampleAgent = process.env.BENCH_SAMPLE_AGENT;
const API_POOL_MAX = 10;

const STATEMENT = `WITH u AS (
    UPDATE agent_presence SET status = $3, capacity = $4, active_count = $5, snapshot = $6::jsonb, last_event = $7,
      state_since = $8, updated_at = $9, version = version + 1
    WHERE user_id = $1 AND version = $2 RETURNING *
  ), logged AS (
    INSERT INTO transition_log (tenant_id, entity_type, entity_id, from_state, to_state, event, actor_kind, actor_id, at, at_ms, version, data)
    SELECT u.tenant_id, $10, u.user_id, $11, $12, $13, $14, $15, $16, $17, u.version, $18 FROM u
  ), queued AS (
    INSERT INTO outbox (topic, payload)
    SELECT t, p::jsonb FROM u, unnest($19::text[], $20::text[]) WITH ORDINALITY AS e(t, p, n) ORDER BY n
    RETURNING id
  )
  SELECT u.*, ARRAY(SELECT id::text FROM queued ORDER BY id) AS outbox_ids FROM u`;

/** The parameters of one event of `agentId` from `version`: the sampled rows, made the agent's own. */
function paramsFor(sample, agentId, version) {
  const own = (text) => text.split(sampleAgent).join(agentId);
  const now = Date.now();
  const { row, log, outbox } = sample;
  return [
    agentId,
    version,
    row.status,
    row.capacity,
    row.active_count,
    own(JSON.stringify(row.snapshot)),
    row.last_event,
    new Date(now),
    new Date(now),
    log.entity_type,
    log.from_state,
    log.to_state,
    log.event,
    log.actor_kind,
    log.actor_id === sampleAgent ? agentId : log.actor_id,
    new Date(now),
    now,
    log.data === null ? null : own(JSON.stringify(log.data)),
    outbox.map((record) => record.topic),
    outbox.map((record) => own(record.payload)),
  ];
}

async function main() {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: API_POOL_MAX });
  const events = [samples['agent.paused'], samples['agent.resumed']];
  const { rows } = await pool.query(`SELECT user_id, version, status FROM agent_presence WHERE user_id = ANY($1::uuid[])`, [agents]);
  const state = new Map(rows.map((row) => [row.user_id, { version: row.version, next: row.status === 'paused' ? 1 : 0 }]));
  if (state.size !== agents.length) throw new Error(`raw loop: ${agents.length - state.size} agents have no agent_presence row`);
  const run = async (ms) => {
    const end = performance.now() + ms;
    let written = 0;
    await Promise.all(
      agents.map(async (id) => {
        const agent = state.get(id);
        while (performance.now() < end) {
          const result = await pool.query(STATEMENT, paramsFor(events[agent.next], id, agent.version));
          if (result.rows.length !== 1) throw new Error(`raw loop: agent ${id} version ${agent.version} moved`);
          agent.version = result.rows[0].version;
          agent.next = 1 - agent.next;
          written++;
        }
      }),
    );
    return written;
  };
  await run(500);
  const started = performance.now();
  const written = await run(seconds * 1000);
  const elapsed = (performance.now() - started) / 1000;
  await pool.end();
  process.stdout.write(`${JSON.stringify({ rate: written / elapsed, events: written, seconds: elapsed })}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
