import { eventually } from '../../../test/support/eventually';
import { createTenant, createUser, type TestTenant } from './support/factories';
import { ALWAYS_OPEN, createPhoneList } from './support/outbound';
import { spawnChild, type ChildWorker } from './support/processes';
import { bearer, login, startTestApp, type TestApp } from './support/test-app';

jest.setTimeout(120_000);

/**
 * Fault test (issue 7): the dialer worker is SIGKILLed mid-campaign. A second worker takes over:
 * the calls the dead one held are ended (failed, or hung up when answered), nobody is dialled
 * twice (one attempt per contact here, and never two live calls for one number), the campaign
 * completes, and abandonment stays within the cap.
 */
// Its own queues: the API processes of other suites running at the same time would otherwise apply
// this suite's carrier events (correctly, in order: see outbound-event-order) but push the results
// to their own sockets and time the abandon and wrap-up timers by their own clocks.
const PREFIX = `${process.env.QUEUE_PREFIX ?? 'centralita'}-dialer-crash`;

describe('dialer worker SIGKILLed mid-campaign', () => {
  let t: TestApp;
  let tenant: TestTenant;
  const children: ChildWorker[] = [];
  let stopAgents = false;

  beforeAll(async () => {
    // Its outbox poller would deliver other suites' stale rows into this prefix's socket stream,
    // where their sockets never see them: this suite's rows all go by the fast path.
    const poll = process.env.OUTBOX_POLL_MS;
    process.env.OUTBOX_POLL_MS = '3600000';
    t = await startTestApp({ queuePrefix: PREFIX });
    if (poll === undefined) delete process.env.OUTBOX_POLL_MS;
    else process.env.OUTBOX_POLL_MS = poll;
    tenant = await createTenant(t.dataSource);
  });
  afterAll(async () => {
    stopAgents = true;
    for (const child of children) if (child.child.exitCode === null) child.child.kill('SIGKILL');
    await t.close();
  });

  const startWorker = (): ChildWorker => {
    const worker = spawnChild('dialer-worker.child.ts', {
      ...process.env,
      QUEUE_PREFIX: PREFIX,
      NODE_ENV: 'test',
      DIALER_ENABLED: 'true',
      DIALER_TENANTS: tenant.client.id,
      DIALER_DRIVER: 'interval',
      DIALER_TICK_MS: '150',
      SIMULATOR_SEED: String(children.length + 11),
      SIMULATOR_PROFILE: JSON.stringify({
        answerRate: 0.6,
        machineRate: 0,
        busyRate: 0.2,
        failedRate: 0,
        ringSec: { min: 0.2, max: 0.6 },
        noAnswerTimeoutSec: 0.6,
        busySignalSec: 0.2,
        talkSec: { mean: 0.8, sd: 0.2 },
      }),
    });
    children.push(worker);
    return worker;
  };

  it('resumes without dialling anyone twice and without exceeding the abandon cap', async () => {
    const { email: adminEmail, password } = await createUser(t.dataSource, tenant, { role: 'ADMIN' });
    const admin = (await login(t, adminEmail, password)).accessToken;
    const agents: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { email } = await createUser(t.dataSource, tenant, { role: 'AGENT' });
      const token = (await login(t, email, password)).accessToken;
      expect((await t.http().post('/api/agent/presence/login').set(bearer(token)).send({})).status).toBe(200);
      agents.push(token);
    }
    // Agents: wait for calls, disposition after each one (the simulator's contact hangs up by itself).
    const agentLoop = async (token: string) => {
      while (!stopAgents) {
        const call = (await t.http().get('/api/outbound/agent/call').set(bearer(token))).body?.data as {
          id: string;
          status: string;
        } | null;
        if (call?.status === 'wrapUp')
          await t.http().post(`/api/outbound/calls/${call.id}/disposition`).set(bearer(token)).send({ disposition: 'interested' });
        const presence = (await t.http().get('/api/agent/presence').set(bearer(token))).body?.data as { status: string } | undefined;
        if (presence && ['available', 'busy', 'afterCallWork'].includes(presence.status))
          await t.http().post('/api/outbound/agent/waiting').set(bearer(token));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const loops = agents.map(agentLoop);

    const list = await createPhoneList(
      t.dataSource,
      tenant,
      Array.from({ length: 30 }, (_, i) => ({ phone: `+349150${String(i).padStart(5, '0')}` })),
    );
    const created = await t.http().post('/api/outbound/campaigns').set(bearer(admin)).send({
      name: 'Crash',
      phoneListId: list,
      mode: 'progressive',
      maxAttempts: 1,
      callingWindows: ALWAYS_OPEN,
    });
    const campaignId = created.body.data.id as string;
    const first = startWorker();
    await first.ready;
    expect((await t.http().post(`/api/outbound/campaigns/${campaignId}/start`).set(bearer(admin))).status).toBe(200);

    // Kill it while calls are live.
    await eventually(
      async () => {
        const [{ done, live }] = (await t.dataSource.query(
          `SELECT count(*) FILTER (WHERE finished_at IS NOT NULL)::int AS done,
                  count(*) FILTER (WHERE status IN ('dialing', 'ringing', 'connected'))::int AS live
             FROM outbound_calls WHERE campaign_id = $1`,
          [campaignId],
        )) as { done: number; live: number }[];
        expect(done).toBeGreaterThanOrEqual(5);
        expect(live).toBeGreaterThan(0);
      },
      { timeoutMs: 30_000, intervalMs: 50 },
    );
    const liveAtKill = (
      (await t.dataSource.query(`SELECT id FROM outbound_calls WHERE campaign_id = $1 AND status IN ('dialing', 'ringing', 'connected')`, [
        campaignId,
      ])) as { id: string }[]
    ).map((row) => row.id);
    first.child.kill('SIGKILL');
    await first.exited;
    const second = startWorker();
    await second.ready;

    await eventually(
      async () => {
        const [row] = (await t.dataSource.query(`SELECT status FROM dialer_campaigns WHERE id = $1`, [campaignId])) as { status: string }[];
        expect(row.status).toBe('completed');
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    stopAgents = true;
    await Promise.all(loops);

    const calls = (await t.dataSource.query(
      `SELECT contact_id, phone, status, end_reason, created_at, finished_at FROM outbound_calls WHERE campaign_id = $1 ORDER BY created_at`,
      [campaignId],
    )) as { contact_id: string; phone: string; status: string; end_reason: string | null; created_at: Date; finished_at: Date | null }[];
    // Every contact was dialled exactly once (max attempts 1): nobody twice, nobody forgotten.
    expect(calls).toHaveLength(30);
    expect(new Set(calls.map((call) => call.phone)).size).toBe(30);
    // The calls the dead worker held were ended by the new one (failed as dialer_restart, or hung up), not re-dialled.
    const ended = (await t.dataSource.query(`SELECT id, status, end_reason FROM outbound_calls WHERE id = ANY($1::uuid[])`, [
      liveAtKill,
    ])) as {
      id: string;
      status: string;
      end_reason: string | null;
    }[];
    expect(ended.length).toBeGreaterThan(0);
    expect(ended.every((call) => !['dialing', 'ringing', 'connected', 'answeredByHuman'].includes(call.status))).toBe(true);
    expect(calls.every((call) => call.finished_at !== null)).toBe(true);
    const human = calls.filter((call) => ['done', 'abandoned'].includes(call.status)).length;
    const abandoned = calls.filter((call) => call.status === 'abandoned').length;
    expect(human).toBeGreaterThan(0);
    expect(abandoned / human).toBeLessThanOrEqual(0.03);
    const [{ n }] = (await t.dataSource.query(`SELECT count(*)::int AS n FROM outbound_live_numbers WHERE tenant_id = $1`, [
      tenant.client.id,
    ])) as {
      n: number;
    }[];
    expect(n).toBe(0);
  });
});
