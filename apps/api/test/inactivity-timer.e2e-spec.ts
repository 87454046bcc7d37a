import { QUEUES, type StartChatResult } from '@centralita/contracts';
import { Queue } from 'bullmq';
import { eventually } from '../../../test/support/eventually';
import { createCampaign, createLine, createStaff, createTenant, data } from './support/realtime';
import { bearer, startTestApp, type TestApp } from './support/test-app';

jest.setTimeout(60_000);

/**
 * The inactivity timer is armed once per assignment, not once per message: a customer's messages
 * only move the conversation's last activity, and a timer that fires after newer activity re-arms
 * itself for the rest of the timeout. The chat still closes exactly one timeout after the last
 * message.
 */
// Its own queues (and no outbox poller): another suite's API would run this suite's timers with its
// own, 30-minute, inactivity timeout.
const PREFIX = `${process.env.QUEUE_PREFIX ?? 'centralita'}-inactivity`;
const TIMEOUT_S = 2;

describe('inactivity timer', () => {
  let t: TestApp;
  let timers: Queue;
  const saved = { timeout: process.env.INACTIVITY_TIMEOUT_SECONDS, poll: process.env.OUTBOX_POLL_MS };

  beforeAll(async () => {
    process.env.INACTIVITY_TIMEOUT_SECONDS = String(TIMEOUT_S);
    process.env.OUTBOX_POLL_MS = '3600000';
    t = await startTestApp({ queuePrefix: PREFIX }, { ownDatabase: true });
    timers = new Queue(QUEUES.machineTimers, { connection: { url: process.env.REDIS_URL! }, prefix: PREFIX });
  });
  afterAll(async () => {
    await timers.obliterate({ force: true }).catch(() => undefined);
    await timers.close();
    await t.close();
    for (const [name, value] of [
      ['INACTIVITY_TIMEOUT_SECONDS', saved.timeout],
      ['OUTBOX_POLL_MS', saved.poll],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('keeps one timer while the customer writes, and closes one timeout after the last message', async () => {
    const tenant = await createTenant(t.dataSource);
    const line = await createLine(t.dataSource, tenant, 'Chatty');
    const campaignId = await createCampaign(t.dataSource, tenant, 1);
    const agent = await createStaff(t, tenant, 'AGENT', [line]);
    await t.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId }).expect(200);
    const started = data<StartChatResult>(
      await t.http().post('/api/webchat/conversations').send({ attentionLineId: line, name: 'Chatty' }),
    );
    const id = started.conversation.id;
    await t
      .http()
      .post('/api/webchat/conversation/menu')
      .set(bearer(started.visitorToken))
      .send({ queryTypeId: 'q', submenuId: 's' })
      .expect(200);
    const status = async () =>
      (
        (await t.dataSource.query(`SELECT status, snapshot FROM conversations WHERE id = $1`, [id])) as {
          status: string;
          snapshot: { context: { lastActivityAt: number; inactivityArmedAt: number; closeReason: string | null; closedAt: number | null } };
        }[]
      )[0];
    await eventually(async () => expect((await status()).status).toBe('Active'), { timeoutMs: 10_000 });
    const armedAt = (await status()).snapshot.context.inactivityArmedAt;
    // The timer is an effect: the outbox relay schedules it after the commit that made the chat Active.
    await eventually(async () => expect(await timers.getJob(`cin.${id}.${armedAt}`)).toBeDefined());

    // Messages within the timeout: no timer work, the conversation stays open past the first timer.
    let lastMessageAt = 0;
    for (let i = 0; i < 5; i++) {
      await t
        .http()
        .post('/api/webchat/conversation/messages')
        .set(bearer(started.visitorToken))
        .send({ text: `still here ${i}` })
        .expect(200);
      lastMessageAt = (await status()).snapshot.context.lastActivityAt;
      await new Promise((resolve) => setTimeout(resolve, 300)); // the customer's pace, not a wait for the system
    }
    const timerJobs = (await timers.getJobs(['delayed', 'waiting', 'active', 'completed'])).filter((job) =>
      job.id?.startsWith(`cin.${id}.`),
    );
    // Messages arm nothing: only a timer that fires re-arms the next one (for what is left of the
    // timeout). On a slow machine the first timer may fire while the customer is still writing.
    const firings = Math.floor((Date.now() - armedAt) / (TIMEOUT_S * 1000));
    expect(timerJobs.length).toBeGreaterThanOrEqual(1);
    expect(timerJobs.length).toBeLessThanOrEqual(1 + firings);

    const closed = await eventually(
      async () => {
        const row = await status();
        expect(row.status).toBe('Closed');
        return row.snapshot.context;
      },
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    expect(closed.closeReason).toBe('inactivity');
    // One timeout after the last message, not after the first timer.
    expect(closed.closedAt! - lastMessageAt).toBeGreaterThanOrEqual(TIMEOUT_S * 1000);
    const log = (await t.dataSource.query(
      `SELECT from_state, to_state FROM transition_log WHERE entity_type = 'conversation' AND entity_id = $1 AND event = 'conversation.inactivityTimedOut' ORDER BY version`,
      [id],
    )) as { from_state: string; to_state: string }[];
    // The first timer found newer activity and re-armed (Active → Active); the last one closed.
    expect(log.at(-1)).toEqual({ from_state: 'Active', to_state: 'Closed' });
    expect(log.slice(0, -1).every((row) => row.to_state === 'Active')).toBe(true);
    expect(log.length).toBeGreaterThanOrEqual(2);
  });
});
