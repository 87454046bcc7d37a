// Fixtures of the real-time benchmarks (P1, P2, P3, P5, P6, S1, C1): bulk users in the seeded demo
// tenant, access and visitor tokens minted with the run's JWT secret (no argon2 logins), lines,
// campaigns, socket.io clients, the API as a child process with its own queue prefix, percentiles
// and /proc readings of a child's RSS and CPU. Not a benchmark itself (no `.bench.mjs`).
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pg from 'pg';
import { io } from 'socket.io-client';
import { atServerPriority, componentCpuSeconds, startServer } from './lib.mjs';

const require = createRequire(import.meta.url);
const { STAFF_BATCH_AUTH, deliverStaffBatch } = require('@centralita/contracts');
const jwt = require('jsonwebtoken');
export const here = path.dirname(new URL(import.meta.url).pathname);
export const domain = require(path.resolve(here, '../../libs/domain/dist/index.js'));

export const DEMO_CLIENT_ID = '00000000-0000-4000-8000-000000000002';
const ISSUER = 'centralita';
const AUDIENCE = 'centralita-console';

/**
 * The built API as a child with its own queue / socket-stream prefix (benchmarks never share one),
 * answered as `queuePrefix` beside the server: a raw pipeline emitting on the API's own socket
 * stream needs it (measureRawPipeline).
 */
export async function startApi(env, tag, extra = {}) {
  const childEnv = {
    ...env,
    QUEUE_PREFIX: `${env.QUEUE_PREFIX}-${tag}-${Date.now().toString(36)}`,
    RATE_LIMIT_WEBCHAT_START_IP: '1000000',
    RATE_LIMIT_WEBCHAT_MESSAGES: '1000000',
    ...extra,
  };
  // BENCH_PROFILE_DIR=/some/dir: the API child writes a V8 CPU profile there when it stops.
  const server = process.env.BENCH_PROFILE_DIR
    ? await startIpcServer(path.join(here, 'servers/api-server-ipc.cjs'), childEnv, [
        '--cpu-prof',
        `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`,
      ])
    : await startServer(path.join(here, 'servers/api-server.cjs'), childEnv);
  return { ...server, queuePrefix: childEnv.QUEUE_PREFIX };
}

export function pool(databaseUrl, max = 8) {
  const db = new pg.Pool({ connectionString: databaseUrl, max });
  db.on('error', () => undefined); // an idle client dropped (the run's DROP DATABASE ... FORCE)
  return db;
}

export async function roleIds(db) {
  const rows = await db.query(`SELECT code, id FROM roles WHERE client_id = $1`, [DEMO_CLIENT_ID]);
  return Object.fromEntries(rows.rows.map((row) => [row.code, row.id]));
}

/** `count` users of a role in the demo tenant (unusable password: they only get minted tokens). */
export async function createUsers(db, { count, role, tag }) {
  const roles = await roleIds(db);
  const users = [];
  for (let start = 0; start < count; start += 1000) {
    const size = Math.min(1000, count - start);
    const emails = Array.from({ length: size }, (_, i) => `${tag}-${start + i}-${randomUUID().slice(0, 8)}@bench.invalid`);
    const { rows } = await db.query(
      `INSERT INTO users (client_id, email, name, role_id, password_hash)
       SELECT $1, e, 'Bench ' || e, $2, 'not-a-hash' FROM unnest($3::text[]) AS e RETURNING id, token_version`,
      [DEMO_CLIENT_ID, roles[role], emails],
    );
    users.push(...rows.map((row) => ({ id: row.id, tokenVersion: row.token_version })));
  }
  return users;
}

export function accessToken(secret, user) {
  return jwt.sign({ cid: DEMO_CLIENT_ID, sid: randomUUID(), tv: user.tokenVersion, typ: 'access' }, secret, {
    subject: user.id,
    algorithm: 'HS256',
    issuer: ISSUER,
    audience: AUDIENCE,
    expiresIn: 3600,
  });
}

