// S2: S1's full load (s1-load.mjs's measureS1Load: scale-load.mjs's fixture, every staff member on
// a socket, customer messages and agent replies 1:1, routing churn, the rate sweep and the slopes)
// over two API processes and two worker processes (apps/worker/dist/main.js, as the product runs
// them) behind HAProxy, all on the same box. HAProxy runs deploy/haproxy.cfg rendered for 127.0.0.1:
// the same backend (sticky cookie CENTRALITA_API, source hash for a client without it, the health
// check), ports chosen free, the per-request log left out (it would cost the load generator a pipe
// read per request) and a stats listener added to read how the connections split. Staff sockets
// present the cookie of one process or the other, alternately, as consoles that got it on their
// first request do, and each agent's replies and closes carry its socket's cookie; customers (a
// widget sends no cookie: the talking conversations' ones and the churn's new chats) come from 128
// loopback addresses, which the source hash spreads. CPU is read per component (API = both
// processes summed, worker = both, HAProxy) and per process.
// Baseline: the same measureS1Load on ONE API process + one worker, measured first by S2 in the
// same run on its own fixture of the same size; each side's fixture is retired when it ends
// (retireScaleFixture), so the second side starts on the database the first one did.
// Ratio = S2's held rate ÷ the one-process held rate (QUALITY.md: ≥ 0.9×). When the one-process
// side held no step, both are compared by their p99 at the sweep's first step instead (ratio = one
// process's ÷ two processes'; `compare`), and the detail says so. Then, after the load and its churn, sockets still open:
// - socket recovery across processes: a few agents' sockets lose their transport, messages are sent
//   to their (still Active) conversations meanwhile, and they reconnect with the cookie of the other
//   process (Socket.IO connection-state recovery over the Redis Streams adapter): each must come back
//   recovered and get every message sent meanwhile exactly once;
// - no double assignment: every agent closes one conversation it holds through its own process, the
//   routing of both processes assigns the LiningUp ones on the same lines at once, and the log must
//   show no conversation assigned twice and no agent above capacity.
// Without haproxy on the PATH the row says "not run" (scripts/test and .ci/run never need it).
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { accessToken, call, here, percentile, pool, pooled, sleep, startIpcServer, until, visitorToken } from './realtime-fixtures.mjs';
import { atServerPriority, cpuGapBound } from './lib.mjs';
import { CAPACITY, retireScaleFixture, scaleFixture } from './scale-load.mjs';
import { SWEEP_RATES, measureOneProcess, measureS1Load, startWorker } from './s1-load.mjs';

const ROOT = path.resolve(here, '../..');
const SERVERS = ['api-1', 'api-2'];
const COOKIE = 'CENTRALITA_API';
/**
 * Loopback source addresses of the customers, spread over 127/8 as customers' addresses are over
 * the Internet: the proxy's consistent source hash sends each to a process. 32 neighbouring ones
 * (127.0.1.1-32) split 10 / 22; these 128 split about 45 / 55, the share HAProxy's hash ring gives
 * each of two servers over many addresses (250 of them: 112 / 138).
 */
const CUSTOMER_ADDRESSES = Array.from({ length: 128 }, (_, i) => `127.${i + 1}.${((i * 37) % 250) + 1}.${((i * 91) % 250) + 1}`);
/** Agents whose sockets move to the other process in the recovery check (half from each). */
const MOVED_AGENTS = 6;
/** Messages sent to each of a moved agent's Active conversations while it is away. */
const MESSAGES_WHILE_AWAY = 2;

