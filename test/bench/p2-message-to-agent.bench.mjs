// P2: customer message → agent screen p99. Agents are logged in with /staff sockets, every
// conversation is Active with one of them; customers POST /api/webchat/conversation/messages at a
// steady offered rate (open loop, round-robin over conversations) and the latency is request start
// → the agent's socket receiving message.created (matched by clientMessageId). The rate is 500
// msg/s when sustainable, else the highest of 60 / 125 / 250 msg/s that a 2 s probe sustains
// (everything delivered, none failed, p99 under 1 s). Baseline (QUALITY.md): the raw message
// pipeline at the same rate, same run (measureRawPipeline): bare node:http → one INSERT of the
// message row → message.created emitted on the API's own Redis streams adapter, which the API
// relays to the same agent sockets; same generator, same HTTP client, same conversations.
// CPU per message of both runs (API, PostgreSQL, Redis, load generator; the raw server in the raw
// run) is in the detail.
import { randomUUID } from 'node:crypto';
import {
  accessToken,
  call,
  connect,
  createCampaign,
  createLine,
  createUsers,
  drainOutbox,
  heldRate,
  linkAgents,
  measureRawPipeline,
  openLoop,
  percentile,
  pool,
  pooled,
  startApi,
  until,
  withLoopDelay,
  describeLoopDelay,
} from './realtime-fixtures.mjs';
import { componentCpuSeconds, cpuGapBoundPerUnit, describeComponentCpu, machineBusy } from './lib.mjs';

const RATES = [500, 250, 125, 60];

