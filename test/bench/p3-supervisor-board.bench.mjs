// P3: agent state change → supervisors' boards, as QUALITY.md poses it: p99 at 100 changes/s
// offered (open loop) to 200 supervisor sockets (quick 50) vs a raw pipeline, and CPU per change.
// Product: agents alternate POST /api/agent/presence/pause and /available (one change in flight
// per agent, 100 agents); every supervisor socket on /staff (connected as the console does: the
// tenant-wide stream in batches, STAFF_BATCH_AUTH) must receive the matching agent.updated (same
// agent, same version). Latency per delivery = receipt − request start, p99 over every (change,
// supervisor) pair.
// Raw: servers/raw-board.cjs, bare node:http POST → one-row commit (versioned UPDATE of a bench row)
// → `agent.updated` emitted on the SAME Redis streams adapter (the API's QUEUE_PREFIX) to the
// batched supervisors' room, received by the same supervisor sockets connected to the API (the API
// process fans the stream entry out to them). Same agents count, rate, pacing.
// CPU per change (lib.mjs componentCpuSeconds): API (+ the raw server in the raw run) + PostgreSQL
// (every postgres process of the machine) + Redis, over the timed window.
// "With S1 traffic running": during both runs (and a window before them) customers of 100 Active
// web-chat conversations send 100 msg/s (open loop) to the same API, whose pushes reach the same
// supervisors' tenant-wide stream. The CPU that traffic costs, measured alone in that window, is
// taken off both runs' CPU before dividing by the changes (the total is in the detail too).
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { componentCpuSeconds, cpuGapBound, describeComponentCpu, machineBusy, startServer } from './lib.mjs';
import {
  accessToken,
  call,
  connectSupervisor,
  createCampaign,
  createLine,
  createUsers,
  drainOutbox,
  here,
  linkAgents,
  openLoop,
  percentile,
  pooled,
  sleep,
  startApi,
  until,
} from './realtime-fixtures.mjs';

const RATE = 100;
const AGENTS = 100;
const CAP_MS = 250;
const CPU_RATIO_CAP = 2;
const DELIVERY_TIMEOUT_MS = 5000;
const BACKGROUND_RATE = 100;
const BACKGROUND_CONVERSATIONS = 100;
const BACKGROUND_CAPACITY = 5;

/** Customer messages at `BACKGROUND_RATE`/s (open loop) round the visitors until stopped. */
function backgroundTraffic(url, visitorTokens) {
  let stopped = false;
  let sent = 0;
  let failed = 0;
  const pending = new Set();
  const loop = (async () => {
    const start = performance.now();
    for (let i = 0; !stopped; i++) {
      const wait = start + (i * 1000) / BACKGROUND_RATE - performance.now();
      if (wait > 1) await sleep(wait);
      const message = call(url, '/api/webchat/conversation/messages', {
        token: visitorTokens[i % visitorTokens.length],
        body: { text: `hi ${i}`, clientMessageId: randomUUID() },
      }).then(
        () => sent++,
        () => failed++,
      );
      pending.add(message);
      message.finally(() => pending.delete(message));
    }
  })();
  return {
    counts: () => ({ sent, failed }),
    stop: async () => {
      stopped = true;
      await loop;
      await Promise.all(pending);
    },
  };
}

/**
 * Offers `rate` changes/s for `seconds` (open loop), change i by trigger i % triggers.length, one in
 * flight per trigger (a change waits for the trigger's previous answer). `fire(trigger, expect)`
 * registers the key its push will carry through `expect(key)` before sending. Resolves the
 * latencies of every delivery to `audience` and how many never arrived within the timeout.
 */
async function measure({ triggers, audience, rate, seconds, fire }) {
  const latencies = [];
  const waiting = new Map();
  let missing = 0;
  const onBoard = (key) => {
    const entry = waiting.get(key);
    if (!entry) return;
    latencies.push(performance.now() - entry.start);
    if (--entry.left === 0) waiting.delete(key);
  };
  for (const socket of audience) socket.on('board', onBoard);
  const chains = triggers.map(() => Promise.resolve());
  const run = await openLoop({ rate, seconds }, (i) => {
    const t = i % triggers.length;
    // A failed change is counted by openLoop; the trigger's next change still goes.
    chains[t] = chains[t]
      .catch(() => undefined)
      .then(() => {
        const start = performance.now();
        return fire(triggers[t], (key) => waiting.set(key, { start, left: audience.length }));
      });
    return chains[t];
  });
  const allIn = await until(() => waiting.size === 0, DELIVERY_TIMEOUT_MS, 'board deliveries').catch(() => false);
  if (!allIn) for (const entry of waiting.values()) missing += entry.left;
  waiting.clear();
  for (const socket of audience) socket.off('board', onBoard);
  return { ...run, latencies, missing };
}

/** Runs `work` and reads the components' CPU around it. */
async function withCpu(pids, work) {
  const before = componentCpuSeconds({ api: pids });
  const started = performance.now();
  const result = await work();
  const wall = (performance.now() - started) / 1000;
  const after = componentCpuSeconds({ api: pids });
  const seconds = after.api - before.api + (after.postgres - before.postgres) + (after.redis - before.redis);
  return { result, before, after, seconds, wall };
}