function haproxyVersion() {
  const result = spawnSync('haproxy', ['-v'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.split('\n')[0] : null;
}

/** This process's soft limit of open files (HAProxy inherits it), from /proc. */
function openFileLimit() {
  const soft = /^Max open files\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
  return soft === undefined || soft === 'unlimited' ? Infinity : Number(soft);
}

async function freePort() {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * deploy/haproxy.cfg for this box: the frontend on 127.0.0.1:<port>, api-1 and api-2 on the API
 * processes' ports, no per-request log, plus a stats listener (CSV at /stats;csv).
 */
export function renderHaproxyConfig(source, { port, statsPort, apiPorts }) {
  const replace = (text, from, to) => {
    if (!from.test(text)) throw new Error(`deploy/haproxy.cfg changed: no ${from}`);
    return text.replace(from, to);
  };
  let config = source;
  config = replace(config, /^[ \t]*log stdout .*\n/m, '');
  config = replace(config, /^[ \t]*log global[ \t]*\n/m, '');
  config = replace(config, /^[ \t]*option httplog[ \t]*\n/m, '');
  // HAProxy needs two descriptors per connection and refuses to start when maxconn would take more
  // than this process may open (20,000 connections need 40,020): lowered to fit, if need be.
  const configured = Number(/^\s*maxconn (\d+)\s*$/m.exec(config)?.[1]);
  const fitting = Math.min(configured, Math.floor((openFileLimit() - 100) / 2));
  config = replace(config, /^(\s*)maxconn \d+[ \t]*$/m, `$1maxconn ${fitting}`);
  config = replace(config, /^(\s*)bind :80\s*$/m, `$1bind 127.0.0.1:${port}`);
  SERVERS.forEach((name, i) => {
    config = replace(config, new RegExp(`^(\\s*server ${name}) ${name}:3000 `, 'm'), `$1 127.0.0.1:${apiPorts[i]} `);
  });
  return `${config}\nfrontend stats\n  bind 127.0.0.1:${statsPort}\n  stats enable\n  stats uri /stats\n`;
}

function get(url) {
  return new Promise((resolve, reject) => {
    http
      .get(url, (response) => {
        let body = '';
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode, body }));
      })
      .on('error', reject);
  });
}

/** HAProxy in the foreground (-db) on a rendered config; `servers()` reads its stats per server. */
async function startHaproxy(apiPorts) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'centralita-s2-'));
  const port = await freePort();
  const statsPort = await freePort();
  const file = path.join(dir, 'haproxy.cfg');
  writeFileSync(file, renderHaproxyConfig(readFileSync(path.join(ROOT, 'deploy/haproxy.cfg'), 'utf8'), { port, statsPort, apiPorts }));
  const child = spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr.on('data', (chunk) => (errors += chunk));
  atServerPriority(child.pid);
  const servers = async () => {
    const { body } = await get(`http://127.0.0.1:${statsPort}/stats;csv`);
    const [header, ...rows] = body.trim().split('\n');
    const columns = header.replace(/^# /, '').split(',');
    const at = (row, name) => row.split(',')[columns.indexOf(name)];
    return Object.fromEntries(
      rows
        .filter((row) => row.startsWith('api,') && SERVERS.includes(at(row, 'svname')))
        .map((row) => [at(row, 'svname'), { status: at(row, 'status'), sessions: Number(at(row, 'stot')) }]),
    );
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // Up once both servers passed their health checks (the first ones run at start-up).
    await until(
      async () => {
        if (child.exitCode !== null) throw new Error(`haproxy exited with ${child.exitCode}: ${errors.trim()}`);
        const states = await servers().catch(() => ({}));
        return SERVERS.every((name) => states[name]?.status === 'UP');
      },
      30_000,
      'HAProxy with both API processes UP',
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `http://127.0.0.1:${port}`, pid: child.pid, servers, stop };
}

const cookieOf = (index) => ({ extraHeaders: { cookie: `${COOKIE}=${SERVERS[index % 2]}` } });
const customerOf = (i) => ({ localAddress: CUSTOMER_ADDRESSES[i % CUSTOMER_ADDRESSES.length] });

/**
 * A few agents' sockets lose their transport (the server keeps their session), messages go to
 * their Active conversations meanwhile, and each reconnects with the cookie of the other process.
 */
async function recoverAcrossProcesses({ env, fx, db, proxy, agentSockets }) {
  const proxyUrl = proxy.url;
  // The load's routing churn closed some of the fixture's Active conversations: only those still open.
  const { rows } = await db.query(`SELECT id FROM conversations WHERE id = ANY($1::uuid[]) AND status = 'Active'`, [
    fx.active.map((c) => c.id),
  ]);
  const open = new Set(rows.map((row) => row.id));
  const moved = agentSockets.slice(0, MOVED_AGENTS).map((socket, index) => {
    const seen = new Map();
    socket.on('message.created', (view) => seen.set(view.clientMessageId, (seen.get(view.clientMessageId) ?? 0) + 1));
    return { socket, seen, agent: fx.agents[index], to: SERVERS[(index + 1) % 2], sent: [] };
  });
  for (const { socket } of moved) socket.io.engine.close();
  await until(() => moved.every(({ socket }) => !socket.connected), 10_000, 'the moved sockets to drop');
  await sleep(500); // the processes persist the sessions on their close
  await pooled(moved, MOVED_AGENTS, async (entry) => {
    for (const conversation of fx.active.filter((c) => c.agent === entry.agent.id && open.has(c.id)))
      for (let k = 0; k < MESSAGES_WHILE_AWAY; k++) {
        const clientMessageId = randomUUID();
        entry.sent.push(clientMessageId);
        await call(proxyUrl, '/api/webchat/conversation/messages', {
          token: visitorToken(env.JWT_SECRET, conversation.id, conversation.visitor),
          body: { text: `while away ${k}`, clientMessageId },
          localAddress: CUSTOMER_ADDRESSES[0],
        });
      }
  });
  // Where they land: the proxy's new connections per process while they reconnect (nothing else
  // opens one meanwhile).
  const landedFrom = await proxy.servers();
  await Promise.all(
    moved.map(async ({ socket, to }) => {
      socket.io.opts.extraHeaders = { cookie: `${COOKIE}=${to}` };
      const connected = once(socket, 'connect');
      socket.connect();
      let timer;
      const late = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('a moved socket did not reconnect within 20 s')), 20_000);
      });
      await Promise.race([connected, late]).finally(() => clearTimeout(timer));
    }),
  );
  const landedTo = await proxy.servers();
  const landed = SERVERS.map((name) => `${name} +${landedTo[name].sessions - landedFrom[name].sessions}`).join(', ');
  const recovered = moved.filter(({ socket }) => socket.recovered).length;
  const got = () => moved.reduce((n, { sent, seen }) => n + sent.filter((id) => seen.has(id)).length, 0);
  const sent = moved.reduce((n, entry) => n + entry.sent.length, 0);
  await until(() => got() === sent, 15_000, 'the messages sent while away').catch(() => undefined);
  await sleep(1000); // a duplicate would come right behind
  const deliveredOnce = moved.reduce((n, { sent: ids, seen }) => n + ids.filter((id) => seen.get(id) === 1).length, 0);
  return { moved: moved.length, recovered, sent, delivered: got(), deliveredOnce, landed };
}

