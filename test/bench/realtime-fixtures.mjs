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
import { atServerPriority, startServer } from './lib.mjs';

const require = createRequire(import.meta.url);
const { STAFF_BATCH_AUTH, deliverStaffBatch } = require('@centralita/contracts');
const jwt = require('jsonwebtoken');
export const here = path.dirname(new URL(import.meta.url).pathname);
export const domain = require(path.resolve(here, '../../libs/domain/dist/index.js'));

export const DEMO_CLIENT_ID = '00000000-0000-4000-8000-000000000002';
const ISSUER = 'centralita';
const AUDIENCE = 'centralita-console';

/** The built API as a child with its own queue / socket-stream prefix (benchmarks never share one). */
export function startApi(env, tag, extra = {}) {
  const childEnv = {
    ...env,
    QUEUE_PREFIX: `${env.QUEUE_PREFIX}-${tag}-${Date.now().toString(36)}`,
    RATE_LIMIT_WEBCHAT_START_IP: '1000000',
    RATE_LIMIT_WEBCHAT_MESSAGES: '1000000',
    ...extra,
  };
  // BENCH_PROFILE_DIR=/some/dir: the API child writes a V8 CPU profile there when it stops.
  if (process.env.BENCH_PROFILE_DIR)
    return startIpcServer(path.join(here, 'servers/api-server-ipc.cjs'), childEnv, [
      '--cpu-prof',
      `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`,
    ]);
  return startServer(path.join(here, 'servers/api-server.cjs'), childEnv);
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
 * P2's raw message pipeline, the baseline of P2 and C1: the sum of three primitives' p99 at the
 * same offered rate, each on bare components beside the platform's own: a Socket.IO echo (ack
 * round trip on a bare server), a BullMQ pickup (add → bare worker start) and a PostgreSQL
 * single-row INSERT (over `db`, one row per message naming one of `conversationIds`). Starts and
 * stops its own bare server and worker.
 */
export async function measureRawMessagePipeline({ env, db, rate, seconds, tag, conversationIds }) {
  const bare = await startServer(path.join(here, 'servers/bare-socketio.cjs'), env);
  const raw = await rawQueue(env, tag);
  const echoClients = [];
  try {
    echoClients.push(...(await pooled(Array.from({ length: 20 }), 10, () => connect(bare.url, '', null))));
    const echo = [];
    await openLoop({ rate, seconds }, async (i) => {
      const start = performance.now();
      await new Promise((resolve) => echoClients[i % echoClients.length].emit('echo', i, resolve));
      echo.push(performance.now() - start);
    });
    raw.reset();
    await openLoop({ rate, seconds }, () => raw.add());
    await raw.waitFor(Math.round(rate * seconds) - 1);
    const pickup = [...raw.state.pickups];
    await db.query(
      `CREATE TABLE IF NOT EXISTS bench_p2_insert (id bigserial PRIMARY KEY, conversation_id uuid NOT NULL, text varchar(500) NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`,
    );
    const inserts = [];
    await openLoop({ rate, seconds }, async (i) => {
      const start = performance.now();
      await db.query(`INSERT INTO bench_p2_insert (conversation_id, text) VALUES ($1, $2)`, [
        conversationIds[i % conversationIds.length],
        `hello ${i}`,
      ]);
      inserts.push(performance.now() - start);
    });
    const parts = { echo: percentile(echo, 99), pickup: percentile(pickup, 99), insert: percentile(inserts, 99) };
    return {
      parts,
      baseline: parts.echo + parts.pickup + parts.insert,
      describe: () => `echo ${parts.echo.toFixed(1)} + pickup ${parts.pickup.toFixed(1)} + insert ${parts.insert.toFixed(1)} ms`,
    };
  } finally {
    for (const socket of echoClients) socket.close();
    for (const stop of [() => raw.close(), () => bare.stop()]) await stop().catch(() => undefined);
  }
}