export default {
  id: 'P2',
  title: 'Customer message → agent screen p99 vs raw message pipeline (bare HTTP → one INSERT → same adapter, same sockets)',
  goal: { ratio: 1.5, direction: 'max' },
  async run({ env, quick, databaseUrl }) {
    const agentCount = quick ? 20 : 40;
    const conversationCount = agentCount * 5;
    const seconds = quick ? 3 : 10;
    const db = pool(databaseUrl, 10);
    const lineId = await createLine(db, 'p2');
    const campaignId = await createCampaign(db, 5);
    const agents = await createUsers(db, { count: agentCount, role: 'AGENT', tag: 'p2' });
    await linkAgents(db, agents, lineId);
    const api = await startApi(env, 'p2');
    const sockets = [];
    try {
      const pending = new Map();
      const desks = await pooled(agents, 10, async (user) => {
        const token = accessToken(env.JWT_SECRET, user);
        const socket = await connect(api.url, '/staff', token);
        sockets.push(socket);
        socket.on('message.created', (view) => {
          const entry = pending.get(view.clientMessageId);
          if (entry) {
            pending.delete(view.clientMessageId);
            entry(performance.now());
          }
        });
        await call(api.url, '/api/agent/presence/login', { token, body: { campaignId } });
        return socket;
      });
      const chats = await pooled(Array.from({ length: conversationCount }), 16, async (_, i) => {
        const chat = await call(api.url, '/api/webchat/conversations', { body: { attentionLineId: lineId, name: `Customer ${i}` } });
        await call(api.url, '/api/webchat/conversation/menu', { token: chat.visitorToken, body: { queryTypeId: 'q', submenuId: 's' } });
        return chat;
      });
      await until(
        async () =>
          (await db.query(`SELECT count(*)::int AS n FROM conversations WHERE attention_line_id = $1 AND status = 'Active'`, [lineId]))
            .rows[0].n >= conversationCount,
        60_000,
        'every conversation assigned',
      );
      void desks;
      const setupBacklog = await drainOutbox(db, 30_000);

      const send = async (rate, secs) => {
        const latencies = [];
        const run = await openLoop({ rate, seconds: secs, maxInFlight: rate * 2 }, async (i) => {
          const chat = chats[i % chats.length];
          const clientMessageId = randomUUID();
          const start = performance.now();
          const delivered = new Promise((resolve, reject) => {
            pending.set(clientMessageId, resolve);
            setTimeout(() => reject(new Error('not delivered within 20 s')), 20_000).unref();
          });
          delivered.catch(() => undefined); // awaited below; a failed POST must not leave it unhandled
          await call(api.url, '/api/webchat/conversation/messages', {
            token: chat.visitorToken,
            body: { text: `hello ${i}`, clientMessageId },
          });
          latencies.push((await delivered) - start);
        });
        pending.clear();
        return { ...run, latencies, p99: percentile(latencies, 99) };
      };

      // Find the rate: 500 msg/s if sustainable, else the highest step a 2 s probe sustains (ascending).
      await send(30, 1); // warm-up
      let rate = RATES.at(-1);
      const probes = [];
      for (const candidate of [...RATES].reverse()) {
        const probe = await send(candidate, 2);
        const ok = heldRate(probe, probe.latencies);
        probes.push(
          `${candidate}/s ${ok ? 'held' : 'not held'} (p99 ${probe.p99?.toFixed(0)} ms${probe.failed || probe.skipped ? `, ${probe.failed} failed, ${probe.skipped} skipped` : ''})`,
        );
        if (!ok) break;
        rate = candidate;
        await drainOutbox(db, 10_000);
      }
      await drainOutbox(db, 20_000);
      const cpuBefore = componentCpuSeconds({ api: [api.pid] });
      const sendStart = performance.now();
      const { result: measured, loopDelay } = await withLoopDelay(() => send(rate, seconds));
      const cpuAfter = componentCpuSeconds({ api: [api.pid] });
      const busy = machineBusy(cpuBefore, cpuAfter, (performance.now() - sendStart) / 1000);
      const productCpu = describeComponentCpu(cpuBefore, cpuAfter, measured.total - measured.skipped, 'message');
      const after = await drainOutbox(db, 30_000);

      // The raw pipeline at the same rate, through the same API's adapter to the same agent sockets.
      const {
        parts,
        baseline,
        describe: describeRaw,
      } = await measureRawPipeline({
        env,
        db,
        api,
        sockets,
        rate,
        seconds,
        conversationIds: chats.map((chat) => chat.conversation.id),
      });
      const value = measured.p99;
      if (process.env.BENCH_VERBOSE)
        console.error(JSON.stringify({ rate, probes, raw: { p99: parts.p99, p50: parts.p50, cpu: parts.cpu }, p99: value }));
      const productPer = (key) => ((cpuAfter[key] - cpuBefore[key]) * 1000) / Math.max(1, measured.total - measured.skipped);
      return {
        value,
        baseline,
        ratio: value / baseline,
        unit: 'ms p99',
        // At one offered rate, latency is the work per message queued on the cores: the raw side's API is the raw server plus the API relaying.
        bound: `${cpuGapBoundPerUnit(
          { api: productPer('api'), postgres: productPer('postgres'), redis: productPer('redis') },
          { api: parts.cpu.rawServer + parts.cpu.api, postgres: parts.cpu.postgres, redis: parts.cpu.redis },
          'message',
        )}; ${busy} during the product run`,
        detail: `${rate} msg/s offered for ${seconds} s${measured.failed || measured.skipped ? ` (${measured.failed} not delivered within 20 s, ${measured.skipped} skipped)` : ''} over ${conversationCount} Active conversations and ${agentCount} agent sockets (2 s probes: ${probes.join(', ')}); absolute p99 ${value.toFixed(1)} ms, p50 ${percentile(measured.latencies, 50).toFixed(1)} ms (cap 100 ms at 500 msg/s), ${describeLoopDelay(loopDelay)}; ${productCpu}; baseline: ${describeRaw()}; outbox backlog after the run ${after.initial} rows${after.left ? `, ${after.left} left after ${after.seconds.toFixed(0)} s` : ''} (after setup ${setupBacklog.initial})`,
      };
    } finally {
      for (const socket of sockets) socket.close();
      for (const stop of [() => api.stop(), () => db.end()]) await stop().catch(() => undefined);
    }
  },
};
