import { OUTBOUND_SOCKET_EVENTS, type OutboundBoardView } from '@centralita/contracts';
import Redis from 'ioredis';
import { Dialer } from '../../worker/src/dialer/dialer';
import { SimulatedCarrier } from '../../worker/src/telephony/simulated-carrier';
import { eventually as eventuallyWithin } from '../../../test/support/eventually';
import { createTenant, createUser, type TestTenant } from './support/factories';
import { ALWAYS_OPEN, createPhoneList } from './support/outbound';
import { connectStaff, record, type StaffSocket } from './support/realtime';
import { bearer, login, startTestApp, type TestApp } from './support/test-app';

const eventually = <T>(assertion: () => T | Promise<T>) => eventuallyWithin(assertion, { intervalMs: 50, timeoutMs: 20_000 });

/**
 * Issue 24 item 7: a running campaign that dials nobody says why and until when. The dialer
 * records the reason of an empty round on the campaign; the board shows it, and clears it once the
 * campaign dials again.
 */
// Own queues, like the other dialer suites: one consumer applies a call's carrier events in order.
const PREFIX = `${process.env.QUEUE_PREFIX ?? 'centralita'}-dialer-idle`;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const MADRID = '+34912345678';
/** Wednesday 15 January 2025, 08:30 in Madrid (UTC+1). */
const WEDNESDAY_0830_MADRID = Date.UTC(2025, 0, 15, 7, 30);
const WEEKDAYS_9_TO_21 = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((day) => [day, [{ from: '09:00', to: '21:00' }]]));

describe('outbound dialer: why a running campaign dials nobody (e2e)', () => {
  let t: TestApp;
  let redis: Redis;
  const dialers: Dialer[] = [];
  const carriers: SimulatedCarrier[] = [];
  const sockets: StaffSocket[] = [];

  beforeAll(async () => {
    const poll = process.env.OUTBOX_POLL_MS;
    process.env.OUTBOX_POLL_MS = '3600000';
    t = await startTestApp({ queuePrefix: PREFIX }, { ownDatabase: true });
    if (poll === undefined) delete process.env.OUTBOX_POLL_MS;
    else process.env.OUTBOX_POLL_MS = poll;
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    for (const dialer of dialers) await dialer.stop();
    for (const carrier of carriers) await carrier.close();
    redis.disconnect();
    await t.close();
  });

  async function startDialer(tenant: TestTenant, now?: () => number): Promise<Dialer> {
    const carrier = new SimulatedCarrier({
      seed: 7,
      profile: { answerRate: 0, machineRate: 0, busyRate: 0, failedRate: 0, ringSec: { min: 60, max: 61 } },
    });
    carriers.push(carrier);
    const dialer = new Dialer({
      dataSource: t.dataSource,
      redis,
      redisUrl: REDIS_URL,
      queuePrefix: PREFIX,
      telephony: carrier,
      tickMs: 100,
      ringTimeoutSec: 25,
      maxCallsPerTick: 20,
      tenantIds: [tenant.client.id],
      driver: 'interval',
      now,
    });
    dialers.push(dialer);
    await dialer.start();
    return dialer;
  }

  async function staff(tenant: TestTenant, role: 'ADMIN' | 'AGENT') {
    const { user, email, password } = await createUser(t.dataSource, tenant, { role });
    return { id: user.id, token: (await login(t, email, password)).accessToken };
  }

  async function runningCampaign(tenant: TestTenant, token: string, callingWindows: object): Promise<string> {
    const phoneListId = await createPhoneList(t.dataSource, tenant, [{ phone: MADRID, name: 'Ana' }]);
    const created = await t
      .http()
      .post('/api/outbound/campaigns')
      .set(bearer(token))
      .send({ name: 'Idle', phoneListId, mode: 'progressive', callingWindows });
    if (created.status !== 200) throw new Error(JSON.stringify(created.body));
    const id = created.body.data.id as string;
    await t.http().post(`/api/outbound/campaigns/${id}/start`).set(bearer(token)).expect(200);
    return id;
  }

  const board = async (token: string, id: string) =>
    (await t.http().get(`/api/outbound/campaigns/${id}/board`).set(bearer(token)).expect(200)).body.data as OutboundBoardView;
  const callsOf = async (id: string) =>
    ((await t.dataSource.query(`SELECT count(*)::int AS n FROM outbound_calls WHERE campaign_id = $1`, [id])) as { n: number }[])[0].n;

  async function waitForCall(token: string): Promise<void> {
    await t.http().post('/api/agent/presence/login').set(bearer(token)).send({}).expect(200);
    await t.http().post('/api/outbound/agent/waiting').set(bearer(token)).expect(200);
  }

  it('says no agent is waiting, then clears the reason once an agent waits and the campaign dials', async () => {
    const tenant = await createTenant(t.dataSource);
    const admin = await staff(tenant, 'ADMIN');
    const agent = await staff(tenant, 'AGENT');
    const id = await runningCampaign(tenant, admin.token, ALWAYS_OPEN);
    expect((await board(admin.token, id)).idle).toBeNull(); // not dialled yet: no reason invented
    // A supervisor already looking at the board hears the reason: the dialer asks the API to push it.
    const watching = await connectStaff(t.url, admin.token);
    sockets.push(watching);
    const pushes = record(watching);
    await startDialer(tenant);
    const idle = await eventually(async () => {
      const view = await board(admin.token, id);
      expect(view.idle).toMatchObject({ reason: 'noAgentWaiting', until: null });
      return view.idle!;
    });
    expect(Number.isNaN(Date.parse(idle.since))).toBe(false);
    expect(await callsOf(id)).toBe(0);
    await eventually(() =>
      expect(
        pushes.some(
          ({ event, data }) =>
            event === OUTBOUND_SOCKET_EVENTS.board &&
            (data as OutboundBoardView).campaignId === id &&
            (data as OutboundBoardView).idle?.reason === 'noAgentWaiting',
        ),
      ).toBe(true),
    );

    await waitForCall(agent.token);
    await eventually(async () => expect(await callsOf(id)).toBe(1));
    await eventually(async () => expect((await board(admin.token, id)).idle).toBeNull());
  });

  it('says the contacts are outside their calling window, until the window opens in their time zone', async () => {
    const tenant = await createTenant(t.dataSource);
    const admin = await staff(tenant, 'ADMIN');
    const agent = await staff(tenant, 'AGENT');
    const id = await runningCampaign(tenant, admin.token, WEEKDAYS_9_TO_21);
    await waitForCall(agent.token);
    await startDialer(tenant, () => WEDNESDAY_0830_MADRID);
    await eventually(async () =>
      expect((await board(admin.token, id)).idle).toMatchObject({
        reason: 'outsideCallingWindow',
        until: new Date(Date.UTC(2025, 0, 15, 8, 0)).toISOString(), // 09:00 in Madrid
      }),
    );
    expect(await callsOf(id)).toBe(0);
    // A paused campaign is not idle: its status says why it does not dial.
    await t.http().post(`/api/outbound/campaigns/${id}/pause`).set(bearer(admin.token)).expect(200);
    expect((await board(admin.token, id)).idle).toBeNull();
  });
});
