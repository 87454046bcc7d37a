// `npm run bench`: every benchmark in test/bench/*.bench.mjs against real PostgreSQL and Redis
// (resolved like `npm start`), each reported as a ratio against a baseline measured in the same
// run, then docs/benchmarks.md and its chart docs/benchmarks.svg are rewritten.
//   npm run bench -- --only P4      one benchmark (or several: --only P2,C1): only their rows of
//                                   docs/benchmarks.md (and their bars) are rewritten, the others kept
//   npm run bench -- --quick        shorter runs (a smoke check, not figures to publish; with --only
//                                   docs/benchmarks.md is left unchanged)
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import * as echarts from 'echarts';
import { buildNode } from './lib/build.mjs';
import { ROOT, ensureDatabase, resolvePostgres, resolveRedis, stopOwned } from './lib/infra.mjs';
import { fail, log, warn } from './lib/log.mjs';
import { serverPriority } from '../test/bench/lib.mjs';
import Redis from 'ioredis';

const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1]?.split(',') : null;
const quick = args.includes('--quick');

function verdict({ ratio }, goal) {
  if (ratio == null) return 'n/a';
  // Figures an issue asks to record but QUALITY.md sets no goal for.
  if (goal == null) return 'recorded';
  return (goal.direction === 'min' ? ratio >= goal.ratio : ratio <= goal.ratio) ? 'meets' : 'misses';
}

function chartSvg(rows) {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 820, height: 360 });
  chart.setOption({
    animation: false,
    title: { text: 'Centralita benchmarks: ratio against the same-run baseline', left: 'center', textStyle: { fontSize: 14 } },
    legend: { top: 28, data: ['measured ratio', 'goal'] },
    grid: { left: 60, right: 30, top: 70, bottom: 40 },
    xAxis: { type: 'category', data: rows.map((row) => row.id) },
    yAxis: { type: 'value', name: '× baseline' },
    series: [
      {
        name: 'measured ratio',
        type: 'bar',
        data: rows.map((row) => Number((row.ratio ?? 0).toFixed(3))),
        label: { show: true, position: 'top' },
      },
      { name: 'goal', type: 'scatter', symbol: 'rect', symbolSize: [40, 3], data: rows.map((row) => row.goal?.ratio ?? null) },
    ],
  });
  const svg = chart.renderToSVGString();
  chart.dispose();
  return svg;
}

/** One benchmark's table row of docs/benchmarks.md. */
const tableRow = (row) =>
  `| ${row.id} | ${row.title} | ${fmt(row.value)} ${row.unit ?? ''} | ${fmt(row.baseline)} ${row.unit ?? ''} | ${row.ratio == null ? 'n/a' : `${row.ratio.toFixed(2)}×`} | ${row.goal == null ? 'none' : `${row.goal.direction === 'min' ? '≥' : '≤'} ${row.goal.ratio}×`} | ${row.verdict} | ${row.detail ?? row.error ?? ''} |`;

/**
 * `--only`: the measured rows replace theirs in docs/benchmarks.md, every other row stays as the
 * last full run wrote it, a new one takes its place in the full run's order (`order`: every
 * benchmark id, as a full run lists them), and a line under "Last run" says which rows were
 * measured alone and when. The chart is redrawn from the table's ratios and goals.
 */
function rewriteRows(markdown, rows, order, machine) {
  const lines = markdown.split('\n');
  const isRow = (line) => /^\| [^-| ][^|]* \|/.test(line) && !line.startsWith('| id |');
  const first = lines.findIndex(isRow);
  if (first < 0) throw new Error('docs/benchmarks.md has no table rows to keep: run the full `npm run bench`');
  let last = first;
  while (last + 1 < lines.length && isRow(lines[last + 1])) last++;
  const kept = new Map(lines.slice(first, last + 1).map((line) => [line.split('|')[1].trim(), line]));
  for (const row of rows) kept.set(row.id, tableRow(row));
  const ids = [...order.filter((id) => kept.has(id)), ...[...kept.keys()].filter((id) => !order.includes(id))];
  const table = ids.map((id) => kept.get(id));
  const note = `Measured alone since (\`npm run bench -- --only\`): `;
  const alone = rows.map((row) => `${row.id} ${new Date().toISOString()} on ${machine}`);
  const noteAt = lines.findIndex((line) => line.startsWith(note));
  const previous =
    noteAt < 0
      ? []
      : lines[noteAt]
          .slice(note.length)
          .replace(/\.$/, '')
          .split('; ')
          .filter((entry) => !rows.some((row) => entry.startsWith(`${row.id} `)));
  const noteLine = `${note}${[...previous, ...alone].join('; ')}.`;
  const out = [...lines.slice(0, first), ...table, ...lines.slice(last + 1)];
  if (noteAt >= 0) out[noteAt] = noteLine;
  else out.splice(out.findIndex((line) => line.startsWith('Last run:')) + 1, 0, noteLine);
  // The chart's bars from the table itself: ratio "0.68×", goal "≥ 0.7×" or "none".
  const chartRows = table.map((line) => {
    const cells = line.split('|').map((cell) => cell.trim());
    const goal = /^([≥≤]) ([\d.]+)×$/.exec(cells[6]);
    return {
      id: cells[1],
      ratio: Number.parseFloat(cells[5]) || null,
      goal: goal ? { ratio: Number(goal[2]), direction: goal[1] === '≥' ? 'min' : 'max' } : null,
    };
  });
  return { markdown: out.join('\n'), chartRows };
}