/**
 * Every agent closes one of the Active conversations it holds now (after the load's churn) through
 * its own process: the freed places take the LiningUp conversations of their lines, routed by both
 * processes at once. Answers the log's assignments on the fixture's lines since `since` and every
 * conversation assigned twice / agent above capacity.
 */
async function churnAssignments({ env, fx, proxyUrl, db, since }) {
  const agentIds = fx.agents.map((a) => a.id);
  const { rows } = await db.query(
    `SELECT DISTINCT ON (agent_id) agent_id, id FROM conversations WHERE agent_id = ANY($1::uuid[]) AND status = 'Active' ORDER BY agent_id, id`,
    [agentIds],
  );
  const held = new Map(rows.map((row) => [row.agent_id, row.id]));
  const closes = fx.agents
    .map((agent, index) => ({ agent, index, conversationId: held.get(agent.id) }))
    .filter(({ conversationId }) => conversationId !== undefined);
  let failed = 0;
  await pooled(closes, 32, async ({ agent, index, conversationId }) => {
    await call(proxyUrl, `/api/agent/conversations/${conversationId}/close`, {
      token: accessToken(env.JWT_SECRET, agent),
      body: { disposition: 'resolved' },
      headers: cookieOf(index).extraHeaders,
    }).catch(() => failed++);
  });
  // The fixture's lines hold its own conversations, the churn's new chats and the slopes' queued ones.
  const onLines = `entity_id IN (SELECT id FROM conversations WHERE attention_line_id = ANY($1::uuid[]))`;
  const assigned = async () =>
    Number(
      (
        await db.query(
          `SELECT count(*)::int AS n FROM transition_log WHERE entity_type = 'conversation' AND event = 'conversation.assigned' AND ${onLines} AND at >= $2`,
          [fx.lines, since],
        )
      ).rows[0].n,
    );
  // Settled once every close found its replacement, or the count stopped moving for 3 s.
  let last = -1;
  let stableSince = Date.now();
  await until(
    async () => {
      const n = await assigned();
      if (n !== last) [last, stableSince] = [n, Date.now()];
      return n >= closes.length - failed || Date.now() - stableSince > 3000;
    },
    60_000,
    'the routing to settle',
  );
  const twice = await db.query(
    `SELECT entity_id FROM transition_log WHERE entity_type = 'conversation' AND event = 'conversation.assigned' AND ${onLines} AND at >= $2
     GROUP BY entity_id HAVING count(*) > 1`,
    [fx.lines, since],
  );
  const overPresence = await db.query(`SELECT user_id FROM agent_presence WHERE user_id = ANY($1::uuid[]) AND active_count > capacity`, [
    agentIds,
  ]);
  const overActive = await db.query(
    `SELECT agent_id FROM conversations WHERE agent_id = ANY($1::uuid[]) AND status = 'Active' GROUP BY agent_id HAVING count(*) > $2`,
    [agentIds, CAPACITY],
  );
  return {
    closes: closes.length,
    failed,
    assignments: await assigned(),
    twice: twice.rowCount,
    overCapacity: new Set([...overPresence.rows.map((r) => r.user_id), ...overActive.rows.map((r) => r.agent_id)]).size,
  };
}

