// P3: agent state change → supervisor board. Agents alternate POST /api/agent/presence/pause and
// /available; every supervisor socket on /staff (auto-joined to the tenant room; connected as the
// console does, the tenant-wide stream in batches, STAFF_BATCH_AUTH) must receive the matching
// agent.updated (same agent, same version). Latency per delivery = receipt − request start, p99
// over every (event, supervisor) pair. Baseline: a bare Socket.IO server broadcasting
// to a room of the same number of clients, triggered by a client emit, same counts and pacing.
import path from 'node:path';
import { startServer } from './lib.mjs';
import {
  accessToken,
  call,
  connect,
  connectSupervisor,
  createUsers,
  drainOutbox,
  here,
  percentile,
  pool,
  pooled,
  startApi,
} from './realtime-fixtures.mjs';

const pct = (share) => `${Math.round(share * 100)}%`;

/**
 * Runs `run` (resolving latencies) and reads the CPU the server and this process (the load
 * generator, sharing the two cores with it) used meanwhile, as shares of one core.
 */
async function cpuOf(server, run) {
  const started = performance.now();
  const benchBefore = process.cpuUsage();
  const serverBefore = server.cpuSeconds();
  const latencies = await run();
  const wall = (performance.now() - started) / 1000;
  const used = process.cpuUsage(benchBefore);
  return { latencies, wall, bench: (used.user + used.system) / 1e6 / wall, server: (server.cpuSeconds() - serverBefore) / wall };
}

/** Runs `rounds` changes per trigger, one at a time each; resolves the latencies of every delivery. */
async function measure({ triggers, audience, rounds, fire }) {
  const latencies = [];
  const waiting = new Map();
  const onBoard = (key) => {
    const entry = waiting.get(key);
    if (!entry) return;
    latencies.push(performance.now() - entry.start);
    if (--entry.left === 0) {
      waiting.delete(key);
      entry.done();
    }
  };
  for (const socket of audience) socket.on('board', onBoard);
  await Promise.all(
    triggers.map(async (trigger, t) => {
      for (let round = 0; round < rounds; round++) {
        const start = performance.now();
        let done;
        const delivered = new Promise((resolve) => (done = resolve));
        const key = await fire(trigger, round, t, (k) => waiting.set(k, { start, left: audience.length, done }));
        const timeout = setTimeout(() => {
          waiting.delete(key);
          done();
        }, 5000);
        await delivered;
        clearTimeout(timeout);
      }
    }),
  );
  for (const socket of audience) socket.off('board', onBoard);
  return latencies;
}

export default {
  id: 'P3',
  title: 'Agent state change → supervisor board p99 vs a raw Socket.IO room broadcast',
  goal: { ratio: 2, direction: 'max' },
  async run({ env, quick, databaseUrl }) {
    const supervisorCount = quick ? 10 : 50;
    const agentCount = 10;
    const rounds = quick ? 10 : 40;
    const db = pool(databaseUrl, 2);
    const supervisors = await createUsers(db, { count: supervisorCount, role: 'SUPER', tag: 'p3s' });
    const agents = await createUsers(db, { count: agentCount, role: 'AGENT', tag: 'p3a' });
    const api = await startApi(env, 'p3');
    const bare = await startServer(path.join(here, 'servers/bare-socketio.cjs'), env);
    const sockets = [];
    try {
      // Real run.
      // Supervisors as the console connects them: the tenant-wide stream in batches (STAFF_BATCH_AUTH).
      const board = await pooled(supervisors, 20, (user) => connectSupervisor(api.url, accessToken(env.JWT_SECRET, user)));
      sockets.push(...board);
      // agent.updated → 'board' key (agentId@version), so one listener shape serves both runs.
      for (const socket of board)
        socket.on('agent.updated', (view) => socket.listeners('board').forEach((fn) => fn(`${view.agentId}@${view.version}`)));
      const tokens = agents.map((user) => ({ user, token: accessToken(env.JWT_SECRET, user) }));
      for (const agent of tokens) await call(api.url, '/api/agent/presence/login', { token: agent.token, body: {} });
      const status = new Map(tokens.map((agent) => [agent.user.id, 'available']));
      const fireReal = async (agent, round, t, expect) => {
        // The version is only known from the answer; the push may arrive first, so register
        // by the version we expect next (current + 1) before sending.
        const pausing = status.get(agent.user.id) !== 'paused';
        const current = agent.version ?? (await call(api.url, '/api/agent/presence', { token: agent.token })).version;
        const key = `${agent.user.id}@${current + 1}`;
        expect(key);
        const view = pausing
          ? await call(api.url, '/api/agent/presence/pause', { token: agent.token, body: { reasonId: 'break' } })
          : await call(api.url, '/api/agent/presence/available', { token: agent.token, body: {} });
        if (view.version !== current + 1) throw new Error(`unexpected version ${view.version} after ${current}`);
        agent.version = view.version;
        status.set(agent.user.id, view.status);
        return key;
      };
      await drainOutbox(db, 20_000);
      await measure({ triggers: tokens, audience: board, rounds: 4, fire: fireReal }); // warm-up
      const realRun = await cpuOf(api, () => measure({ triggers: tokens, audience: board, rounds, fire: fireReal }));
      const real = realRun.latencies;
      // Baseline: same audience size, same number of triggers and rounds.
      const room = 'tenant:bench';
      const joined = await pooled(supervisors, 20, () => connect(bare.url, '', null, { room }));
      sockets.push(...joined);
      for (const socket of joined) socket.on('update', (key) => socket.listeners('board').forEach((fn) => fn(key)));
      const senders = await pooled(agents, 10, () => connect(bare.url, '', null));
      sockets.push(...senders);
      const fireRaw = async (sender, round, t, expect) => {
        const key = `${t}@${round}@${Math.random()}`;
        expect(key);
        sender.emit('broadcast', { room, event: 'update', data: key });
        return key;
      };
      await measure({ triggers: senders, audience: joined, rounds: 4, fire: fireRaw }); // warm-up
      const rawRun = await cpuOf(bare, () => measure({ triggers: senders, audience: joined, rounds, fire: fireRaw }));
      const raw = rawRun.latencies;
      const expected = agentCount * rounds * supervisorCount;
      if (real.length < expected * 0.99) throw new Error(`only ${real.length} of ${expected} agent.updated deliveries arrived`);
      const value = percentile(real, 99);
      const baseline = percentile(raw, 99);
      return {
        value,
        baseline,
        ratio: value / baseline,
        unit: 'ms p99',
        detail: `${agentCount} agents × ${rounds} pause/available changes (one in flight per agent) → ${supervisorCount} supervisor sockets, ${real.length} deliveries; p50 ${percentile(real, 50).toFixed(1)} ms vs ${percentile(raw, 50).toFixed(1)} ms raw (bare socket.io, in-memory adapter); absolute p99 ${value.toFixed(1)} ms (cap 1 s); ${realRun.wall.toFixed(2)} s vs ${rawRun.wall.toFixed(2)} s for the changes, CPU of a core meanwhile: server ${pct(realRun.server)} vs ${pct(rawRun.server)}, load generator ${pct(realRun.bench)} vs ${pct(rawRun.bench)}`,
      };
    } finally {
      for (const socket of sockets) socket.close();
      await api.stop();
      await bare.stop();
      await db.end();
    }
  },
};
