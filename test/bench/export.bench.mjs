// R1: a report of 100,000 conversations (with their 300,000 transition-log rows) exported to CSV
// through the worker's code path (keyset batches → KPI library → streamed file), in a child
// process whose RSS is sampled. Baselines measured in the same run: a plain `COPY (the same join)
// TO STDOUT` by psql for throughput, and the same report read into memory in one go for memory.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEMO_CLIENT_ID, here, pool, runChild } from './realtime-fixtures.mjs';

const FROM = '2025-03-01T00:00:00.000Z';
const TO = '2025-03-02T00:00:00.000Z';
const MB = 1024 * 1024;
const HEAP_CAP_MB = 64;

async function seed(db, count) {
  const [{ id: line }] = (
    await db.query(
      `INSERT INTO attention_lines (client_id, name, type, channel) VALUES ($1, 'R1 bench line', 'inbound', 'WebChat') RETURNING id`,
      [DEMO_CLIENT_ID],
    )
  ).rows;
  const [{ id: agent }] = (await db.query(`SELECT id FROM users WHERE client_id = $1 ORDER BY email LIMIT 1`, [DEMO_CLIENT_ID])).rows;
  // Spread over the day; each conversation waits 0-59 s, is handled 60-359 s and closes.
  await db.query(
    `INSERT INTO conversations (id, tenant_id, channel, entry_line_id, attention_line_id, agent_id, status, customer_name, snapshot, version,
       last_event, created_at, closed_at)
     SELECT gen_random_uuid(), $1, 'webchat', $2, $2, $3, 'Closed', 'Customer ' || g, '{}'::jsonb, 3, 'conversation.closed',
            $4::timestamptz + g * interval '800 ms', $4::timestamptz + g * interval '800 ms' + (g % 60 + 60 + g % 300) * interval '1 s'
       FROM generate_series(1, $5) AS g`,
    [DEMO_CLIENT_ID, line, agent, FROM, count],
  );
  await db.query(
    `INSERT INTO transition_log (tenant_id, entity_type, entity_id, from_state, to_state, event, actor_kind, actor_id, at, at_ms, version)
     SELECT c.tenant_id, 'conversation', c.id, s.from_state, s.to_state, s.event, 'system', NULL, s.at, (extract(epoch FROM s.at) * 1000)::bigint, s.version
       FROM conversations c
       CROSS JOIN LATERAL (VALUES
         (NULL, 'LiningUp', 'conversation.created', c.created_at, 1),
         ('LiningUp', 'Active', 'conversation.assigned', c.created_at + (extract(epoch FROM c.closed_at - c.created_at)::int % 60) * interval '1 s', 2),
         ('Active', 'Closed', 'conversation.closed', c.closed_at, 3)
       ) AS s(from_state, to_state, event, at, version)
      WHERE c.tenant_id = $1 AND c.created_at >= $2 AND c.created_at < $3`,
    [DEMO_CLIENT_ID, FROM, TO],
  );
  await db.query('ANALYZE conversations; ANALYZE transition_log');
}

function copyBaseline(databaseUrl) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'centralita-bench-copy-'));
  const file = path.join(dir, 'copy.csv');
  const sql = `\\copy (SELECT c.id, c.created_at, c.channel, al.name, u.name, c.customer_name, c.status, c.closed_at,
      (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id) FROM conversations c
      LEFT JOIN attention_lines al ON al.id = c.attention_line_id LEFT JOIN users u ON u.id = c.agent_id
      WHERE c.tenant_id = '${DEMO_CLIENT_ID}' AND c.created_at >= '${FROM}' AND c.created_at < '${TO}' ORDER BY c.created_at, c.id) TO '${file}' WITH CSV HEADER`;
  const started = process.hrtime.bigint();
  const result = spawnSync('psql', [databaseUrl, '-v', 'ON_ERROR_STOP=1', '-c', sql.replace(/\s+/g, ' ')], { encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`psql \\copy failed: ${result.stderr}`);
  const bytes = statSync(file).size;
  rmSync(dir, { recursive: true, force: true });
  return { ms, bytes };
}

export default {
  id: 'R1',
  title: 'Report export of 100,000 conversations to CSV (worker code path) vs COPY TO STDOUT of the same rows',
  goal: { ratio: 0.1, direction: 'min' },
  async run({ quick, databaseUrl }) {
    const count = quick ? 20_000 : 100_000;
    const db = pool(databaseUrl, 2);
    try {
      await seed(db, count);
      const filters = { from: FROM, to: TO };
      const [{ id: exportId }] = (
        await db.query(
          `INSERT INTO report_exports (tenant_id, user_id, report_type, format, filters, file_name)
           VALUES ($1, gen_random_uuid(), 'conversations', 'csv', $2::jsonb, 'bench.csv') RETURNING id`,
          [DEMO_CLIENT_ID, JSON.stringify(filters)],
        )
      ).rows;
      const copy = copyBaseline(databaseUrl);
      const child = path.join(here, 'servers/report-export.cjs');
      // The export runs with V8's old space capped far below what the whole report needs: it can only finish if it streams.
      const exported = await runChild(
        child,
        { DATABASE_URL: databaseUrl, BENCH_EXPORT_ID: exportId },
        { timeoutMs: 600_000, execArgv: [`--max-old-space-size=${HEAP_CAP_MB}`] },
      );
      if (exported.error) throw new Error(exported.error);
      if (exported.rows !== count) throw new Error(`exported ${exported.rows} rows, expected ${count}`);
      const loaded = await runChild(
        child,
        {
          DATABASE_URL: databaseUrl,
          BENCH_MODE: 'load-all',
          BENCH_TENANT: DEMO_CLIENT_ID,
          BENCH_FILTERS: JSON.stringify(filters),
          BENCH_ROWS: String(count),
        },
        { timeoutMs: 600_000 },
      );
      const exportRate = exported.rows / (exported.ms / 1000);
      const copyRate = count / (copy.ms / 1000);
      const growth = (exported.rssPeak - exported.rssStart) / MB;
      const allInMemory = (loaded.rssPeak - loaded.rssStart) / MB;
      return {
        value: exportRate,
        baseline: copyRate,
        ratio: exportRate / copyRate,
        unit: 'rows/s',
        // Bounded memory: the streamed export's peak RSS growth stays far below holding the report in memory.
        withinCap: growth < allInMemory / 4,
        detail:
          `${count.toLocaleString('en')} conversations (${(3 * count).toLocaleString('en')} log rows) → ${(exported.bytes / MB).toFixed(1)} MB CSV in ` +
          `${(exported.ms / 1000).toFixed(1)} s vs psql \\copy of the same join ${(copy.bytes / MB).toFixed(1)} MB in ${(copy.ms / 1000).toFixed(2)} s; ` +
          `worker (old space capped at ${HEAP_CAP_MB} MB) peak RSS growth ${growth.toFixed(0)} MB vs ${allInMemory.toFixed(0)} MB to hold the same report in memory ` +
          `(${((100 * growth) / allInMemory).toFixed(0)}%; cap 25%)`,
      };
    } finally {
      await db.end();
    }
  },
};
