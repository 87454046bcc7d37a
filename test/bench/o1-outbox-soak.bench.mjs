// O1 (issue 18's must-show "outbox rows do not grow over a 10-minute soak"): customers write to
// Active web-chat conversations at a steady rate for 10 minutes (--quick: 1 minute) against one API
// process whose delivered outbox rows are kept OUTBOX_RETENTION_SECONDS (60 s here; 10 s quick) and
// swept every few seconds. The outbox's row count is sampled every half minute (every 5 s quick).
// Once the retention has passed the table is in a steady state: rows written per second × the
// retention. Value: the rows at the end; baseline: the rows at the start of the steady state; goal
// ≤ 1.25× (a table that grows keeps climbing past it). The slope over the steady part is recorded.
import { randomUUID } from 'node:crypto';
import {
  accessToken,
  call,
  connect,
  createCampaign,
  createLine,
  createUsers,
  linkAgents,
  openLoop,
  pool,
  pooled,
  startApi,
  until,
} from './realtime-fixtures.mjs';

export default {
  id: 'O1',
  title:
    'Outbox rows over a 10-minute soak (delivered rows swept after their retention): rows at the end vs at the start of the steady state',
  goal: { ratio: 1.25, direction: 'max' },
  async run({ env, quick, databaseUrl }) {
    const rate = quick ? 50 : 100;
    const soakSeconds = quick ? 60 : 600;
    const sampleSeconds = quick ? 5 : 30;
    const retentionSeconds = quick ? 10 : 60;
    const sweepMs = quick ? 1000 : 5000;
    const agentCount = 10;
    const conversationCount = agentCount * 5;
    const db = pool(databaseUrl, 4);
    const lineId = await createLine(db, 'o1');
    const campaignId = await createCampaign(db, 5);
    const agents = await createUsers(db, { count: agentCount, role: 'AGENT', tag: 'o1' });
    await linkAgents(db, agents, lineId);
    const api = await startApi(env, 'o1', { OUTBOX_RETENTION_SECONDS: String(retentionSeconds), OUTBOX_SWEEP_MS: String(sweepMs) });
    const sockets = [];
    try {
      await pooled(agents, 10, async (user) => {
        const token = accessToken(env.JWT_SECRET, user);
        sockets.push(await connect(api.url, '/staff', token));
        await call(api.url, '/api/agent/presence/login', { token, body: { campaignId } });
      });
      const chats = await pooled(Array.from({ length: conversationCount }), 16, async (_, i) => {
        const chat = await call(api.url, '/api/webchat/conversations', { body: { attentionLineId: lineId, name: `Soak ${i}` } });
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

      const count = async () =>
        (await db.query(`SELECT count(*)::int AS rows, count(*) FILTER (WHERE delivered_at IS NULL)::int AS undelivered FROM outbox`))
          .rows[0];
      const samples = [];
      let next = 0;
      let failed = 0;
      let skipped = 0;
      const start = performance.now();
      while (performance.now() - start < soakSeconds * 1000) {
        const chunk = await openLoop({ rate, seconds: sampleSeconds, maxInFlight: rate * 2 }, async () => {
          const chat = chats[next++ % chats.length];
          await call(api.url, '/api/webchat/conversation/messages', {
            token: chat.visitorToken,
            body: { text: `soak ${next}`, clientMessageId: randomUUID() },
          });
        });
        failed += chunk.failed;
        skipped += chunk.skipped;
        samples.push({ at: (performance.now() - start) / 1000, ...(await count()) });
      }

      // The steady state begins once the first rows delivered are past the retention and a sweep has run.
      const steadyFrom = retentionSeconds + (2 * sweepMs) / 1000 + sampleSeconds;
      const steady = samples.filter((sample) => sample.at >= steadyFrom);
      const first = steady[0] ?? samples.at(-1);
      const last = samples.at(-1);
      const slope = slopePerMinute(steady.map((sample) => [sample.at, sample.rows]));
      const sent = next - failed;
      return {
        value: last.rows,
        baseline: first.rows,
        ratio: last.rows / Math.max(1, first.rows),
        unit: 'outbox rows',
        detail:
          `${rate} customer messages/s for ${Math.round(samples.at(-1).at)} s (${sent} sent${failed ? `, ${failed} failed` : ''}${skipped ? `, ${skipped} skipped` : ''}) over ${conversationCount} Active web-chat conversations; ` +
          `OUTBOX_RETENTION_SECONDS=${retentionSeconds}, OUTBOX_SWEEP_MS=${sweepMs}; rows ${first.rows} at ${Math.round(first.at)} s (steady state) → ${last.rows} at ${Math.round(last.at)} s, ` +
          `slope ${slope.toFixed(0)} rows/min over the steady part (${steady.length} samples), ` +
          `most ${Math.max(...samples.map((sample) => sample.rows))} rows, undelivered at the end ${last.undelivered}; samples every ${sampleSeconds} s: ${samples.map((sample) => sample.rows).join(' ')}`,
      };
    } finally {
      for (const socket of sockets) socket.close();
      for (const stop of [() => api.stop(), () => db.end()]) await stop().catch(() => undefined);
    }
  },
};

/** Least-squares slope of [seconds, value] points, per minute (0 with fewer than two points). */
function slopePerMinute(points) {
  if (points.length < 2) return 0;
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / points.length;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / points.length;
  const numerator = points.reduce((sum, [x, y]) => sum + (x - meanX) * (y - meanY), 0);
  const denominator = points.reduce((sum, [x]) => sum + (x - meanX) ** 2, 0);
  return denominator ? (numerator / denominator) * 60 : 0;
}
