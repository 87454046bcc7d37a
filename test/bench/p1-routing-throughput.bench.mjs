// P1: routing throughput. N web-chat conversations are started (untimed), then each customer
// completes the menu (POST /api/webchat/conversation/menu, 32 in flight): conversation.menuCompleted
// → LiningUp (one transaction), the outbox relay enqueues a routing job, the API's routing worker
// assigns under the line lock (agent.conversationAssigned + conversation.assigned, one transaction)
// and pushes. Throughput = N / (first menu call → last conversation Active in the database).
// Baseline: a raw BullMQ add (32 in flight) + process of an empty job by a bare worker child
// (concurrency 16), N jobs, same Redis, same run.
import {
  call,
  drainOutbox,
  createCampaign,
  createLine,
  createUsers,
  accessToken,
  linkAgents,
  pool,
  pooled,
  rawQueue,
  startApi,
  until,
} from './realtime-fixtures.mjs';

const IN_FLIGHT = 32;

export default {
  id: 'P1',
  title: 'Routing throughput (menu event → transition → DB → assignment) vs raw BullMQ add+process',
  goal: { ratio: 0.35, direction: 'min' },
  async run({ env, quick, databaseUrl }) {
    const n = quick ? 300 : 1500;
    const db = pool(databaseUrl, 4);
    const lineId = await createLine(db, 'p1');
    const campaignId = await createCampaign(db, 5);
    const agents = await createUsers(db, { count: Math.ceil(n / 5), role: 'AGENT', tag: 'p1' });
    await linkAgents(db, agents, lineId);
    // Routing sweeps only as a safety net; the measured path is the job the menu event enqueues.
    const api = await startApi(env, 'p1', { ROUTING_SWEEP_MS: '60000' });
    const raw = await rawQueue(env, 'p1');
    try {
      await pooled(agents, 10, (user) =>
        call(api.url, '/api/agent/presence/login', { token: accessToken(env.JWT_SECRET, user), body: { campaignId } }),
      );
      const chats = await pooled(Array.from({ length: n }), 16, (_, i) =>
        call(api.url, '/api/webchat/conversations', { body: { attentionLineId: lineId, name: `Customer ${i}` } }),
      );
      const active = async () =>
        Number(
          (await db.query(`SELECT count(*)::int AS n FROM conversations WHERE attention_line_id = $1 AND status = 'Active'`, [lineId]))
            .rows[0].n,
        );

      const routedStart = performance.now();
      await pooled(chats, IN_FLIGHT, (chat) =>
        call(api.url, '/api/webchat/conversation/menu', { token: chat.visitorToken, body: { queryTypeId: 'sales', submenuId: 'new' } }),
      );
      const menusDone = performance.now();
      await until(async () => (await active()) >= n, 90_000, `${n} conversations assigned`);
      const routedSeconds = (performance.now() - routedStart) / 1000;
      const value = n / routedSeconds;
      // The relay still owes pushes and routing jobs: let it finish before the baseline (and the next benchmark).
      const drained = await drainOutbox(db, quick ? 15_000 : 45_000);

      // Baseline: warm up, then N empty jobs added with the same concurrency and processed.
      await pooled(Array.from({ length: 200 }), IN_FLIGHT, () => raw.add());
      await raw.waitFor(200);
      raw.reset();
      const rawStart = performance.now();
      await pooled(Array.from({ length: n }), IN_FLIGHT, () => raw.add());
      await raw.waitFor(n);
      const baseline = n / ((performance.now() - rawStart) / 1000);
      return {
        value,
        baseline,
        ratio: value / baseline,
        unit: 'assignments/s',
        detail: `${n} conversations, ${agents.length} agents × capacity 5 on one line, ${IN_FLIGHT} menu calls in flight (calls done in ${((menusDone - routedStart) / 1000).toFixed(1)} s, all Active after ${routedSeconds.toFixed(1)} s) vs ${n} empty BullMQ jobs (worker concurrency 16); outbox backlog when all were Active: ${drained.initial} rows, ${drained.left ? `${drained.left} still undelivered after ${drained.seconds.toFixed(0)} s` : `drained in ${drained.seconds.toFixed(1)} s`}`,
      };
    } finally {
      await raw.close();
      await api.stop();
      await db.end();
    }
  },
};