function report(rows, machine) {
  const lines = [
    '# Benchmarks',
    '',
    'Written by `npm run bench` (scripts/bench.mjs); do not edit by hand. Every figure is a ratio',
    'against a baseline measured in the same run on the same machine (QUALITY.md), with the absolute',
    'numbers for the record. Timed assertions never appear in tests.',
    '',
    `Last run: ${new Date().toISOString()} on ${machine}.${quick ? ' **Quick run (--quick): short samples, indicative only.**' : ''}`,
    priorityNote(),
    '',
    '![ratios against baselines](benchmarks.svg)',
    '',
    '| id | what | measured | baseline | ratio | goal | verdict | how |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(tableRow),
    '',
    'Benchmarks of QUALITY.md not listed above are not implemented yet (see the open issues).',
    '',
  ];
  return lines.join('\n');
}

/** How the load generator and the servers shared the cores (QUALITY.md: say so in the report). */
function priorityNote() {
  const { restored, refused } = serverPriority;
  const servers =
    refused === 0
      ? 'the servers it starts are put back at nice 0, the priority of PostgreSQL and Redis'
      : `${refused} of the ${restored + refused} servers it started could not be put back at nice 0 (it needs root) and ran at nice 10 below PostgreSQL and Redis`;
  return `The bench process (the load generator) runs at nice 10 so it yields the cores to what it measures; ${servers}. Nothing is pinned to a core: all of them share the two cores.`;
}

const fmt = (n) => (n == null ? 'n/a' : n >= 100 ? Math.round(n).toLocaleString('en') : Number(n.toPrecision(3)).toString());

/** Every key the run left under its prefixes (queues, socket streams, rate limits, scenario prefixes). */
async function dropRedisKeys(url, pattern) {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
  } catch (error) {
    warn(`bench Redis keys left behind (${pattern}): ${error.message}`);
  } finally {
    redis.disconnect();
  }
}

async function main() {
  os.setPriority(process.pid, 10);
  buildNode();
  const postgres = await resolvePostgres();
  const redis = await resolveRedis();
  const dbName = `centralita_bench_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const databaseUrl = await ensureDatabase(postgres.url, dbName);
  const env = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    QUEUE_PREFIX: `bench-${dbName}`,
    JWT_SECRET: randomBytes(32).toString('hex'),
    NODE_ENV: 'development',
  };
  const cli = path.join(ROOT, 'apps/api/dist/database/cli.js');
  for (const command of ['migrate', 'seed']) {
    const result = spawnSync(process.execPath, [cli, command], { env: { ...process.env, ...env }, encoding: 'utf8' });
    if (result.status !== 0) fail(`bench database ${command} failed:\n${result.stderr}`);
  }

  const benchDir = path.join(ROOT, 'test/bench');
  const files = readdirSync(benchDir)
    .filter((file) => file.endsWith('.bench.mjs'))
    .sort();
  const rows = [];
  // A file exports one benchmark or several (scenarios of the same measurement).
  const benches = [];
  try {
    for (const file of files) benches.push(...[(await import(path.join(benchDir, file))).default].flat());
    for (const bench of benches) {
      if (only && !only.some((id) => bench.id === id || bench.id.startsWith(`${id}@`))) continue;
      log(`${bench.id}: ${bench.title}...`);
      try {
        // `earlier`: the rows this run measured before (S2 takes S1's as its baseline when it ran).
        const result = await bench.run({ env, quick, databaseUrl, redisUrl: redis.url, earlier: rows });
        const row = { id: bench.id, title: bench.title, goal: bench.goal, ...result };
        // `capMiss` names which absolute cap a run missed when a benchmark has several (C1: answer time, duplicates).
        row.verdict = row.withinCap === false ? `misses (${row.capMiss ?? 'over cap'})` : verdict(row, bench.goal);
        // A miss names what bounds it, as the benchmark measured it (QUALITY.md: measured, not estimated).
        if (row.verdict.startsWith('misses') && row.bound) row.verdict += ` — bound: ${row.bound}`;
        log(`${bench.id}: ${fmt(row.value)} vs ${fmt(row.baseline)} ${row.unit ?? ''} → ${row.ratio?.toFixed(2)}× (${row.verdict})`);
        if (row.detail) log(`${bench.id}: ${row.detail}`);
        rows.push(row);
      } catch (error) {
        warn(`${bench.id} failed: ${error.stack ?? error}`);
        rows.push({
          id: bench.id,
          title: bench.title,
          goal: bench.goal,
          ratio: null,
          verdict: 'failed',
          error: String(error.message ?? error),
        });
      }
    }
  } finally {
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
    await dropRedisKeys(redis.url, `${env.QUEUE_PREFIX}*`);
    await stopOwned();
  }
  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  if (only && quick) {
    log('--only with --quick: docs/benchmarks.md left unchanged');
  } else if (only) {
    const file = path.join(ROOT, 'docs/benchmarks.md');
    const { markdown, chartRows } = rewriteRows(
      readFileSync(file, 'utf8'),
      rows,
      benches.map((bench) => bench.id),
      machine,
    );
    writeFileSync(path.join(ROOT, 'docs/benchmarks.svg'), chartSvg(chartRows));
    writeFileSync(file, markdown);
    log(`--only: rewrote the rows of ${rows.map((row) => row.id).join(', ')} in docs/benchmarks.md, kept the others`);
  } else {
    writeFileSync(path.join(ROOT, 'docs/benchmarks.svg'), chartSvg(rows));
    writeFileSync(path.join(ROOT, 'docs/benchmarks.md'), report(rows, machine));
    log('wrote docs/benchmarks.md and docs/benchmarks.svg');
  }
  if (rows.some((row) => row.verdict === 'failed')) process.exitCode = 1;
}

main().catch(async (error) => {
  warn(error.stack ?? String(error));
  await stopOwned();
  process.exit(1);
});