export function visitorToken(secret, conversationId, visitorId) {
  return jwt.sign({ typ: 'visitor', cid: DEMO_CLIENT_ID, vid: visitorId }, secret, {
    subject: conversationId,
    algorithm: 'HS256',
    issuer: ISSUER,
    audience: AUDIENCE,
    expiresIn: 3600,
  });
}

export async function createLine(db, tag) {
  const { rows } = await db.query(
    `INSERT INTO attention_lines (client_id, name, type, channel) VALUES ($1, $2, 'inbound', 'WebChat') RETURNING id`,
    [DEMO_CLIENT_ID, `Bench ${tag} ${randomUUID().slice(0, 6)}`],
  );
  await db.query(`INSERT INTO attention_line_routing (attention_line_id, tenant_id) VALUES ($1, $2)`, [rows[0].id, DEMO_CLIENT_ID]);
  return rows[0].id;
}

export async function createCampaign(db, capacity) {
  const { rows } = await db.query(
    `INSERT INTO campaigns (client_id, name, description, from_date, to_date, identifier, allowed_chats_per_agent)
     VALUES ($1, 'Bench', 'bench', '2025-01-01', '2035-01-01', $2, $3) RETURNING id`,
    [DEMO_CLIENT_ID, `B${randomUUID().slice(0, 8)}`, capacity],
  );
  return rows[0].id;
}

export async function linkAgents(db, users, lineId) {
  await db.query(
    `INSERT INTO agent_attention_lines (user_id, attention_line_id, tenant_id) SELECT u, $2, $3 FROM unnest($1::uuid[]) AS u`,
    [users.map((user) => user.id), lineId, DEMO_CLIENT_ID],
  );
}

/** JSON call to the API; throws on anything but 200 so a benchmark never measures errors. */
/**
 * One HTTP call, answered with the envelope's data. node:http over a keep-alive agent rather than
 * fetch: the load generator shares the two cores with the servers it measures, and fetch (undici)
 * cost it several times more CPU per request. A pooled connection the server closed as idle just
 * as it was reused fails with ECONNRESET before the request was read: that one is sent again on a
 * fresh connection (Node's documented keep-alive retry; every call here is safe to repeat).
 * `localAddress`: the source address of the connection (S2: customers from several loopback
 * addresses, which the proxy's source hash spreads over the API processes); `headers`: more request
 * headers (S2: the proxy's cookie).
 */
export function call(
  url,
  route,
  { token, body, method = body === undefined ? 'GET' : 'POST', localAddress, headers: extra } = {},
  retried = false,
) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers = { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}), ...extra };
  if (payload !== undefined) headers['Content-Length'] = Buffer.byteLength(payload);
  return new Promise((resolve, reject) => {
    const request = http.request(`${url}${route}`, { method, headers, agent: keepAlive, localAddress }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        let envelope;
        try {
          envelope = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch (error) {
          reject(new Error(`${method} ${route} answered ${response.statusCode} with no JSON: ${error.message}`));
          return;
        }
        if (response.statusCode !== 200)
          reject(new Error(`${method} ${route} answered ${response.statusCode}: ${JSON.stringify(envelope)}`));
        else resolve(envelope.data);
      });
    });
    request.on('error', (error) => {
      if (request.reusedSocket && error.code === 'ECONNRESET' && !retried)
        resolve(call(url, route, { token, body, method, localAddress, headers: extra }, true));
      else reject(error);
    });
    request.end(payload);
  });
}
// Idle pooled connections are dropped after 4 s, before the API's own 5 s keep-alive timeout
// closes them under a request.
const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 256, timeout: 4000 });

/** `options`: more socket.io-client options (S2: the proxy's cookie in `extraHeaders`). */
export function connect(url, namespace, token, auth = {}, options = {}) {
  const socket = io(`${url}${namespace}`, {
    auth: token ? { ...auth, token } : auth,
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    ...options,
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`socket to ${namespace} did not connect within 20 s`));
    }, 20_000);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('connect_error', (error) => {
      clearTimeout(timer);
      socket.close();
      reject(error);
    });
  });
}