export default {
  id: 'P3',
  title: 'Agent state change → 200 supervisor boards p99 at 100 changes/s vs a raw pipeline (HTTP → one-row commit → the same adapter)',
  goal: { ratio: 2, direction: 'max' },
  async run({ env, quick, databaseUrl }) {
    const supervisorCount = quick ? 50 : 200;
    const seconds = quick ? 5 : 10;
    // Connections never close as idle (pg's default closes them after 10 s): a backend that exits
    // inside a measured window takes its CPU with it from the /proc reading.
    const db = new pg.Pool({ connectionString: databaseUrl, max: 2, idleTimeoutMillis: 0 });
    db.on('error', () => undefined); // an idle client dropped (the run's DROP DATABASE ... FORCE)
    const supervisors = await createUsers(db, { count: supervisorCount, role: 'SUPER', tag: 'p3s' });
    const agents = await createUsers(db, { count: AGENTS, role: 'AGENT', tag: 'p3a' });
    // The background traffic's line, campaign and agents (apart from the agents whose state changes).
    const backgroundLine = await createLine(db, 'p3bg');
    const backgroundCampaign = await createCampaign(db, BACKGROUND_CAPACITY);
    const backgroundAgents = await createUsers(db, { count: BACKGROUND_CONVERSATIONS / BACKGROUND_CAPACITY, role: 'AGENT', tag: 'p3bg' });
    await linkAgents(db, backgroundAgents, backgroundLine);
    // The raw server emits on the API's own stream: it must know the API's prefix.
    const prefix = `${env.QUEUE_PREFIX}-p3-${Date.now().toString(36)}`;
    const api = await startApi(env, 'p3', { QUEUE_PREFIX: prefix });
    let rawServer = null;
    let background = null;
    const sockets = [];
    try {
      await pooled(backgroundAgents, 10, (user) =>
        call(api.url, '/api/agent/presence/login', { token: accessToken(env.JWT_SECRET, user), body: { campaignId: backgroundCampaign } }),
      );
      const customers = await pooled(Array.from({ length: BACKGROUND_CONVERSATIONS }), 16, async (_, i) => {
        const chat = await call(api.url, '/api/webchat/conversations', {
          body: { attentionLineId: backgroundLine, name: `Customer ${i}` },
        });
        await call(api.url, '/api/webchat/conversation/menu', {
          token: chat.visitorToken,
          body: { queryTypeId: 'sales', submenuId: 'new' },
        });
        return chat.visitorToken;
      });
      await until(
        async () =>
          Number(
            (
              await db.query(`SELECT count(*)::int AS n FROM conversations WHERE attention_line_id = $1 AND status = 'Active'`, [
                backgroundLine,
              ])
            ).rows[0].n,
          ) >= BACKGROUND_CONVERSATIONS,
        30_000,
        'the background conversations Active',
      );
      const board = await pooled(supervisors, 20, (user) => connectSupervisor(api.url, accessToken(env.JWT_SECRET, user)));
      sockets.push(...board);
      // agent.updated → 'board' key (agentId@version), so one listener serves both runs.
      for (const socket of board)
        socket.on('agent.updated', (view) => socket.listeners('board').forEach((fn) => fn(`${view.agentId}@${view.version}`)));
      const tokens = agents.map((user) => ({ user, token: accessToken(env.JWT_SECRET, user), status: 'available' }));
      await pooled(tokens, 10, async (agent) => {
        agent.version = (await call(api.url, '/api/agent/presence/login', { token: agent.token, body: {} })).version;
      });
      const fireReal = async (agent, expect) => {
        // The version is only known from the answer; the push may arrive first, so register by
        // the version expected next (current + 1) before sending.
        const pausing = agent.status !== 'paused';
        const key = `${agent.user.id}@${agent.version + 1}`;
        expect(key);
        const view = pausing
          ? await call(api.url, '/api/agent/presence/pause', { token: agent.token, body: { reasonId: 'break' } })
          : await call(api.url, '/api/agent/presence/available', { token: agent.token, body: {} });
        if (view.version !== agent.version + 1) throw new Error(`unexpected version ${view.version} after ${agent.version}`);
        agent.version = view.version;
        agent.status = view.status;
      };
      await drainOutbox(db, 20_000);
      background = backgroundTraffic(api.url, customers);
      await sleep(1000);
      // The background's own CPU per second, alone, to take off both runs.
      const alone = await withCpu([api.pid], () => sleep(seconds * 1000));
      const backgroundPerSecond = alone.seconds / alone.wall;
      await measure({ triggers: tokens, audience: board, rate: RATE, seconds: 1, fire: fireReal }); // warm-up
      const real = await withCpu([api.pid], () => measure({ triggers: tokens, audience: board, rate: RATE, seconds, fire: fireReal }));

      // Raw pipeline: same sockets, same agents count and pacing.
      await db.query(
        `CREATE TABLE IF NOT EXISTS bench_p3_board (agent_id text PRIMARY KEY, status varchar(24) NOT NULL, version integer NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`,
      );
      const rawAgents = Array.from({ length: AGENTS }, (_, i) => ({ id: `raw-${i}`, version: 0, status: 'available' }));
      await db.query(`INSERT INTO bench_p3_board (agent_id, status, version) SELECT a, 'available', 0 FROM unnest($1::text[]) AS a`, [
        rawAgents.map((agent) => agent.id),
      ]);
      rawServer = await startServer(path.join(here, 'servers/raw-board.cjs'), { ...env, QUEUE_PREFIX: prefix, DATABASE_URL: databaseUrl });
      const fireRaw = async (agent, expect) => {
        const status = agent.status === 'paused' ? 'available' : 'paused';
        expect(`${agent.id}@${agent.version + 1}`);
        const answer = await call(rawServer.url, '/change', { body: { agentId: agent.id, status } });
        agent.version = answer.version;
        agent.status = status;
      };
      await measure({ triggers: rawAgents, audience: board, rate: RATE, seconds: 1, fire: fireRaw }); // warm-up
      const raw = await withCpu([api.pid, rawServer.pid], () =>
        measure({ triggers: rawAgents, audience: board, rate: RATE, seconds, fire: fireRaw }),
      );
      const backgroundCounts = background.counts();
      await background.stop();
      background = null;

      const changes = (run) => run.result.total - run.result.skipped - run.result.failed;
      const cpuPerChange = (run) => ((run.seconds - backgroundPerSecond * run.wall) * 1000) / Math.max(1, changes(run));
      const grossPerChange = (run) => (run.seconds * 1000) / Math.max(1, changes(run));
      const cpuRatio = cpuPerChange(real) / cpuPerChange(raw);
      const value = percentile(real.result.latencies, 99);
      const baseline = percentile(raw.result.latencies, 99);
      const describeRun = (run) =>
        `${changes(run)} changes (${run.result.skipped} skipped, ${run.result.failed} failed), ${run.result.latencies.length} deliveries, ${run.result.missing} missing after ${DELIVERY_TIMEOUT_MS / 1000} s, p50 ${percentile(run.result.latencies, 50)?.toFixed(1)} ms`;
      const misses = [
        value > CAP_MS ? `p99 ${value.toFixed(1)} ms > ${CAP_MS} ms` : null,
        cpuRatio > CPU_RATIO_CAP ? `CPU per change ${cpuRatio.toFixed(2)}× the raw pipeline's (> ${CPU_RATIO_CAP}×)` : null,
        real.result.missing ? `${real.result.missing} deliveries missing` : null,
        real.result.skipped || real.result.failed ? `${real.result.skipped} changes skipped, ${real.result.failed} failed` : null,
      ].filter(Boolean);
      return {
        value,
        baseline,
        ratio: value / baseline,
        unit: 'ms p99',
        withinCap: misses.length === 0,
        capMiss: misses.join('; ') || undefined,
        // Both runs carry the same background traffic for the same time, so the per-change gap is the product's own work.
        bound: `${cpuGapBound(
          { before: real.before, after: real.after, units: changes(real) },
          { before: raw.before, after: raw.after, units: changes(raw) },
          'change',
        )}; ${machineBusy(real.before, real.after, real.wall)} during the product run (${machineBusy(raw.before, raw.after, raw.wall)} raw)`,
        detail:
          `${RATE} changes/s offered for ${seconds} s (open loop, ${AGENTS} agents alternating pause/available, one change in flight each) → ${supervisorCount} supervisor sockets on the API (batched tenant stream); ` +
          `product: ${describeRun(real)}; raw (servers/raw-board.cjs: HTTP → one-row UPDATE → agent.updated on the API's Redis streams adapter → the same sockets): ${describeRun(raw)}; ` +
          `absolute p99 ${value.toFixed(1)} ms (cap ${CAP_MS} ms); CPU per change ${cpuPerChange(real).toFixed(2)} ms vs ${cpuPerChange(raw).toFixed(2)} ms raw = ${cpuRatio.toFixed(2)}× (cap ${CPU_RATIO_CAP}×); ` +
          `S1-like traffic meanwhile: ${BACKGROUND_RATE} customer msg/s (open loop) to ${BACKGROUND_CONVERSATIONS} Active web chats (${backgroundCounts.sent} answered, ${backgroundCounts.failed} failed by the end of the raw run), costing ${(backgroundPerSecond * 1000).toFixed(0)} ms CPU per second alone, taken off both; ` +
          `gross (background included) ${grossPerChange(real).toFixed(2)} vs ${grossPerChange(raw).toFixed(2)} ms per change: product ${describeComponentCpu(real.before, real.after, changes(real), 'change')}; raw (API = API + raw server) ${describeComponentCpu(raw.before, raw.after, changes(raw), 'change')}; ` +
          `PostgreSQL CPU is every postgres process of the machine; not the full S1 scale (2,000 agents, 20,000 conversations, 500 msg/s); ${os.cpus().length} cores, load generator at nice 10`,
      };
    } finally {
      if (background) await background.stop();
      for (const socket of sockets) socket.close();
      if (rawServer) await rawServer.stop();
      await api.stop();
      await db.end();
    }
  },
};