/**
 * The comparison of the two sides. QUALITY.md: S2's held rate ≥ 0.9× the one-process one. When the
 * one-process side held no step, that ratio would divide by zero, and the msg/s delivered at the
 * first step would read 1.0× whenever both sides kept up however slowly; so both are then compared
 * by their p99 at the sweep's first step (the same offered rate on both), a message not delivered
 * counting as infinitely late, and the ratio is one-process p99 ÷ two-process p99 (≥ 0.9: S2's p99
 * at most 1.11× the one process's). The detail says which rule applied.
 */
function compare(twoProcesses, oneProcess) {
  if (oneProcess.value > 0)
    return {
      value: twoProcesses.value,
      baseline: oneProcess.value,
      ratio: twoProcesses.value / oneProcess.value,
      unit: 'msg/s',
      rule: 'held msg/s (highest sweep step with every message delivered and p99 ≤ 100 ms), two processes ÷ one',
    };
  const firstStepP99 = ({ steps: [first] }) =>
    first ? percentile([...first.latencies, ...Array(first.run.total - first.delivered).fill(Infinity)], 99) : Infinity;
  const value = firstStepP99(twoProcesses);
  const baseline = firstStepP99(oneProcess);
  const finite = Number.isFinite(value) && Number.isFinite(baseline);
  return {
    value: Number.isFinite(value) ? value : null,
    baseline: Number.isFinite(baseline) ? baseline : null,
    ratio: finite && value > 0 ? baseline / value : null,
    unit: 'ms p99 at the first step',
    rule:
      `the one-process side held no step, so the figures are each side's p99 at the sweep's first step (${SWEEP_RATES[0]} msg/s offered; ` +
      `a message not delivered counts as infinitely late) and the ratio is one process's p99 ÷ two processes'` +
      (finite ? '' : ' (none: a side lost more than 1% of that step)'),
  };
}

/**
 * The same sweep step on both sides, to set their CPU per message side by side: the highest one
 * both held, else the first (both ran it, at the same offered rate).
 */
function sameStep(twoProcesses, oneProcess) {
  const both = twoProcesses.steps.map((step, i) => [step, oneProcess.steps[i]]).filter(([two, one]) => one && one.rate === two.rate);
  if (both.length === 0) return { bound: null, describe: () => 'no sweep step ran on both sides' };
  const [two, one] = both.filter(([a, b]) => a.held && b.held).at(-1) ?? both[0];
  const side = (step) => ({ before: step.before, after: step.after, units: step.delivered });
  const productMs = (step) =>
    (['api', 'postgres', 'redis', 'worker', 'proxy'].reduce((sum, key) => sum + step.after[key] - step.before[key], 0) * 1000) /
    Math.max(1, step.delivered);
  const bound = cpuGapBound(side(two), side(one), 'message');
  return {
    bound,
    describe: () =>
      `at ${two.rate} msg/s on both sides, product CPU per message (API, PostgreSQL, Redis, workers, HAProxy): two processes ${productMs(two).toFixed(2)} ms vs one ${productMs(one).toFixed(2)} ms` +
      (bound ? `, most of the difference: ${bound}` : ''),
  };
}