/**
 * A supervisor's /staff socket as the console opens it: the tenant-wide stream in batches
 * (STAFF_BATCH_AUTH), each batch handed to the socket's own listeners push by push.
 */
export async function connectSupervisor(url, token, options = {}) {
  const socket = await connect(url, '/staff', token, { [STAFF_BATCH_AUTH]: true }, options);
  socket.on('batch', (pushes) => deliverStaffBatch(socket, pushes));
  return socket;
}

/** Runs `work(item)` over `items` with at most `limit` in flight. */
export async function pooled(items, limit, work) {
  const results = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index], index);
      }
    }),
  );
  return results;
}

/**
 * Runs `work` while watching this process's event loop. The load generator shares the two cores at
 * nice 10: when it is descheduled, the replies it reads late count as server latency, and calls
 * it owed go out together. Its own delay, reported beside a latency, tells that apart.
 */
export async function withLoopDelay(work) {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  try {
    const result = await work();
    return { result, loopDelay: { p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6 } };
  } finally {
    histogram.disable();
  }
}

export const describeLoopDelay = ({ p99, max }) => `load generator event-loop delay p99 ${p99.toFixed(0)} ms, max ${max.toFixed(0)} ms`;

export function percentile(values, p) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check()` is truthy, polling; bounded by `ms`. */
export async function until(check, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(20);
  }
}

const CLOCK_TICKS = 100;
/** RSS (bytes) and user+system CPU seconds of a process, from /proc. */
export function procStats(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rss = Number(/VmRSS:\s+(\d+)/.exec(status)[1]) * 1024;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[11], fields[12] = utime, stime (fields 14 and 15 of proc(5), counted after the name)
  return { rss, cpuSeconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS };
}

/**
 * Open-loop schedule: calls `fire(i)` at `rate` per second for `seconds` (never more than
 * `maxInFlight` pending, counted as skipped), then waits for them. Returns the achieved counts.
 */
export async function openLoop({ rate, seconds, maxInFlight = 2000 }, fire) {
  const total = Math.round(rate * seconds);
  const start = performance.now();
  let inFlight = 0;
  let skipped = 0;
  let failed = 0;
  const pending = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    if (inFlight >= maxInFlight) {
      skipped++;
      continue;
    }
    inFlight++;
    pending.push(
      Promise.resolve(fire(i))
        .catch((error) => {
          failed++;
          // BENCH_VERBOSE: say why (the first few), so a failed run can be told from a slow one.
          if (process.env.BENCH_VERBOSE && failed <= 3) console.error(`openLoop call ${i} failed: ${error.message}`);
        })
        .finally(() => {
          inFlight--;
        }),
    );
  }
  const sendSeconds = (performance.now() - start) / 1000;
  await Promise.all(pending);
  return { total, skipped, failed, sendSeconds, seconds: (performance.now() - start) / 1000 };
}

/**
 * Whether an open-loop run held its offered rate: nothing failed or was skipped (the in-flight cap
 * turns a growing backlog into skipped calls), p99 under 1 s, and the last delivery within 1.5 s of
 * the last send. Shared by P2's probes and S1.
 */
export function heldRate(run, latencies) {
  return !run.failed && !run.skipped && percentile(latencies, 99) < 1000 && run.seconds < run.sendSeconds + 1.5;
}

/** Runs `node <script>` to completion (bounded by `timeoutMs`) and parses the last stdout line as JSON. */
export async function runChild(script, env, { timeoutMs = 110_000, execArgv = [] } = {}) {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [...execArgv, script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  atServerPriority(child.pid);
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise((resolve) => child.on('exit', resolve));
  clearTimeout(timer);
  const last = out.trim().split('\n').at(-1);
  if (code !== 0) throw new Error(`${path.basename(script)} exited with ${code}: ${last ?? ''}`);
  return JSON.parse(last);
}

/**
 * Like startServer, with an IPC channel and node flags: `memory()` asks the child for its
 * process.memoryUsage() after a forced GC (the server scripts answer {type: 'memory'}).
 */
export async function startIpcServer(script, env, execArgv = ['--expose-gc']) {
  const { spawn } = await import('node:child_process');
  const { once } = await import('node:events');
  const readline = await import('node:readline');
  const child = spawn(process.execPath, [...execArgv, script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  atServerPriority(child.pid);
  const lines = readline.createInterface({ input: child.stdout });
  const [line] = await Promise.race([
    once(lines, 'line'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`${script} exited with ${code} before listening`);
    }),
  ]);
  const { port } = JSON.parse(line);
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    cpuSeconds: () => procStats(child.pid).cpuSeconds,
    memory: () =>
      new Promise((resolve) => {
        child.once('message', resolve);
        child.send({ type: 'memory' });
      }),
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 8000);
      await once(child, 'exit');
      clearTimeout(timer);
    },
  };
}

/**
 * A raw BullMQ queue whose jobs a bare worker child (servers/bullmq-worker.cjs) processes. `add(data)`
 * enqueues an empty job; `completed` counts completions and collects pickup delays (add → worker).
 */
export async function rawQueue(env, tag) {
  const { Queue, QueueEvents } = await import('bullmq');
  const { default: Redis } = await import('ioredis');
  const prefix = `${env.QUEUE_PREFIX}-${tag}`;
  const name = 'bench-raw';
  const connection = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
  const queue = new Queue(name, { connection, prefix });
  const eventsConnection = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
  const events = new QueueEvents(name, { connection: eventsConnection, prefix });
  await events.waitUntilReady();
  const worker = await startServer(path.join(here, 'servers/bullmq-worker.cjs'), { ...env, QUEUE_PREFIX: prefix, BENCH_QUEUE: name });
  const state = { completed: 0, pickups: [], waiters: [] };
  events.on('completed', ({ returnvalue }) => {
    state.completed++;
    state.pickups.push(Number(returnvalue));
    for (const waiter of state.waiters) waiter();
  });
  return {
    state,
    add: (data = {}) => queue.add('empty', data, { removeOnComplete: true }),
    /** Resolves when `count` completions have been seen (bounded by `ms`). */
    waitFor: (count, ms = 60_000) => until(() => state.completed >= count, ms, `${count} raw BullMQ completions`),
    reset: () => {
      state.completed = 0;
      state.pickups = [];
    },
    close: async () => {
      await worker.stop();
      await events.close();
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      connection.disconnect();
      eventsConnection.disconnect();
    },
  };
}

/**
 * Waits (bounded) until the API has delivered every outbox row, so a benchmark leaves no backlog
 * for the next one's process to deliver; answers how long it took and how many rows were left.
 */
export async function drainOutbox(db, ms) {
  const start = performance.now();
  const left = async () => Number((await db.query(`SELECT count(*)::int AS n FROM outbox WHERE delivered_at IS NULL`)).rows[0].n);
  let count = await left();
  const initial = count;
  while (count > 0 && performance.now() - start < ms) {
    await sleep(200);
    count = await left();
  }
  return { initial, left: count, seconds: (performance.now() - start) / 1000 };
}

/**
 * P2's raw message pipeline, the baseline of P2 and C1 (QUALITY.md: bare HTTP → one PostgreSQL
 * statement → emit on the same adapter, same generator, same sockets). servers/raw-message-pipeline.cjs
 * takes POST /message, inserts the row in one statement and emits `message.created` to the agent's
 * room on the API's own socket stream (`api.queuePrefix`); the API process relays it to the agent
 * sockets the benchmark connected to it (`sockets`, /staff). Driven by the same open-loop generator
 * (openLoop, maxInFlight rate × 2) and the same HTTP client (call) as the product run, round-robin
 * over `conversationIds`, each posted with the agent it is assigned to (read from `db`). Latency:
 * POST start → an agent socket receiving the message.created with its clientMessageId. CPU per
 * message over the timed window: the raw server (its pid, /proc), the API relaying, every
 * PostgreSQL process and Redis (componentCpuSeconds). Starts and stops its own server.
 */
export async function measureRawPipeline({ env, db, api, sockets, conversationIds, rate, seconds }) {
  const { rows } = await db.query(`SELECT id, agent_id FROM conversations WHERE id = ANY($1::uuid[]) AND agent_id IS NOT NULL`, [
    conversationIds,
  ]);
  if (rows.length === 0) throw new Error('raw message pipeline: none of the conversations has an agent');
  const targets = rows.map((row) => ({ conversationId: row.id, agentId: row.agent_id }));
  const raw = await startServer(path.join(here, 'servers/raw-message-pipeline.cjs'), { ...env, QUEUE_PREFIX: api.queuePrefix });
  const pending = new Map();
  const onMessage = (view) => {
    const settle = pending.get(view.clientMessageId);
    if (settle) {
      pending.delete(view.clientMessageId);
      settle(performance.now());
    }
  };
  for (const socket of sockets) socket.on('message.created', onMessage);
  const send = async (offered, secs) => {
    const latencies = [];
    const run = await openLoop({ rate: offered, seconds: secs, maxInFlight: offered * 2 }, async (i) => {
      const { conversationId, agentId } = targets[i % targets.length];
      const clientMessageId = randomUUID();
      const start = performance.now();
      const delivered = new Promise((resolve, reject) => {
        pending.set(clientMessageId, resolve);
        setTimeout(() => reject(new Error('not delivered within 20 s')), 20_000).unref();
      });
      delivered.catch(() => undefined); // awaited below; a failed POST must not leave it unhandled
      await call(raw.url, '/message', { body: { conversationId, agentId, text: `raw ${i}`, clientMessageId } });
      latencies.push((await delivered) - start);
    });
    pending.clear();
    return { ...run, latencies };
  };
  try {
    await send(30, 1); // warm-up: pool connections, the adapter's stream reader, JIT
    const rawBefore = raw.cpuSeconds();
    const before = componentCpuSeconds({ api: [api.pid] });
    const { result: run, loopDelay } = await withLoopDelay(() => send(rate, seconds));
    const after = componentCpuSeconds({ api: [api.pid] });
    const rawCpu = raw.cpuSeconds() - rawBefore;
    const messages = Math.max(1, run.total - run.skipped);
    const perMessage = (cpuSeconds) => (cpuSeconds * 1000) / messages;
    const cpu = {
      rawServer: perMessage(rawCpu),
      api: perMessage(after.api - before.api),
      postgres: perMessage(after.postgres - before.postgres),
      redis: perMessage(after.redis - before.redis),
      loadGenerator: perMessage(after.loadGenerator - before.loadGenerator),
    };
    const parts = { p99: percentile(run.latencies, 99), p50: percentile(run.latencies, 50), cpu };
    return {
      parts,
      run,
      baseline: parts.p99,
      describe: () =>
        `raw pipeline (bare HTTP → one INSERT → message.created on the API's socket stream, relayed by the API to the same agent sockets) at ${rate} msg/s for ${seconds} s: p99 ${parts.p99.toFixed(1)} ms, p50 ${parts.p50.toFixed(1)} ms` +
        `${run.failed || run.skipped ? ` (${run.failed} failed or not delivered within 20 s, ${run.skipped} skipped)` : ''}, ${describeLoopDelay(loopDelay)}; ` +
        `CPU per message: raw server ${cpu.rawServer.toFixed(2)} ms, API relaying ${cpu.api.toFixed(2)} ms, PostgreSQL ${cpu.postgres.toFixed(2)} ms, Redis ${cpu.redis.toFixed(2)} ms, load generator ${cpu.loadGenerator.toFixed(2)} ms` +
        ` (all ${(cpu.rawServer + cpu.api + cpu.postgres + cpu.redis + cpu.loadGenerator).toFixed(2)} ms)`,
    };
  } finally {
    for (const socket of sockets) socket.off('message.created', onMessage);
    await raw.stop().catch(() => undefined);
  }
}
