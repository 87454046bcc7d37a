// S1's load as QUALITY.md states it (not a benchmark itself: no `.bench.mjs`). On scale-load.mjs's
// fixture (agents at capacity on 20 lines, supervisors, open conversations half Active, half
// LiningUp), with the API and apps/worker's built main running:
// - every agent and supervisor on a /staff socket (supervisors as the console: STAFF_BATCH_AUTH);
// - messages 1:1: a customer message (POST /api/webchat/conversation/messages, visitor token) and
//   an agent reply (POST /api/agent/conversations/:id/messages, the desk's route, the handling
//   agent's token) alternately, to the same Active conversations. Both are timed from the POST to
//   the handling agent's own socket receiving message.created (for a reply: the agent's echo, the
//   same push the customer's widget gets);
// - routing churn for the whole run: agents close Active conversations (POST
//   /api/agent/conversations/:id/close) and new customers start chats through the widget's public
//   routes (POST /api/webchat/conversations, then /conversation/menu) so they queue on a line; each
//   close frees a place the routing fills from the queue;
// - a rate sweep of short open-loop steps after a warm-up: the highest step held (every message
//   delivered, none skipped or failed, p99 ≤ 100 ms) is S1's value;
// - slopes at one fixed rate: API CPU per message with every supervisor connected vs none, and with
//   half vs twice the fixture's open conversations (10,000 vs 40,000 at full size: its LiningUp
//   ones deleted, then queued ones added).
// S1 runs it on one API process and one worker (measureOneProcess); S2 runs it over two of each
// behind HAProxy (sockets and calls through the proxy, CPU of both processes and of the proxy) and,
// as its same-run baseline, on one of each again (measureOneProcess with its own fixture).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import readline from 'node:readline';
import {
  accessToken,
  call,
  connect,
  connectSupervisor,
  describeLoopDelay,
  here,
  openLoop,
  percentile,
  pool,
  pooled,
  sleep,
  startIpcServer,
  visitorToken,
  withLoopDelay,
} from './realtime-fixtures.mjs';
import { atServerPriority, componentCpuSeconds, describeComponentCpu, machineBusy, processCpuSeconds } from './lib.mjs';
import { LINES, insertQueuedConversations, retireScaleFixture, scaleFixture } from './scale-load.mjs';

const ROOT = path.resolve(here, '../..');
/** Total offered msg/s of the sweep's steps (customer messages and agent replies, half each). */
export const SWEEP_RATES = [100, 150, 200, 250, 375, 500, 750, 1000];
/** QUALITY.md S1: a rate counts as held at p99 ≤ 100 ms. */
export const P99_LIMIT_MS = 100;
/**
 * The highest rate of the slope windows. They run at the sweep's held rate when that is lower:
 * a saturated window's CPU per message counts queueing, not the cost the slope compares.
 */
const SLOPE_RATE = 250;
const WARM_UP = { rate: 100, seconds: 3 };
const MAX_IN_FLIGHT = 512;

