// Child of the R1 benchmark: the worker's export code path (runReportExport from the build, the
// same function the report-export processor calls) or, with BENCH_MODE=load-all, the same report
// read into memory in one go (what an export that does not stream would hold). Prints one JSON
// line: rows, milliseconds, file bytes, and RSS at the start and at its peak (sampled every 10 ms).
const path = require('node:path');
const pg = require('pg');

const root = path.join(__dirname, '../../..');
const { runReportExport } = require(path.join(root, 'apps/worker/dist/reports/report-export.js'));
const { reportPage } = require(path.join(root, 'libs/domain/dist/index.js'));
const { PostgresFileStore } = require(path.join(root, 'libs/contracts/dist/server/index.js'));

async function main() {
  const db = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
  db.on('error', () => undefined);
  const run = (text, values) => db.query(text, values).then((result) => result.rows);
  await run('SELECT 1', []);
  global.gc?.();
  const rssStart = process.memoryUsage().rss;
  let rssPeak = rssStart;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 10);
  const started = process.hrtime.bigint();
  let rows = 0;
  let bytes = 0;
  if (process.env.BENCH_MODE === 'load-all') {
    const filters = JSON.parse(process.env.BENCH_FILTERS);
    const page = await reportPage(
      run,
      'conversations',
      { tenantId: process.env.BENCH_TENANT, filters, now: Date.now() },
      { page: 1, pageSize: Number(process.env.BENCH_ROWS), sortField: 'createdAt', sortOrder: 'asc' },
    );
    rows = page.items.length;
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  } else {
    // Into the shared file store (PostgreSQL large objects), as the worker does.
    await runReportExport(run, process.env.BENCH_EXPORT_ID, { store: new PostgresFileStore(run) });
    const [row] = await run('SELECT row_count, byte_size FROM report_exports WHERE id = $1', [process.env.BENCH_EXPORT_ID]);
    rows = row.row_count;
    bytes = Number(row.byte_size);
  }
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  clearInterval(sampler);
  await db.end();
  process.stdout.write(`${JSON.stringify({ rows, ms, bytes, rssStart, rssPeak })}\n`);
}

main().catch((error) => {
  process.stdout.write(`${JSON.stringify({ error: String(error.stack ?? error) })}\n`);
  process.exit(1);
});