export default {
  id: 'S2',
  title:
    "S1's load (customer + agent 1:1, routing churn, rate sweep) over two API processes and two workers behind HAProxy vs one API process + worker, same box",
  goal: { ratio: 0.9, direction: 'min' },
  async run({ env, quick, databaseUrl }) {
    const version = haproxyVersion();
    if (!version)
      return {
        value: null,
        baseline: null,
        ratio: null,
        unit: 'msg/s',
        detail: 'not run: haproxy is not installed (Debian package `haproxy`); S2 needs it to put the two API processes behind a proxy',
      };
    // The baseline first, on its own fixture, retired when it ends (measureOneProcess).
    const oneProcess = await measureOneProcess({ env, quick, databaseUrl, tag: 's2-one' });
    const db = pool(databaseUrl, 4);
    const stops = [];
    let fx;
    try {
      fx = await scaleFixture(db, { quick, tag: 's2' });
      // Every process of the deployment shares one queue prefix (their Redis keys and socket streams).
      const shared = {
        ...env,
        QUEUE_PREFIX: `${env.QUEUE_PREFIX}-s2-${Date.now().toString(36)}`,
        RATE_LIMIT_WEBCHAT_MESSAGES: '1000000',
        RATE_LIMIT_WEBCHAT_START_IP: '1000000',
      };
      const apis = [];
      for (let i = 0; i < SERVERS.length; i++) {
        const api = await startIpcServer(path.join(here, 'servers/api-server-ipc.cjs'), shared);
        stops.push(() => api.stop());
        apis.push(api);
      }
      const workers = [];
      for (let i = 0; i < 2; i++) {
        const worker = await startWorker(shared);
        stops.push(() => worker.stop());
        workers.push(worker);
      }
      const proxy = await startHaproxy(apis.map((api) => Number(new URL(api.url).port)));
      stops.push(() => proxy.stop());
      const sessionsBefore = await proxy.servers();
      const load = await measureS1Load({
        env,
        quick,
        fx,
        db,
        apis,
        workers,
        via: {
          url: proxy.url,
          pid: proxy.pid,
          staffSocket: cookieOf,
          agentCall: (index) => ({ headers: cookieOf(index).extraHeaders }),
          customerCall: customerOf,
        },
        processes: Object.fromEntries([
          ...apis.map((api, i) => [SERVERS[i], api.pid]),
          ...workers.map((w, i) => [`worker-${i + 1}`, w.pid]),
        ]),
        deployment: `two API processes and two workers behind HAProxy (${version.replace(/^HAProxy version (\S+).*$/, '$1')})`,
        // After the load, the sockets still open: how the proxy split the connections, then S2's two checks.
        whileConnected: async ({ agentSockets }) => {
          const split = await proxy.servers();
          const recovery = await recoverAcrossProcesses({ env, fx, db, proxy, agentSockets });
          const assignments = await churnAssignments({ env, fx, proxyUrl: proxy.url, db, since: new Date(Date.now() - 1000) });
          return { split, recovery, assignments };
        },
      });
      // BENCH_S1_CHURN_ONLY (a profiling mode of measureS1Load) stops before the sweep and the checks.
      if (!load.extra) return { value: null, baseline: null, ratio: null, unit: 'msg/s', detail: `churn only: ${load.describe()}` };
      const { split, recovery, assignments } = load.extra;
      const connections = SERVERS.map((name) => `${name} ${split[name].sessions - (sessionsBefore[name]?.sessions ?? 0)}`).join(', ');
      const { value, baseline, ratio, unit, rule } = compare(load, oneProcess);
      const cpu = sameStep(load, oneProcess);
      const recoveredAll = recovery.recovered === recovery.moved && recovery.deliveredOnce === recovery.sent;
      const noDoubles =
        assignments.twice === 0 && assignments.overCapacity === 0 && assignments.failed === 0 && assignments.assignments > 0;
      return {
        value,
        baseline,
        ratio,
        unit,
        // The ratio alone is not the verdict: a double assignment or a lost socket misses S2.
        withinCap: recoveredAll && noDoubles,
        capMiss: !noDoubles ? 'double assignment or over capacity' : 'socket recovery',
        bound: cpu.bound ?? undefined,
        detail:
          `compared: ${rule}; ` +
          `two processes: ${load.describe()}; HAProxy connections per process ${connections}; ` +
          `socket recovery: ${recovery.recovered}/${recovery.moved} agent sockets moved to the other process came back recovered (new proxy connections ${recovery.landed}), ${recovery.deliveredOnce}/${recovery.sent} messages sent while away delivered exactly once (${recovery.delivered} at all); ` +
          `assignments: ${assignments.closes} agents closed a conversation (${assignments.failed} failed), ${assignments.assignments} LiningUp conversations assigned by the two processes, ${assignments.twice} assigned twice, ${assignments.overCapacity} agents above capacity ${CAPACITY}; ` +
          `one API process + one worker in the same run (own fixture of the same size): held ${oneProcess.value} msg/s, ${oneProcess.summary}; ` +
          cpu.describe(),
      };
    } finally {
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
      if (fx) await retireScaleFixture(db, fx).catch((error) => console.error(`s2: retiring the fixture failed: ${error.message}`));
      await db.end();
    }
  },
};
