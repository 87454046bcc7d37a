// P1: routing, as QUALITY.md poses it: machine CPU (API + PostgreSQL + Redis) per routed
// conversation vs a raw routing pipeline doing the same durable work, same concurrency.
// Product: N web-chat conversations are started (untimed), then each customer completes the menu
// (POST /api/webchat/conversation/menu, 32 in flight): conversation.menuCompleted → LiningUp (one
// transaction), the outbox relay enqueues a routing job, the API's routing worker assigns under the
// line lock (agent.conversationAssigned + conversation.assigned, one transaction) and pushes.
// Raw: servers/raw-routing.cjs (bare node:http + pg), POST /menu → one versioned UPDATE + log row,
// then one assignment statement taking the oldest waiting conversation and an agent with room
// (FOR UPDATE SKIP LOCKED LIMIT 1), both updated + log rows; N other conversations of the same
// kind on their own line and agents, 32 in flight, the API stopped meanwhile.
// CPU per routed conversation = CPU (lib.mjs componentCpuSeconds) from the first menu call until
// every conversation is Active and, for the product, the outbox is drained (its pushes and routing
// jobs are routing work). PostgreSQL is every postgres process of the machine (postmaster, backends,
// background writers), so both sides carry the same idle share. Ratio = product ÷ raw.
// Recorded, not goals: assignments/s of both and of a raw BullMQ add+process of N empty jobs.
// Cap: open loop, 100 menu completions/s (quick 20/s) with 500 (quick 100) conversations already
// waiting on a line without agents; menu call sent → conversation Active (its assignedAt) p99 ≤ 100 ms.
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { componentCpuSeconds, cpuGapBound, describeComponentCpu, startServer } from './lib.mjs';
import {
  accessToken,
  call,
  createCampaign,
  createLine,
  createUsers,
  domain,
  drainOutbox,
  here,
  linkAgents,
  openLoop,
  percentile,
  pooled,
  rawQueue,
  startApi,
  until,
} from './realtime-fixtures.mjs';

const IN_FLIGHT = 32;
const CAPACITY = 5;
const CAP_P99_MS = 100;

const sum = (cpu) => cpu.api + cpu.postgres + cpu.redis;
const cpuDelta = (before, after) => ({
  api: after.api - before.api,
  postgres: after.postgres - before.postgres,
  redis: after.redis - before.redis,
});