/** apps/worker/dist/main.js as the product runs it (as S2 starts it); ready when it logs that it started. */
export async function startWorker(env) {
  // BENCH_PROFILE_DIR=<dir>: the worker writes a V8 CPU profile there when it stops, as the API does.
  const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
  const child = spawn(process.execPath, [...profile, path.join(ROOT, 'apps/worker/dist/main.js')], {
    env: { ...process.env, ...env, LOG_LEVEL: 'log' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  atServerPriority(child.pid);
  const lines = readline.createInterface({ input: child.stdout });
  const started = new Promise((resolve) => lines.on('line', (line) => line.includes('Centralita worker started') && resolve()));
  await Promise.race([
    started,
    once(child, 'exit').then(([code]) => {
      throw new Error(`the worker exited with ${code} before it started`);
    }),
  ]);
  return {
    pid: child.pid,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 8000);
      await once(child, 'exit');
      clearTimeout(timer);
    },
  };
}

/**
 * Closes and new chats, `rate` of each per second, until stopped: `close(i)` and `open(i)` are
 * fired on schedule without waiting for the earlier ones (open loop).
 */
function startChurn(rate, { close, open }) {
  const counts = { closes: 0, opens: 0, failed: 0, closeLatencies: [], openLatencies: [] };
  const inFlight = new Set();
  const fire = (work, latencies, key) => {
    const start = performance.now();
    const pending = Promise.resolve()
      .then(work)
      .then((done) => {
        if (done === false) return; // nothing left to close
        latencies.push(performance.now() - start);
        counts[key]++;
      })
      .catch((error) => {
        counts.failed++;
        if (process.env.BENCH_VERBOSE && counts.failed <= 3) console.error(`churn call failed: ${error.message}`);
      })
      .finally(() => inFlight.delete(pending));
    inFlight.add(pending);
  };
  let stopped = false;
  let fired = 0;
  const start = performance.now();
  const loop = (async () => {
    while (!stopped) {
      const due = Math.floor(((performance.now() - start) / 1000) * rate);
      for (; fired < due; fired++) {
        const i = fired;
        fire(() => close(i), counts.closeLatencies, 'closes');
        fire(() => open(i), counts.openLatencies, 'opens');
      }
      await sleep(20);
    }
    await Promise.all(inFlight);
  })();
  return {
    counts,
    stop: async () => {
      stopped = true;
      await loop;
      counts.seconds = (performance.now() - start) / 1000;
      return counts;
    },
  };
}

const ms = (value) => (value === null || value === undefined ? '–' : value.toFixed(0));

const sum = (values) => values.reduce((total, value) => total + value, 0);

/**
 * Runs S1's load on `fx` (scaleFixture) against the API processes `apis` ({url, pid, memory()})
 * with the workers `workers` ({pid}) running. S1 passes one of each and nothing else. S2 passes two
 * of each and `via`, the deployment's proxy:
 * - `via.url`: where every call and socket goes (default: the only API's url);
 * - `via.pid`: the proxy's pid, whose CPU is counted as `proxy`;
 * - `via.staffSocket(index)`: more socket.io-client options of the index-th staff socket (agents
 *   first, in fx.agents order, then the supervisors): S2's sticky cookie;
 * - `via.agentCall(index)` / `via.customerCall(i)`: more `call` options of the index-th agent's
 *   replies and closes, and of the i-th customer (a talking conversation's or a churn's new chat):
 *   S2's cookie, and its spread source addresses.
 * `processes` ({label: pid}): processes whose CPU per message at the best step is also given one
 * by one. `deployment`: what runs, for the detail. `whileConnected({agentSockets})` runs after the
 * load, churn stopped and sockets still open (S2's checks); its answer is returned as `extra`.
 * Answers { value, steps, stepSeconds, slopes, extra, summary, describe() }.
 */
export async function measureS1Load({
  env,
  quick,
  fx,
  db,
  apis,
  workers,
  via = {},
  processes = {},
  deployment = 'apps/worker running',
  whileConnected,
}) {
  const fraction = quick ? 0.1 : 1;
  const stepSeconds = quick ? 3 : 5;
  const slopeSeconds = quick ? 3 : 5;
  const churnRate = 20 * fraction;
  const url = via.url ?? apis[0].url;
  const staffSocket = via.staffSocket ?? (() => ({}));
  const agentCall = via.agentCall ?? (() => ({}));
  const customerCall = via.customerCall ?? (() => ({}));
  const components = { api: apis.map((api) => api.pid), worker: workers.map((worker) => worker.pid), proxy: via.pid ? [via.pid] : [] };
  const processCpu = () => Object.values(processes).map((pid) => processCpuSeconds(pid));
  const memory = async () => {
    const readings = await Promise.all(apis.map((api) => api.memory()));
    return { rss: sum(readings.map((m) => m.rss)), heapUsed: sum(readings.map((m) => m.heapUsed)) };
  };
  const agentIndex = new Map(fx.agents.map((agent, index) => [agent.id, index]));
  const agentCallOf = (agentId) => agentCall(agentIndex.get(agentId));
  const agentSockets = new Map();
  const supervisorSockets = [];
  const pending = new Map();
  const onMessage = (view) => {
    const resolve = pending.get(view.clientMessageId);
    if (resolve) {
      pending.delete(view.clientMessageId);
      resolve(performance.now());
    }
  };
  const connectSupervisors = () =>
    pooled(fx.supervisors, 50, async (user, index) =>
      supervisorSockets.push(await connectSupervisor(url, accessToken(env.JWT_SECRET, user), staffSocket(fx.agents.length + index))),
    );
  const agentTokens = new Map(fx.agents.map((agent) => [agent.id, accessToken(env.JWT_SECRET, agent)]));
  let churn;
  try {
    const connectStart = performance.now();
    await pooled(fx.agents, 50, async (user, index) => {
      const socket = await connect(url, '/staff', agentTokens.get(user.id), {}, staffSocket(index));
      socket.on('message.created', onMessage);
      agentSockets.set(user.id, socket);
    });
    await connectSupervisors();
    const connectSeconds = (performance.now() - connectStart) / 1000;
    await sleep(1000);
    const memoryConnected = await memory();

    // Each agent keeps its first Active conversation for the churn's closes; messages go to the others.
    const closable = [];
    const talking = [];
    const seen = new Set();
    for (const conversation of fx.active) {
      if (seen.has(conversation.agent)) talking.push(conversation);
      else {
        seen.add(conversation.agent);
        closable.push(conversation);
      }
    }
    const visitorTokens = talking.map((c) => visitorToken(env.JWT_SECRET, c.id, c.visitor));

    // Message i: even a customer's, odd the handling agent's reply, both to talking[⌊i/2⌋ mod n].
    let sequence = 0;
    const message = async (latencies) => {
      const i = sequence++;
      const index = Math.floor(i / 2) % talking.length;
      const conversation = talking[index];
      const fromAgent = i % 2 === 1;
      const clientMessageId = randomUUID();
      const start = performance.now();
      const arrived = new Promise((resolve, reject) => {
        pending.set(clientMessageId, resolve);
        setTimeout(() => {
          pending.delete(clientMessageId);
          reject(new Error('not delivered within 20 s'));
        }, 20_000).unref();
      });
      arrived.catch(() => undefined); // awaited below; a failed POST must not leave it unhandled
      const body = { text: `${fromAgent ? 'reply' : 'hi'} ${i}`, clientMessageId };
      if (fromAgent)
        await call(url, `/api/agent/conversations/${conversation.id}/messages`, {
          token: agentTokens.get(conversation.agent),
          body,
          ...agentCallOf(conversation.agent),
        });
      else await call(url, '/api/webchat/conversation/messages', { token: visitorTokens[index], body, ...customerCall(index) });
      const latency = (await arrived) - start;
      (fromAgent ? latencies.agent : latencies.customer).push(latency);
    };

    /** One open-loop window at `rate` total msg/s: latencies, counts and CPU per message by component. */
    const window = async (rate, seconds) => {
      const latencies = { customer: [], agent: [] };
      const before = componentCpuSeconds(components);
      const processesBefore = processCpu();
      const { result: run, loopDelay } = await withLoopDelay(() =>
        openLoop({ rate, seconds, maxInFlight: MAX_IN_FLIGHT }, () => message(latencies)),
      );
      const after = componentCpuSeconds(components);
      const processesAfter = processCpu();
      const all = [...latencies.customer, ...latencies.agent];
      const delivered = all.length;
      const p99 = percentile(all, 99);
      const held = delivered === run.total && !run.skipped && !run.failed && p99 <= P99_LIMIT_MS;
      return {
        rate,
        run,
        delivered,
        held,
        latencies: all,
        p50: percentile(all, 50),
        p99,
        customerP99: percentile(latencies.customer, 99),
        agentP99: percentile(latencies.agent, 99),
        loopDelay,
        before,
        after,
        processCpuPerMessage: processesAfter.map((seconds, i) => (seconds - processesBefore[i]) / Math.max(1, delivered)),
        apiCpuPerMessage: (after.api - before.api) / Math.max(1, delivered),
      };
    };

    let closeNext = 0;
    churn = startChurn(churnRate, {
      close: async () => {
        const conversation = closable[closeNext++];
        if (!conversation) return false;
        await call(url, `/api/agent/conversations/${conversation.id}/close`, {
          token: agentTokens.get(conversation.agent),
          body: { disposition: 'resolved' },
          ...agentCallOf(conversation.agent),
        });
        return true;
      },
      open: async (i) => {
        // A new customer: numbered after the talking conversations' ones (S2: its own source address).
        const customer = customerCall(talking.length + i);
        const chat = await call(url, '/api/webchat/conversations', {
          body: { attentionLineId: fx.lines[i % LINES], name: `Churn customer ${i}` },
          ...customer,
        });
        await call(url, '/api/webchat/conversation/menu', {
          token: chat.visitorToken,
          body: { queryTypeId: 'q', submenuId: 's' },
          ...customer,
        });
      },
    });
    const churnSince = new Date(Date.now() - 1000);
    // BENCH_S1_CHURN_ONLY=<seconds>: only the churn, that long, then stop (with BENCH_PROFILE_DIR,
    // a CPU profile of what a close and a new chat cost the API with every socket connected).
    const churnOnly = Number(process.env.BENCH_S1_CHURN_ONLY ?? 0);
    if (churnOnly > 0) {
      const before = componentCpuSeconds(components);
      await sleep(churnOnly * 1000);
      const after = componentCpuSeconds(components);
      const counts = await churn.stop();
      churn = null;
      const line = `churn only ${churnOnly} s: ${counts.closes} closes (p99 ${ms(percentile(counts.closeLatencies, 99))} ms), ${counts.opens} new chats (p99 ${ms(percentile(counts.openLatencies, 99))} ms), ${counts.failed} failed; ${describeComponentCpu(before, after, counts.closes, 'close + new chat')}`;
      return { value: 0, steps: [], stepSeconds, slopes: {}, extra: undefined, summary: line, describe: () => line };
    }
    // Before any message: what the processes use for the sockets, the churn and their own timers.
    const idleBefore = componentCpuSeconds(components);
    await sleep(2000);
    const idleAfter = componentCpuSeconds(components);
    const idleCores = (key) => `${(((idleAfter[key] - idleBefore[key]) / 2) * 100).toFixed(0)}%`;

    await window(WARM_UP.rate, WARM_UP.seconds);
    const steps = [];
    for (const rate of SWEEP_RATES) {
      const step = await window(rate, stepSeconds);
      steps.push(step);
      if (!step.held) break; // a higher rate will not hold either; the slopes need the time
    }
    const heldSteps = steps.filter((step) => step.held);
    const value = heldSteps.length ? Math.max(...heldSteps.map((step) => step.rate)) : 0;
    const memoryAfterSweep = await memory();
    const slopeRate = value > 0 ? Math.min(value, SLOPE_RATE) : SWEEP_RATES[0];

    // Slope 1: API CPU per message with every supervisor connected, then with none.
    const withSupervisors = await window(slopeRate, slopeSeconds);
    for (const socket of supervisorSockets.splice(0)) socket.close();
    await sleep(1000);
    const withoutSupervisors = await window(slopeRate, slopeSeconds);
    await connectSupervisors();
    await sleep(1000);

    // Slope 2: open conversations half the fixture's (its LiningUp ones deleted), then twice.
    const openCount = async () =>
      Number((await db.query(`SELECT count(*)::int AS n FROM conversations WHERE status <> 'Closed'`)).rows[0].n);
    const fixtureSize = fx.conversations.length;
    const queued = fx.conversations.filter((c) => c.status === 'LiningUp').map((c) => c.id);
    // In chunks, skipping the rows the routing holds: a plain DELETE of them all deadlocked with it.
    for (let start = 0; start < queued.length; start += 1000)
      await db.query(
        `DELETE FROM conversations WHERE id IN (
           SELECT id FROM conversations WHERE id = ANY($1::uuid[]) AND status = 'LiningUp' ORDER BY id FOR UPDATE SKIP LOCKED)`,
        [queued.slice(start, start + 1000)],
      );
    const fewOpen = await openCount();
    await sleep(1000);
    const few = await window(slopeRate, slopeSeconds);
    await insertQueuedConversations(db, fx.lines, Math.max(0, 2 * fixtureSize - (await openCount())));
    await db.query('ANALYZE conversations');
    const manyOpen = await openCount();
    await sleep(1000);
    const many = await window(slopeRate, slopeSeconds);

    const churned = await churn.stop();
    const assigned = Number(
      (
        await db.query(
          `SELECT count(*)::int AS n FROM transition_log WHERE entity_type = 'conversation' AND event = 'conversation.assigned' AND at >= $1`,
          [churnSince],
        )
      ).rows[0].n,
    );
    const memoryAfter = await memory();
    const extra = whileConnected ? await whileConnected({ agentSockets: fx.agents.map((agent) => agentSockets.get(agent.id)) }) : undefined;
    const supervisorSlope = withSupervisors.apiCpuPerMessage / withoutSupervisors.apiCpuPerMessage;
    const conversationSlope = many.apiCpuPerMessage / few.apiCpuPerMessage;
    if (process.env.BENCH_VERBOSE)
      console.error(
        JSON.stringify({
          value,
          steps: steps.map(({ rate, p99, held, run }) => ({ rate, p99, held, run })),
          churned: { ...churned, closeLatencies: undefined, openLatencies: undefined },
        }),
      );

    const mib = (bytes) => `${Math.round(bytes / 2 ** 20)} MiB`;
    const cpuMs = (w) => `${(w.apiCpuPerMessage * 1000).toFixed(2)} ms`;
    const best = heldSteps.at(-1) ?? steps[0];
    const describeStep = (step) =>
      `${step.rate}: p99 ${ms(step.p99)} ms (customer ${ms(step.customerP99)} / agent ${ms(step.agentP99)}), ${step.delivered}/${step.run.total} delivered, ${step.run.skipped} skipped, ${step.run.failed} failed${step.held ? ', held' : ''}`;
    const plural = (list, label) => (list.length > 1 ? `${label} (${list.length} processes)` : label);
    const sweep = steps.map(describeStep).join('; ');
    const perProcess = Object.keys(processes)
      .map((label, i) => `${label} ${(best.processCpuPerMessage[i] * 1000).toFixed(2)} ms`)
      .join(', ');
    const bestCpu =
      `at ${best.rate} msg/s (${describeLoopDelay(best.loopDelay)}): ${describeComponentCpu(best.before, best.after, best.delivered, 'message')}` +
      (perProcess ? `, by process ${perProcess}` : '');
    // What bounds the held rate: at the first step that did not hold (else the last), how much of a
    // core each component used, and how busy the machine's cores were; and what the churn alone took.
    const limiting = steps.find((step) => !step.held) ?? steps.at(-1);
    const coreShare = (key) => `${Math.round(((limiting.after[key] - limiting.before[key]) / stepSeconds) * 100)}%`;
    const bound =
      `at ${limiting.rate} msg/s (${limiting.held ? 'held' : `not held: p99 ${ms(limiting.p99)} ms`}): ${plural(apis, 'API')} ${coreShare('api')}, ` +
      `${plural(workers, 'worker')} ${coreShare('worker')}, PostgreSQL ${coreShare('postgres')}, Redis ${coreShare('redis')}${via.pid ? `, HAProxy ${coreShare('proxy')}` : ''} of one core, ` +
      `${machineBusy(limiting.before, limiting.after, stepSeconds)}; the churn alone (${churnRate} closes + ${churnRate} new chats/s) kept ${plural(apis, 'the API')} at ${idleCores('api')} of one core`;
    return {
      value,
      bound,
      steps,
      stepSeconds,
      slopes: { supervisors: supervisorSlope, conversations: conversationSlope },
      extra,
      /** The sweep's steps and the CPU per message at the best one: S2 quotes its baseline's. */
      summary: `sweep ${sweep}; ${bestCpu}`,
      describe: () =>
        `${quick ? 'QUICK, a tenth: ' : ''}${fx.agentCount} agent + ${fx.supervisorCount} supervisor sockets (connected in ${connectSeconds.toFixed(1)} s), ${fixtureSize} open conversations (${fx.active.length} Active, rest LiningUp on ${LINES} lines), ${deployment}; ` +
        `sweep, msg/s total, customer messages and agent replies 1:1, ${stepSeconds} s steps after ${WARM_UP.seconds} s at ${WARM_UP.rate}, latency POST → the handling agent's socket message.created (a reply: the agent's own echo), held = all delivered and p99 ≤ ${P99_LIMIT_MS} ms: ${sweep}; ` +
        `routing churn ${churnRate} closes + ${churnRate} widget chats (start + menu)/s for ${churned.seconds.toFixed(0)} s: ${churned.closes} closes (p99 ${ms(percentile(churned.closeLatencies, 99))} ms), ${churned.opens} new chats (p99 ${ms(percentile(churned.openLatencies, 99))} ms), ${churned.failed} failed, ${assigned} conversations assigned by the routing meanwhile; ` +
        `before the messages, churn only: ${plural(apis, 'API')} ${idleCores('api')}, ${plural(workers, 'worker')} ${idleCores('worker')}, ${via.pid ? `HAProxy ${idleCores('proxy')}, ` : ''}PostgreSQL ${idleCores('postgres')} of one core; ` +
        `${bestCpu}; ` +
        `slopes at ${slopeRate} msg/s, API CPU per message: ${fx.supervisorCount} vs 0 supervisors ${cpuMs(withSupervisors)} / ${cpuMs(withoutSupervisors)} = ${supervisorSlope.toFixed(2)}× (goal ≤ 1.2×; p99 ${ms(withSupervisors.p99)} / ${ms(withoutSupervisors.p99)} ms), ` +
        `${manyOpen} vs ${fewOpen} open conversations ${cpuMs(many)} / ${cpuMs(few)} = ${conversationSlope.toFixed(2)}× (goal ≤ 1.1×; p99 ${ms(many.p99)} / ${ms(few.p99)} ms); ` +
        `${plural(apis, 'API')} RSS ${mib(memoryConnected.rss)} connected → ${mib(memoryAfterSweep.rss)} after the sweep → ${mib(memoryAfter.rss)} at the end, heap ${mib(memoryAfter.heapUsed)}`,
    };
  } finally {
    await churn?.stop(); // idempotent: a failed run must not leave the churn calling a stopped API
    for (const socket of [...agentSockets.values(), ...supervisorSockets]) socket.close();
  }
}

/**
 * S1's load (measureS1Load) on a fresh fixture against one API process and one worker: S1 itself
 * (`tag` "s1") and S2's same-run baseline (its own tag: the fixture's users and lines are new).
 * The fixture is retired at the end (retireScaleFixture).
 */
export async function measureOneProcess({ env, quick, databaseUrl, tag }) {
  const db = pool(databaseUrl, 4);
  const stops = [];
  let fx;
  try {
    fx = await scaleFixture(db, { quick, tag });
    // The API and the worker share one queue prefix, as a deployment's processes do.
    const shared = {
      ...env,
      QUEUE_PREFIX: `${env.QUEUE_PREFIX}-${tag}-${Date.now().toString(36)}`,
      RATE_LIMIT_WEBCHAT_MESSAGES: '1000000',
      RATE_LIMIT_WEBCHAT_START_IP: '1000000',
    };
    // BENCH_PROFILE_DIR=<dir>: the API child also writes a V8 CPU profile there when it stops.
    const api = await startIpcServer(path.join(here, 'servers/api-server-ipc.cjs'), shared, [
      '--expose-gc',
      ...(process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : []),
    ]);
    stops.push(() => api.stop());
    const worker = await startWorker(shared);
    stops.push(() => worker.stop());
    return await measureS1Load({ env, quick, fx, db, apis: [api], workers: [worker] });
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    // After the processes stopped: the next run on this database (S2 after S1, S2's two sides) starts as this one did.
    if (fx) await retireScaleFixture(db, fx).catch((error) => console.error(`${tag}: retiring the fixture failed: ${error.message}`));
    await db.end();
  }
}
