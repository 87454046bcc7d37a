import type { CarrierProfile } from '@centralita/domain';
import Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import { Dialer } from '../../worker/src/dialer/dialer';
import { SimulatedCarrier } from '../../worker/src/telephony/simulated-carrier';
import { eventually as eventuallyWithin } from '../../../test/support/eventually';
import { createTenant, createUser, type TestTenant } from './support/factories';
import { ALWAYS_OPEN, createPhoneList } from './support/outbound';
import { bearer, login, startTestApp, type TestApp } from './support/test-app';

const eventually = <T>(assertion: () => T | Promise<T>, options: { timeoutMs?: number; intervalMs?: number } = {}) =>
  eventuallyWithin(assertion, { intervalMs: 50, timeoutMs: 20_000, ...options });

/**
 * The dialer (apps/worker) against the real API host, PostgreSQL, Redis and the carrier simulator:
 * the API applies every event the dialer reports, exactly as in production.
 */
// Its own queues: the API processes of other suites running at the same time would otherwise apply
// this suite's carrier events (correctly, in order: see outbound-event-order) but push the results
// to their own sockets and time the abandon and wrap-up timers by their own clocks.
const PREFIX = `${process.env.QUEUE_PREFIX ?? 'centralita'}-dialer`;

describe('outbound dialer with the carrier simulator (e2e)', () => {
  let t: TestApp;
  let redis: Redis;
  const dialers: Dialer[] = [];
  const carriers: SimulatedCarrier[] = [];

  beforeAll(async () => {
    // Its own queues and database (no other suite's process touches its rows), and no outbox
    // poller: this suite's rows all go by the fast path, so what it sees does not wait on a poll.
    const poll = process.env.OUTBOX_POLL_MS;
    process.env.OUTBOX_POLL_MS = '3600000';
    t = await startTestApp({ queuePrefix: PREFIX }, { ownDatabase: true });
    if (poll === undefined) delete process.env.OUTBOX_POLL_MS;
    else process.env.OUTBOX_POLL_MS = poll;
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    for (const dialer of dialers) await dialer.stop();
    for (const carrier of carriers) await carrier.close();
    redis.disconnect();
    await t.close();
  });

  function startDialer(
    tenant: TestTenant,
    profile: Partial<CarrierProfile>,
    now?: () => number,
    ringTimeoutSec = 25,
    dataSource: DataSource = t.dataSource,
  ): Dialer {
    const carrier = new SimulatedCarrier({ seed: 7, profile, timeFactor: 1 });
    carriers.push(carrier);
    const dialer = new Dialer({
      dataSource,
      redis,
      redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      queuePrefix: PREFIX,
      telephony: carrier,
      tickMs: 100,
      ringTimeoutSec,
      maxCallsPerTick: 20,
      tenantIds: [tenant.client.id],
      driver: 'interval',
      ...(now ? { now } : {}),
    });
    dialers.push(dialer);
    return dialer;
  }

  async function staff(tenant: TestTenant, role: 'ADMIN' | 'AGENT') {
    const { user, email, password } = await createUser(t.dataSource, tenant, { role });
    return { id: user.id, token: (await login(t, email, password)).accessToken };
  }

  async function campaign(token: string, body: object): Promise<string> {
    const response = await t.http().post('/api/outbound/campaigns').set(bearer(token)).send(body);
    if (response.status !== 200) throw new Error(JSON.stringify(response.body));
    const id = response.body.data.id as string;
    expect((await t.http().post(`/api/outbound/campaigns/${id}/start`).set(bearer(token))).status).toBe(200);
    return id;
  }

  async function waitForCall(token: string): Promise<void> {
    expect((await t.http().post('/api/agent/presence/login').set(bearer(token)).send({})).status).toBe(200);
    expect((await t.http().post('/api/outbound/agent/waiting').set(bearer(token))).status).toBe(200);
  }

  const calls = (campaignId: string) =>
    t.dataSource.query(
      `SELECT id, phone, attempt, status, agent_id, created_at, finished_at FROM outbound_calls WHERE campaign_id = $1 ORDER BY created_at`,
      [campaignId],
    ) as Promise<
      { id: string; phone: string; attempt: number; status: string; agent_id: string | null; created_at: Date; finished_at: Date | null }[]
    >;

  const humansTalkForever: Partial<CarrierProfile> = {
    answerRate: 1,
    machineRate: 0,
    busyRate: 0,
    failedRate: 0,
    ringSec: { min: 0.05, max: 0.1 },
    talkSec: { mean: 3600, sd: 1 },
  };

  it('progressive: dials one call per waiting agent, connects them, and the agent hangs up and dispositions', async () => {
    const tenant = await createTenant(t.dataSource);
    const admin = await staff(tenant, 'ADMIN');
    const agents = [await staff(tenant, 'AGENT'), await staff(tenant, 'AGENT')];
    const list = await createPhoneList(
      t.dataSource,
      tenant,
      Array.from({ length: 5 }, (_, i) => ({ phone: `+3491200000${i}`, name: `Contact ${i}` })),
    );
    const id = await campaign(admin.token, { name: 'Progressive', phoneListId: list, mode: 'progressive', callingWindows: ALWAYS_OPEN });
    await startDialer(tenant, humansTalkForever).start();
    // No agent waits yet: nothing is dialled.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await calls(id)).toHaveLength(0);

    for (const agent of agents) await waitForCall(agent.token);
    await eventually(async () => {
      const connected = (await calls(id)).filter((call) => call.status === 'connected');
      expect(connected).toHaveLength(2);
      expect(new Set(connected.map((call) => call.agent_id))).toEqual(new Set(agents.map((agent) => agent.id)));
    });
    // Both agents are busy on a call: the dialer places nothing more.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await calls(id)).toHaveLength(2);
    const presence = (await t.dataSource.query(`SELECT status FROM agent_presence WHERE user_id = ANY($1::uuid[])`, [
      agents.map((a) => a.id),
    ])) as {
      status: string;
    }[];
    expect(presence.map((p) => p.status)).toEqual(['outboundCall', 'outboundCall']);

    // Screen pop data, hang up (HangUp), disposition (UpdDISPO).
    const pop = (await t.http().get('/api/outbound/agent/call').set(bearer(agents[0].token))).body.data as {
      id: string;
      contactName: string;
    };
    expect(pop.contactName).toMatch(/^Contact \d$/);
    const hung = await t.http().post(`/api/outbound/calls/${pop.id}/hangup`).set(bearer(agents[0].token));
    expect(hung.body.data.status).toBe('wrapUp');
    expect((await t.http().post(`/api/outbound/calls/${pop.id}/hangup`).set(bearer(agents[1].token))).status).toBe(403);
    const dispo = await t
      .http()
      .post(`/api/outbound/calls/${pop.id}/disposition`)
      .set(bearer(agents[0].token))
      .send({ disposition: 'sale' });
    expect(dispo.body.data).toMatchObject({ status: 'done', disposition: 'sale', outcome: 'done' });
    const [contact] = (await t.dataSource.query(
      `SELECT disposition, finished, active_call_id FROM outbound_contacts WHERE id = (SELECT contact_id FROM outbound_calls WHERE id = $1)`,
      [pop.id],
    )) as { disposition: string; finished: boolean; active_call_id: string | null }[];
    expect(contact).toEqual({ disposition: 'sale', finished: true, active_call_id: null });
    const [agentRow] = (await t.dataSource.query(`SELECT status FROM agent_presence WHERE user_id = $1`, [agents[0].id])) as {
      status: string;
    }[];
    expect(agentRow.status).toBe('afterCallWork');
    const log = (await t.dataSource.query(
      `SELECT to_state FROM transition_log WHERE entity_type = 'outbound_call' AND entity_id = $1 ORDER BY version`,
      [pop.id],
    )) as { to_state: string }[];
    expect(log.map((row) => row.to_state)).toEqual(['queued', 'dialing', 'ringing', 'answeredByHuman', 'connected', 'wrapUp', 'done']);

    // Back to waiting: the dialer places the next call for that agent.
    expect((await t.http().post('/api/outbound/agent/waiting').set(bearer(agents[0].token))).status).toBe(200);
    await eventually(async () => expect((await calls(id)).filter((call) => call.status === 'connected')).toHaveLength(2));
    expect(await calls(id)).toHaveLength(3);
  });

  it('calls back when the agent booked a callback, and does not complete the campaign before it', async () => {
    const tenant = await createTenant(t.dataSource);
    const admin = await staff(tenant, 'ADMIN');
    const agent = await staff(tenant, 'AGENT');
    const list = await createPhoneList(t.dataSource, tenant, [{ phone: '+34918000001', name: 'Call me later' }]);
    const id = await campaign(admin.token, { name: 'Callbacks', phoneListId: list, mode: 'progressive', callingWindows: ALWAYS_OPEN });
    await waitForCall(agent.token);
    await startDialer(tenant, humansTalkForever).start();
    let first = '';
    await eventually(async () => {
      const [call] = await calls(id);
      expect(call.status).toBe('connected');
      first = call.id;
    });
    await t.http().post(`/api/outbound/calls/${first}/hangup`).set(bearer(agent.token));
    const tooSoon = await t
      .http()
      .post(`/api/outbound/calls/${first}/disposition`)
      .set(bearer(agent.token))
      .send({ disposition: 'callback' });
    expect(tooSoon.status).toBe(400);
    const callbackAt = new Date(Date.now() + 1500).toISOString();
    const booked = await t
      .http()
      .post(`/api/outbound/calls/${first}/disposition`)
      .set(bearer(agent.token))
      .send({ disposition: 'callback', callbackAt });
    expect(booked.body.data).toMatchObject({ status: 'done', disposition: 'callback' });
    const [row] = (await t.dataSource.query(`SELECT status FROM dialer_campaigns WHERE id = $1`, [id])) as { status: string }[];
    expect(row.status).toBe('running');
    const callbacks = (await t.http().get(`/api/outbound/callbacks?campaignId=${id}`).set(bearer(admin.token))).body.data as {
      status: string;
    }[];
    expect(callbacks).toEqual([expect.objectContaining({ phone: '+34918000001', status: 'pending' })]);
    expect((await t.http().post('/api/outbound/agent/waiting').set(bearer(agent.token))).status).toBe(200);
    await eventually(async () => {
      const all = await calls(id);
      expect(all.map((call) => [call.attempt, call.status])).toEqual([
        [1, 'done'],
        [2, 'connected'],
      ]);
    });
  });

  it('never dials a do-not-call number or a contact at 23:00 local time; bad rows never reach the dialer', async () => {
    const tenant = await createTenant(t.dataSource);
    const admin = await staff(tenant, 'ADMIN');
    const agents = [await staff(tenant, 'AGENT'), await staff(tenant, 'AGENT'), await staff(tenant, 'AGENT'), await staff(tenant, 'AGENT')];
    // 2026-01-14 22:00 UTC: 23:00 in Madrid, 17:00 in New York.
    const at = Date.UTC(2026, 0, 14, 22, 0, 0);
    const list = await createPhoneList(t.dataSource, tenant, [
      { phone: '+34913000001', name: 'Madrid at 23:00' },
      { phone: '+12125550101', name: 'New York, listed as do-not-call' },
      { phone: '+12125550102', name: 'New York, per-campaign do-not-call' },
      { phone: '+12125550103', name: 'New York, fine' },
      { phone: 'abc', name: 'Bad row' },
    ]);
    const weekdays = { wed: [{ from: '09:00', to: '21:00' }] };
    const response = await t.http().post('/api/outbound/campaigns').set(bearer(admin.token)).send({
      name: 'Windows',
      phoneListId: list,
      mode: 'progressive',
      callingWindows: weekdays,
    });
    const id = response.body.data.id as string;
    expect((await t.http().post('/api/outbound/dnc').set(bearer(admin.token)).send({ phone: '+12125550101' })).status).toBe(200);
    expect((await t.http().post('/api/outbound/dnc').set(bearer(admin.token)).send({ phone: '+12125550102', campaignId: id })).status).toBe(
      200,
    );
    expect((await t.http().post(`/api/outbound/campaigns/${id}/start`).set(bearer(admin.token))).status).toBe(200);
    for (const agent of agents) await waitForCall(agent.token);
    await startDialer(tenant, humansTalkForever, () => at).start();
    await eventually(async () => expect((await calls(id)).map((call) => call.phone)).toEqual(['+12125550103']));
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect((await calls(id)).map((call) => call.phone)).toEqual(['+12125550103']);
    const [{ n }] = (await t.dataSource.query(`SELECT count(*)::int AS n FROM outbound_contacts WHERE campaign_id = $1 AND phone = 'abc'`, [
      id,
    ])) as { n: number }[];
    expect(n).toBe(0);
  });

  it('retries per outcome up to the maximum of attempts, and never dials one number twice at once across campaigns', async () => {
    const tenant = await createTenant(t.dataSource);
    const admin = await staff(tenant, 'ADMIN');
    const agent = await staff(tenant, 'AGENT');
    const shared = '+34914000001';
    const listA = await createPhoneList(t.dataSource, tenant, [{ phone: shared }, { phone: '+34914000002' }], 'A');
    const listB = await createPhoneList(t.dataSource, tenant, [{ phone: shared }], 'B');
    const body = { mode: 'progressive', callingWindows: ALWAYS_OPEN, maxAttempts: 3, retryDelays: { busy: 0 } };
    await waitForCall(agent.token);
    const a = await campaign(admin.token, { ...body, name: 'Busy A', phoneListId: listA });
    const b = await campaign(admin.token, { ...body, name: 'Busy B', phoneListId: listB });
    await startDialer(tenant, { answerRate: 0, machineRate: 0, busyRate: 1, failedRate: 0, busySignalSec: 0.15 }).start();
    await eventually(
      async () => {
        const status = (await t.dataSource.query(`SELECT status FROM dialer_campaigns WHERE id = ANY($1::uuid[])`, [[a, b]])) as {
          status: string;
        }[];
        expect(status.map((row) => row.status)).toEqual(['completed', 'completed']);
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    const all = [...(await calls(a)), ...(await calls(b))];
    // 3 attempts per contact, all busy; nothing more.
    expect(all.filter((call) => call.phone === '+34914000002').map((call) => call.attempt)).toEqual([1, 2, 3]);
    const sharedCalls = all.filter((call) => call.phone === shared).sort((x, y) => +x.created_at - +y.created_at);
    expect(sharedCalls).toHaveLength(6);
    expect(all.every((call) => call.status === 'busy')).toBe(true);
    // The shared number's calls never overlap in time.
    for (let i = 1; i < sharedCalls.length; i++) {
      expect(+sharedCalls[i].created_at).toBeGreaterThanOrEqual(+sharedCalls[i - 1].finished_at!);
    }
  });

  it('preview: nothing is dialled until the agent dials the record reserved for them, and only they get it', async () => {
    const tenant = await createTenant(t.dataSource);
    const admin = await staff(tenant, 'ADMIN');
    const [mine, other] = [await staff(tenant, 'AGENT'), await staff(tenant, 'AGENT')];
    const list = await createPhoneList(t.dataSource, tenant, [
      { phone: '+34916000001', name: 'First' },
      { phone: '+34916000002', name: 'Second' },
    ]);
    const id = await campaign(admin.token, { name: 'Preview', phoneListId: list, mode: 'preview', callingWindows: ALWAYS_OPEN });
    await waitForCall(other.token);
    expect((await t.http().post('/api/agent/presence/login').set(bearer(mine.token)).send({})).status).toBe(200);
    await startDialer(tenant, humansTalkForever).start();

    const record = (await t.http().post('/api/outbound/agent/preview').set(bearer(mine.token))).body.data as {
      callId: string;
      phone: string;
      name: string;
    };
    expect(['+34916000001', '+34916000002']).toContain(record.phone);
    // The same record until it is dialled or skipped.
    expect((await t.http().post('/api/outbound/agent/preview').set(bearer(mine.token))).body.data.callId).toBe(record.callId);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await calls(id)).toHaveLength(0);
    // Another agent's preview gets the other contact; skipping gives it back untouched.
    const skipped = (await t.http().post('/api/outbound/agent/preview').set(bearer(other.token))).body.data as {
      callId: string;
      phone: string;
    };
    expect(skipped.phone).not.toBe(record.phone);
    expect((await t.http().post(`/api/outbound/agent/preview/${skipped.callId}/skip`).set(bearer(other.token))).status).toBe(200);
    expect((await t.http().post(`/api/outbound/agent/preview/${record.callId}/dial`).set(bearer(other.token))).status).toBe(404);
    const [{ attempts }] = (await t.dataSource.query(`SELECT attempts FROM outbound_contacts WHERE campaign_id = $1 AND phone = $2`, [
      id,
      skipped.phone,
    ])) as {
      attempts: number;
    }[];
    expect(attempts).toBe(0);

    expect((await t.http().post(`/api/outbound/agent/preview/${record.callId}/dial`).set(bearer(mine.token))).body.data.dialRequested).toBe(
      true,
    );
    await eventually(async () => {
      const [call] = await calls(id);
      expect(call).toMatchObject({ id: record.callId, status: 'connected', agent_id: mine.id });
    });
    expect(await calls(id)).toHaveLength(1);
  });

  // The cap is a long-run figure (libs/domain's simulate-campaign proves it over hours at 10/30/60 %
  // answer rates). Here, 80 contacts and 4 agents: with a 10 s threshold a person who answers while
  // every agent is busy is handed to the next agent who waits (offerAnsweredCall) instead of abandoned.
  // But the simulated person hangs up after their talk time (about 0.4 s) whether an agent took them
  // or not, so one the look-ahead reached with no agent waiting is abandoned unless an agent's loop
  // comes back within that: a matter of this machine's speed, not of the dialer. About 22 people
  // answer, so that single abandonment is already 4.5 %, above a 3 % cap.
  // What the dialer guarantees is the controller: it dials ahead only while the abandonment it
  // measured is under the cap, and a call placed without look-ahead has a waiting agent of its own.
  // So every abandoned call must have been placed by a round that measured less than the cap.
  it('predictive: dials ahead of the waiting agents, hands answered people to the next free agent, stops dialling ahead at the abandon cap', async () => {
    const tenant = await createTenant(t.dataSource);
    const admin = await staff(tenant, 'ADMIN');
    const agents = [await staff(tenant, 'AGENT'), await staff(tenant, 'AGENT'), await staff(tenant, 'AGENT'), await staff(tenant, 'AGENT')];
    const list = await createPhoneList(
      t.dataSource,
      tenant,
      Array.from({ length: 80 }, (_, i) => ({ phone: `+349170${String(i).padStart(5, '0')}` })),
    );
    for (const agent of agents) await waitForCall(agent.token);
    let stop = false;
    let aheadSeen = 0;
    const agentLoop = async (token: string) => {
      while (!stop) {
        const call = (await t.http().get('/api/outbound/agent/call').set(bearer(token))).body?.data as {
          id: string;
          status: string;
        } | null;
        if (call?.status === 'wrapUp')
          await t.http().post(`/api/outbound/calls/${call.id}/disposition`).set(bearer(token)).send({ disposition: 'interested' });
        const presence = (await t.http().get('/api/agent/presence').set(bearer(token))).body?.data as { status: string } | undefined;
        if (presence && ['available', 'busy', 'afterCallWork'].includes(presence.status))
          await t.http().post('/api/outbound/agent/waiting').set(bearer(token));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const loops = agents.map((agent) => agentLoop(agent.token));
    const id = await campaign(admin.token, {
      name: 'Predictive',
      phoneListId: list,
      mode: 'predictive',
      maxAttempts: 1,
      abandonThresholdMs: 10_000,
      callingWindows: ALWAYS_OPEN,
    });
    // What the dialer measured in each pacing round (its own statistics query, recognised by the
    // columns it returns), and for each call the round that placed it: the last one before it was
    // originated, since one dialer's rounds never overlap and each reads before it dials.
    type PacingReading = { human: number; abandoned: number };
    const readings: PacingReading[] = [];
    const placedBy = new Map<string, PacingReading | undefined>();
    const observed = new Proxy(t.dataSource, {
      get(target, property) {
        if (property !== 'query') return Reflect.get(target, property, target) as unknown;
        return async (sql: string, parameters?: unknown[]) => {
          const rows = (await target.query(sql, parameters)) as unknown;
          const [first] = Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
          if (parameters?.[0] === id && first && 'awaiting_agent' in first && 'abandoned' in first) {
            readings.push({ human: first.human as number, abandoned: first.abandoned as number });
          }
          return rows;
        };
      },
    });
    const dialer = startDialer(
      tenant,
      {
        answerRate: 0.3,
        machineRate: 0,
        busyRate: 0.3,
        failedRate: 0,
        ringSec: { min: 0.1, max: 0.3 },
        noAnswerTimeoutSec: 0.3,
        busySignalSec: 0.1,
        talkSec: { mean: 0.4, sd: 0.1 },
      },
      undefined,
      1,
      observed,
    );
    const carrier = carriers.at(-1)!;
    const originate = carrier.originate.bind(carrier);
    carrier.originate = (request) => {
      placedBy.set(request.callId, readings.at(-1));
      return originate(request);
    };
    await dialer.start();
    const watcher = (async () => {
      while (!stop) {
        const [{ n }] = (await t.dataSource.query(
          `SELECT count(*)::int AS n FROM outbound_calls WHERE campaign_id = $1 AND status IN ('dialing', 'ringing')`,
          [id],
        )) as { n: number }[];
        aheadSeen = Math.max(aheadSeen, n);
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
    })();
    await eventually(
      async () => {
        if (stop) return;
        const [row] = (await t.dataSource.query(`SELECT status FROM dialer_campaigns WHERE id = $1`, [id])) as { status: string }[];
        const stats = await t.dataSource.query(
          `SELECT status, count(*)::int AS n FROM outbound_calls WHERE campaign_id = $1 GROUP BY status`,
          [id],
        );
        const contacts = await t.dataSource.query(
          `SELECT finished, active_call_id IS NOT NULL AS reserved, count(*)::int AS n FROM outbound_contacts WHERE campaign_id = $1 GROUP BY 1, 2`,
          [id],
        );
        if (row.status !== 'completed') throw new Error(JSON.stringify({ status: row.status, stats, contacts }));
      },
      // 80 calls through the API's queues and four agents' HTTP loops: about 30 s alone, several
      // times that on a loaded two-core machine. The budget only bounds a campaign that never ends.
      { timeoutMs: 150_000, intervalMs: 200 },
    ).finally(() => {
      stop = true;
    });
    await Promise.all([...loops, watcher]);
    const all = await calls(id);
    expect(all).toHaveLength(80);
    const human = all.filter((call) => ['done', 'abandoned'].includes(call.status)).length;
    expect(human).toBeGreaterThan(0);
    const [{ abandon_cap_percent: capPercent }] = (await t.dataSource.query(
      `SELECT abandon_cap_percent FROM dialer_campaigns WHERE id = $1`,
      [id],
    )) as { abandon_cap_percent: string }[];
    const placedAbove = all
      .filter((call) => call.status === 'abandoned')
      .map((call) => ({ id: call.id, measured: placedBy.get(call.id) }))
      .filter(({ measured }) => !measured || measured.human === 0 || measured.abandoned / measured.human >= Number(capPercent) / 100);
    expect(placedAbove).toEqual([]);
    // Every call was placed by a round this test saw.
    expect(all.every((call) => placedBy.has(call.id))).toBe(true);
    // More calls in flight at once than there are agents: the look-ahead was used.
    expect(aheadSeen).toBeGreaterThan(agents.length);
  }, 200_000);
});