export default {
  id: 'P1',
  title: 'Routing: CPU (API + PostgreSQL + Redis) per routed conversation vs a raw routing pipeline (bare HTTP + pg, SKIP LOCKED)',
  goal: { ratio: 1.5, direction: 'max' },
  async run({ env, quick, databaseUrl }) {
    const n = quick ? 300 : 1500;
    const capRate = quick ? 20 : 100;
    const capSeconds = quick ? 5 : 10;
    const capWaiting = quick ? 100 : 500;
    const capCount = capRate * capSeconds;
    // Connections never close as idle (pg's default closes them after 10 s): a backend that exits
    // inside a measured window takes its CPU with it from the /proc reading.
    const db = new pg.Pool({ connectionString: databaseUrl, max: 4, idleTimeoutMillis: 0 });
    db.on('error', () => undefined); // an idle client dropped (the run's DROP DATABASE ... FORCE)
    const campaignId = await createCampaign(db, CAPACITY);
    // Four lines: the product run, the raw run, the cap run, and the cap's waiting line (no agents).
    const [productLine, rawLine, capLine, waitingLine] = [
      await createLine(db, 'p1'),
      await createLine(db, 'p1raw'),
      await createLine(db, 'p1cap'),
      await createLine(db, 'p1wait'),
    ];
    const agentsFor = async (count, lineId, tag) => {
      const users = await createUsers(db, { count: Math.ceil(count / CAPACITY), role: 'AGENT', tag });
      await linkAgents(db, users, lineId);
      return users;
    };
    const productAgents = await agentsFor(n, productLine, 'p1');
    const rawAgents = await agentsFor(n, rawLine, 'p1raw');
    const capAgents = await agentsFor(capCount, capLine, 'p1cap');
    // Routing sweeps only as a safety net; the measured path is the job the menu event enqueues.
    const api = await startApi(env, 'p1', { ROUTING_SWEEP_MS: '60000' });
    const raw = await rawQueue(env, 'p1');
    let rawServer = null;
    let apiStopped = false;
    let rawClosed = false;
    try {
      await pooled([...productAgents, ...rawAgents, ...capAgents], 10, (user) =>
        call(api.url, '/api/agent/presence/login', { token: accessToken(env.JWT_SECRET, user), body: { campaignId } }),
      );
      const start = (lineId, count, tag) =>
        pooled(Array.from({ length: count }), 16, (_, i) =>
          call(api.url, '/api/webchat/conversations', { body: { attentionLineId: lineId, name: `Customer ${tag} ${i}` } }),
        );
      const menu = (chat) =>
        call(api.url, '/api/webchat/conversation/menu', { token: chat.visitorToken, body: { queryTypeId: 'sales', submenuId: 'new' } });
      const chats = await start(productLine, n, 'p1');
      const rawChats = await start(rawLine, n, 'raw');
      const capChats = await start(capLine, capCount, 'cap');
      await pooled(await start(waitingLine, capWaiting, 'wait'), 16, menu);
      const activeOn = async (lineId) =>
        Number(
          (await db.query(`SELECT count(*)::int AS n FROM conversations WHERE attention_line_id = $1 AND status = 'Active'`, [lineId]))
            .rows[0].n,
        );
      await drainOutbox(db, 20_000);

      // Product run.
      const productBefore = componentCpuSeconds({ api: [api.pid] });
      const routedStart = performance.now();
      await pooled(chats, IN_FLIGHT, menu);
      const menusDone = performance.now();
      await until(async () => (await activeOn(productLine)) >= n, 90_000, `${n} conversations assigned`);
      const routedSeconds = (performance.now() - routedStart) / 1000;
      // The relay still owes pushes and routing jobs: they are the routing's own work.
      const drained = await drainOutbox(db, quick ? 15_000 : 45_000);
      const productAfter = componentCpuSeconds({ api: [api.pid] });
      const productCpu = cpuDelta(productBefore, productAfter);
      const productDescribed = describeComponentCpu(productBefore, productAfter, n, 'routed conversation');

      // Cap: open loop of menu completions with conversations already waiting elsewhere.
      const sentAt = new Map();
      const capRun = await openLoop({ rate: capRate, seconds: capSeconds }, (i) => {
        sentAt.set(capChats[i].conversation.id, Date.now());
        return menu(capChats[i]);
      });
      await until(async () => (await activeOn(capLine)) >= capCount - capRun.skipped - capRun.failed, 30_000, 'the cap run assigned');
      const assignedRows = (
        await db.query(
          `SELECT id, (snapshot->'context'->>'assignedAt')::bigint AS assigned_at FROM conversations WHERE attention_line_id = $1 AND status = 'Active'`,
          [capLine],
        )
      ).rows;
      const capLatencies = assignedRows.filter((row) => sentAt.has(row.id)).map((row) => Number(row.assigned_at) - sentAt.get(row.id));
      const capP99 = percentile(capLatencies, 99);
      const stillWaiting = Number(
        (await db.query(`SELECT count(*)::int AS n FROM conversations WHERE attention_line_id = $1 AND status = 'LiningUp'`, [waitingLine]))
          .rows[0].n,
      );
      await drainOutbox(db, 15_000);

      // Raw BullMQ add+process (recorded only): warm up, then N empty jobs, same concurrency.
      await pooled(Array.from({ length: 200 }), IN_FLIGHT, () => raw.add());
      await raw.waitFor(200);
      raw.reset();
      const bullStart = performance.now();
      await pooled(Array.from({ length: n }), IN_FLIGHT, () => raw.add());
      await raw.waitFor(n);
      const bullRate = n / ((performance.now() - bullStart) / 1000);
      await raw.close();
      rawClosed = true;

      // Raw routing run, with the API stopped so that it adds nothing to PostgreSQL or Redis.
      const rawIds = rawChats.map((chat) => chat.conversation.id);
      const versions = new Map(
        (await db.query(`SELECT id, version FROM conversations WHERE id = ANY($1::uuid[])`, [rawIds])).rows.map((row) => [
          row.id,
          row.version,
        ]),
      );
      await api.stop();
      apiStopped = true;
      rawServer = await startServer(path.join(here, 'servers/raw-routing.cjs'), {
        ...env,
        DATABASE_URL: databaseUrl,
        BENCH_READY_STATUSES: JSON.stringify(domain.READY_AGENT_STATUSES),
      });
      // The first IN_FLIGHT raw conversations warm the server's pool and plans; they are not counted.
      const warm = rawIds.slice(0, IN_FLIGHT);
      const timedIds = rawIds.slice(IN_FLIGHT);
      const rawMenu = (id) => call(rawServer.url, '/menu', { body: { conversationId: id, version: versions.get(id) } });
      await pooled(warm, IN_FLIGHT, rawMenu);
      const rawBefore = componentCpuSeconds({ api: [rawServer.pid] });
      const rawStart = performance.now();
      await pooled(timedIds, IN_FLIGHT, rawMenu);
      await until(async () => (await activeOn(rawLine)) >= n, 60_000, `${n} raw conversations assigned`);
      const rawSeconds = (performance.now() - rawStart) / 1000;
      const rawAfter = componentCpuSeconds({ api: [rawServer.pid] });
      const rawCpu = cpuDelta(rawBefore, rawAfter);
      const rawDescribed = describeComponentCpu(rawBefore, rawAfter, timedIds.length, 'routed conversation');

      const value = (sum(productCpu) * 1000) / n;
      const baseline = (sum(rawCpu) * 1000) / timedIds.length;
      const assignments = n / routedSeconds;
      const misses = [
        capP99 === null || capP99 > CAP_P99_MS ? `menu → Active p99 ${capP99?.toFixed(0)} ms > ${CAP_P99_MS} ms at ${capRate}/s` : null,
        capRun.skipped || capRun.failed ? `${capRun.skipped} skipped, ${capRun.failed} failed menu calls in the cap run` : null,
        capLatencies.length < capCount ? `${capCount - capLatencies.length} of ${capCount} cap conversations not Active` : null,
      ].filter(Boolean);
      return {
        value,
        baseline,
        ratio: value / baseline,
        unit: 'CPU ms per routed conversation',
        withinCap: misses.length === 0,
        capMiss: misses.join('; ') || undefined,
        bound: cpuGapBound(
          { before: productBefore, after: productAfter, units: n },
          { before: rawBefore, after: rawAfter, units: timedIds.length },
          'routed conversation',
        ),
        detail:
          `${n} conversations, ${productAgents.length} agents × capacity ${CAPACITY} on one line, ${IN_FLIGHT} menu calls in flight; ` +
          `product (API + PostgreSQL + Redis): ${productDescribed} (menu calls done in ${((menusDone - routedStart) / 1000).toFixed(1)} s, all Active after ${routedSeconds.toFixed(1)} s, outbox ${drained.initial} rows then ${drained.left ? `${drained.left} still undelivered after ${drained.seconds.toFixed(0)} s` : `drained in ${drained.seconds.toFixed(1)} s`}); ` +
          `raw (servers/raw-routing.cjs as "API" + PostgreSQL + Redis idle, the API stopped): ${rawDescribed} (${timedIds.length} conversations after ${IN_FLIGHT} warm-up, all Active after ${rawSeconds.toFixed(1)} s); ` +
          `PostgreSQL CPU is every postgres process of the machine; ` +
          `throughput (recorded, not a goal): ${assignments.toFixed(0)} assignments/s vs raw routing ${(timedIds.length / rawSeconds).toFixed(0)}/s vs raw BullMQ add+process of empty jobs ${bullRate.toFixed(0)}/s (ratio ${(assignments / bullRate).toFixed(2)}); ` +
          `cap: ${capRate} menu completions/s offered for ${capSeconds} s (open loop) with ${capWaiting} conversations already waiting on a line without agents (${stillWaiting} still waiting after), ${capAgents.length} agents: menu sent → Active p50 ${percentile(capLatencies, 50)?.toFixed(0)} ms, p99 ${capP99?.toFixed(0)} ms (cap ${CAP_P99_MS} ms, from the conversation's assignedAt, ms clock); ` +
          `${os.cpus().length} cores, load generator at nice 10`,
      };
    } finally {
      if (!rawClosed) await raw.close().catch(() => undefined);
      if (rawServer) await rawServer.stop();
      if (!apiStopped) await api.stop();
      await db.end();
    }
  },
};
