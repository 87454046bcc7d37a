import type {
  ActiveByAgentRow,
  AgentServiceRow,
  QueuePositionRow,
  ComplianceRow,
  ConversationView,
  DashboardSettings,
  DashboardSummary,
  PauseDetailRow,
  QueueStatusRow,
  StaffingRow,
  StartChatResult,
  TrendPoint,
} from '@centralita/contracts';
import { agentsForServiceLevel } from '@centralita/domain';
import { createCampaign, createLine, createStaff, createTenant, data, type StaffMember } from './support/realtime';
import { createUser } from './support/factories';
import { eventuallyRealClock, fakeDateOnly } from './support/scripted-clock';
import { bearer, login, startTestApp, type TestApp } from './support/test-app';

/**
 * A scripted half hour driven through the REAL machine host (HTTP → host → transition log), with
 * the clock set by the test: only `Date` is faked, so every transition is stamped with the
 * scripted instant while timers, sockets, PostgreSQL and Redis run for real. Every dashboard
 * figure is then checked against numbers worked out by hand below.
 *
 * Thursday 15 January 2026, 09:00 UTC = T0; times are seconds after T0.
 *    0  agent 1 (line A) and agent 2 (line B) log in and pause (break / meeting)
 *   60  C1 queues on A                      90  C2 queues on A        100  C2 abandons (waited 10 s)
 *  120  agent 1 available → takes C1 (waited 60 s)                    300  agent 1 closes C1 (180 s)
 *  400  C3 queues on A → agent 1 takes it at once (waited 0 s)        700  agent 1 closes C3 (300 s)
 *  800  C4 queues on B                     900  agent 2 available → takes C4 (waited 100 s)
 * 1000  agent 2 closes C4 (100 s)         1200  agent 1 pauses (lunch)            1800  window end
 */
const T0 = Date.UTC(2026, 0, 15, 9, 0, 0);
const at = (seconds: number) => T0 + seconds * 1000;
const WINDOW = { from: T0, to: at(1800) };

jest.setTimeout(120_000);

/** Polls with the real clock: `Date` is frozen by the script. */
const eventually = <T>(assertion: () => T | Promise<T>) => eventuallyRealClock(assertion, 20_000);

describe('dashboards replay of a scripted day', () => {
  let t: TestApp;
  let lineA: string;
  let lineB: string;
  let campaignId: string;
  let agent1: StaffMember;
  let agent2: StaffMember;
  let supervisor: StaffMember;
  let agentToken: string;
  let outsider: string;
  let tenant: Awaited<ReturnType<typeof createTenant>>;
  const env = { ...process.env };

  const setClock = (seconds: number) => jest.setSystemTime(at(seconds));

  beforeAll(async () => {
    // Nothing times out during the script; the queue and inactivity timers would otherwise fire at scripted instants.
    process.env.QUEUE_TIMEOUT_SECONDS = '864000';
    process.env.INACTIVITY_TIMEOUT_SECONDS = '864000';
    // Its own queue prefix and database; no outbox poller: its rows go by the fast path, at the
    // scripted instants.
    process.env.OUTBOX_POLL_MS = '3600000';
    fakeDateOnly(at(-60));
    // Its own queues: other suites' API processes run on the real clock and would take this one's
    // timer jobs (stamped with the scripted day, long overdue for them) and fire them at once.
    t = await startTestApp({ jwt: { accessTtlSeconds: 3600 }, queuePrefix: `${process.env.QUEUE_PREFIX}-replay` }, { ownDatabase: true });
    tenant = await createTenant(t.dataSource);
    lineA = await createLine(t.dataSource, tenant, 'Sales');
    lineB = await createLine(t.dataSource, tenant, 'Billing');
    campaignId = await createCampaign(t.dataSource, tenant, 1);
    agent1 = await createStaff(t, tenant, 'AGENT', [lineA]);
    agent2 = await createStaff(t, tenant, 'AGENT', [lineB]);
    await t.dataSource.query(`INSERT INTO agent_campaigns (user_id, campaign_id, tenant_id) VALUES ($1, $2, $3)`, [
      agent2.userId,
      campaignId,
      tenant.client.id,
    ]);
    await t.dataSource.query(`UPDATE attention_lines SET campaign_id = $1 WHERE id = $2`, [campaignId, lineB]);
    await t.dataSource.query(`UPDATE users SET name = 'Agent One' WHERE id = $1`, [agent1.userId]);
    await t.dataSource.query(`UPDATE users SET name = 'Agent Two' WHERE id = $1`, [agent2.userId]);
    supervisor = await createStaff(t, tenant, 'SUPER');
    agentToken = agent1.token;
    const other = await createTenant(t.dataSource);
    const otherAdmin = await createUser(t.dataSource, other, { role: 'SUPER' });
    outsider = (await login(t, otherAdmin.email, otherAdmin.password)).accessToken;

    await script();
  });

  afterAll(async () => {
    await t?.close();
    jest.useRealTimers();
    process.env = env;
  });

  const presence = async (agent: StaffMember) =>
    ((await t.dataSource.query(`SELECT status FROM agent_presence WHERE user_id = $1`, [agent.userId])) as { status: string }[])[0]?.status;
  const conversation = async (id: string) =>
    (
      (await t.dataSource.query(`SELECT status, agent_id FROM conversations WHERE id = $1`, [id])) as {
        status: string;
        agent_id: string | null;
      }[]
    )[0];

  async function queueChat(line: string): Promise<StartChatResult> {
    const started = data<StartChatResult>(
      await t.http().post('/api/webchat/conversations').send({ attentionLineId: line, name: 'Customer' }),
    );
    const queued = data<ConversationView>(
      await t
        .http()
        .post('/api/webchat/conversation/menu')
        .set(bearer(started.visitorToken))
        .send({ queryTypeId: 'sales', submenuId: 'new' }),
    );
    expect(queued.status).toBe('LiningUp');
    return started;
  }

  const post = async (token: string, path: string, body: object = {}) => data(await t.http().post(path).set(bearer(token)).send(body));
  const answeredBy = (id: string, agent: StaffMember) =>
    eventually(async () => expect(await conversation(id)).toEqual({ status: 'Active', agent_id: agent.userId }));
  const statusOf = (agent: StaffMember, status: string) => eventually(async () => expect(await presence(agent)).toBe(status));

  async function script(): Promise<void> {
    setClock(0);
    await post(agent1.token, '/api/agent/presence/login', { campaignId });
    await post(agent1.token, '/api/agent/presence/pause', { reasonId: 'break' });
    await post(agent2.token, '/api/agent/presence/login', { campaignId });
    await post(agent2.token, '/api/agent/presence/pause', { reasonId: 'meeting' });

    setClock(60);
    const c1 = await queueChat(lineA);
    setClock(90);
    const c2 = await queueChat(lineA);
    setClock(100);
    await post(c2.visitorToken, '/api/webchat/conversation/leave');

    setClock(120);
    await post(agent1.token, '/api/agent/presence/available');
    await answeredBy(c1.conversation.id, agent1);
    await statusOf(agent1, 'busy');

    setClock(300);
    await post(agent1.token, `/api/agent/conversations/${c1.conversation.id}/close`, { disposition: 'done' });
    await statusOf(agent1, 'available');

    setClock(400);
    const c3 = await queueChat(lineA);
    await answeredBy(c3.conversation.id, agent1);
    await statusOf(agent1, 'busy');

    setClock(700);
    await post(agent1.token, `/api/agent/conversations/${c3.conversation.id}/close`, { disposition: 'done' });
    await statusOf(agent1, 'available');

    setClock(800);
    const c4 = await queueChat(lineB);
    setClock(900);
    await post(agent2.token, '/api/agent/presence/available');
    await answeredBy(c4.conversation.id, agent2);
    await statusOf(agent2, 'busy');

    setClock(1000);
    await post(agent2.token, `/api/agent/conversations/${c4.conversation.id}/close`, { disposition: 'done' });
    await statusOf(agent2, 'available');

    setClock(1200);
    await post(agent1.token, '/api/agent/presence/pause', { reasonId: 'lunch' });
    // The log holds other machines too: a dialer campaign started in the window is nobody's agent.
    await t.dataSource.query(
      `INSERT INTO transition_log (tenant_id, entity_type, entity_id, from_state, to_state, event, actor_kind, actor_id, at, at_ms, version)
       VALUES ($1, 'dialer_campaign', gen_random_uuid(), 'draft', 'running', 'dialer.started', 'user', $2, $3, $4, 1)`,
      [tenant.client.id, supervisor.userId, new Date(at(1300)), at(1300)],
    );
    // The dashboards are read "later the same day".
    setClock(1800);
  }

  const query = (extra: Record<string, string | number> = {}) => ({ from: WINDOW.from, to: WINDOW.to, ...extra });
  const get = async <T>(path: string, extra: Record<string, string | number> = {}, token = supervisor.token) =>
    data<T>(await t.http().get(`/api/dashboards/${path}`).query(query(extra)).set(bearer(token)));

  it('answers the summary: 4 offered, 3 answered, 1 within 20 s, 1 abandoned, ASA 53.3 s, AHT 193.3 s', async () => {
    const summary = await get<DashboardSummary>('summary');
    expect(summary).toMatchObject({
      offered: 4,
      answered: 3,
      answeredWithinThreshold: 1,
      abandoned: 1,
      shortAbandons: 0,
      timedOut: 0,
      serviceLevel: 0.25,
      abandonmentRate: 0.25,
      longestAnswerWaitMs: 100_000,
      handled: 3,
      waitingNow: 0,
      longestWaitNowMs: null,
    });
    expect(summary.averageSpeedOfAnswerMs).toBeCloseTo(160_000 / 3, 6);
    expect(summary.averageHandleTimeMs).toBeCloseTo(580_000 / 3, 6);
    // Handling 480 s + 100 s over staffed 1080 s + 900 s.
    expect(summary.occupancy).toBeCloseTo(580 / 1980, 9);
  });

  it('follows the settings: a 60 s threshold and short abandons under 15 s excluded', async () => {
    const saved = data<DashboardSettings>(
      await t
        .http()
        .put('/api/dashboards/settings')
        .set(bearer(supervisor.token))
        .send({ serviceLevelThresholdSec: 60, shortAbandonSec: 15, shortAbandonMode: 'exclude' }),
    );
    expect(saved).toMatchObject({ serviceLevelThresholdSec: 60, shortAbandonMode: 'exclude' });
    const summary = await get<DashboardSummary>('summary');
    // C2's 10 s abandon leaves offered; C1 (60 s, inclusive) and C3 now meet the threshold.
    expect(summary).toMatchObject({ offered: 3, answered: 3, answeredWithinThreshold: 2, abandoned: 0, shortAbandons: 1 });
    expect(summary.serviceLevel).toBeCloseTo(2 / 3, 9);
    await t
      .http()
      .put('/api/dashboards/settings')
      .set(bearer(supervisor.token))
      .send({ serviceLevelThresholdSec: 20, shortAbandonMode: 'count' });
  });

  it('narrows every figure with the filters (line, agent, campaign, channel)', async () => {
    const lineBOnly = await get<DashboardSummary>('summary', { attentionLineId: lineB });
    expect(lineBOnly).toMatchObject({
      offered: 1,
      answered: 1,
      answeredWithinThreshold: 0,
      serviceLevel: 0,
      handled: 1,
      averageHandleTimeMs: 100_000,
    });
    const agentOne = await get<DashboardSummary>('summary', { agentId: agent1.userId });
    expect(agentOne).toMatchObject({ offered: 2, answered: 2, answeredWithinThreshold: 1, handled: 2, averageHandleTimeMs: 240_000 });
    expect(agentOne.occupancy).toBeCloseTo(480 / 1080, 9);
    // The campaign has agent 2 and line B.
    const campaign = await get<DashboardSummary>('summary', { campaignId });
    expect(campaign).toMatchObject({ offered: 1, answered: 1, handled: 1, averageHandleTimeMs: 100_000 });
    expect(campaign.occupancy).toBeCloseTo(100 / 900, 9);
    const campaignPauses = await get<PauseDetailRow[]>('pauses', { campaignId });
    expect(campaignPauses.map((row) => row.reasonId)).toEqual(['meeting']);
    const otherChannel = await get<DashboardSummary>('summary', { channel: 'whatsapp' });
    expect(otherChannel).toMatchObject({ offered: 0, serviceLevel: null, averageHandleTimeMs: null, handled: 0 });
  });

  it('buckets the trend by local hour', async () => {
    const trend = await get<TrendPoint[]>('trend', { unit: 'hour' });
    expect(trend).toHaveLength(1);
    expect(trend[0]).toMatchObject({ key: '2026-01-15T09:00+00:00', offered: 4, answered: 3, handled: 3, serviceLevel: 0.25 });
    const days = await get<TrendPoint[]>('trend', { unit: 'day' });
    expect(days.map((point) => point.key)).toEqual(['2026-01-15']);
  });

  it('splits the queues by line and by campaign', async () => {
    const byLine = await get<QueueStatusRow[]>('queues', { by: 'line' });
    const sales = byLine.find((row) => row.key === lineA)!;
    const billing = byLine.find((row) => row.key === lineB)!;
    expect(sales).toMatchObject({ name: 'Sales', offered: 3, answered: 2, answeredWithinThreshold: 1, abandoned: 1, waitingNow: 0 });
    expect(sales.serviceLevel).toBeCloseTo(1 / 3, 9);
    expect(billing).toMatchObject({
      name: 'Billing',
      offered: 1,
      answered: 1,
      answeredWithinThreshold: 0,
      serviceLevel: 0,
      averageSpeedOfAnswerMs: 100_000,
    });
    const byCampaign = await get<QueueStatusRow[]>('queues', { by: 'campaign' });
    expect(byCampaign).toEqual([expect.objectContaining({ key: campaignId, offered: 1, answered: 1 })]);
  });

  it('splits the queues by channel, and the channel filter keeps only its row', async () => {
    // Line B's one conversation (C4) came in by WhatsApp for this check only: the figures read the
    // channel from the conversation's log rows, as the machine wrote them. The log is append-only
    // (a trigger), so this transaction alone runs with triggers off (session_replication_role).
    const channelOfLineB = (channel: string) =>
      t.dataSource.transaction(async (manager) => {
        await manager.query(`SET LOCAL session_replication_role = replica`);
        await manager.query(
          `UPDATE transition_log SET data = jsonb_set(data, '{channel}', to_jsonb($3::text))
           WHERE tenant_id = $1 AND entity_type = 'conversation' AND data ? 'channel'
             AND entity_id IN (SELECT id FROM conversations WHERE tenant_id = $1 AND attention_line_id = $2)`,
          [tenant.client.id, lineB, channel],
        );
      });
    await channelOfLineB('whatsapp');
    try {
      const byChannel = await get<QueueStatusRow[]>('queues', { by: 'channel' });
      expect(byChannel.map((row) => row.key).sort()).toEqual(['webchat', 'whatsapp']);
      expect(byChannel.find((row) => row.key === 'webchat')).toMatchObject({
        offered: 3,
        answered: 2,
        abandoned: 1,
        answeredWithinThreshold: 1,
      });
      expect(byChannel.find((row) => row.key === 'whatsapp')).toMatchObject({ offered: 1, answered: 1, averageSpeedOfAnswerMs: 100_000 });
      const onlyWhatsApp = await get<QueueStatusRow[]>('queues', { by: 'channel', channel: 'whatsapp' });
      expect(onlyWhatsApp).toEqual([expect.objectContaining({ key: 'whatsapp', offered: 1 })]);
      expect(
        (
          await t
            .http()
            .get('/api/dashboards/queues')
            .query(query({ by: 'country' }))
            .set(bearer(supervisor.token))
        ).status,
      ).toBe(400);
    } finally {
      await channelOfLineB('webchat');
    }
  });

  it('gives each agent handled contacts, AHT, time per state and occupancy', async () => {
    const agents = await get<AgentServiceRow[]>('agents');
    expect(agents.map((row) => row.agentId).sort()).toEqual([agent1.userId, agent2.userId].sort());
    const one = agents.find((row) => row.agentId === agent1.userId)!;
    const two = agents.find((row) => row.agentId === agent2.userId)!;
    expect(one).toMatchObject({
      name: 'Agent One',
      handled: 2,
      averageHandleTimeMs: 240_000,
      handlingMs: 480_000,
      staffedMs: 1_080_000,
      times: { paused: 720_000, busy: 480_000, available: 600_000 },
      statusNow: 'paused',
      activeNow: 0,
    });
    expect(two).toMatchObject({
      name: 'Agent Two',
      handled: 1,
      averageHandleTimeMs: 100_000,
      handlingMs: 100_000,
      staffedMs: 900_000,
      times: { paused: 900_000, busy: 100_000, available: 800_000 },
      statusNow: 'available',
    });
    expect(two.occupancy).toBeCloseTo(100 / 900, 9);
  });

  it('accumulates pause time per agent and reason', async () => {
    const pauses = await get<PauseDetailRow[]>('pauses');
    expect(pauses.map(({ name, reasonId, ms }) => ({ name, reasonId, ms }))).toEqual([
      { name: 'Agent One', reasonId: 'break', ms: 120_000 },
      { name: 'Agent One', reasonId: 'lunch', ms: 600_000 },
      { name: 'Agent Two', reasonId: 'meeting', ms: 900_000 },
    ]);
    // A window that cuts the lunch in half clips it.
    const clipped = await get<PauseDetailRow[]>('pauses', { from: at(1500), agentId: agent1.userId });
    expect(clipped.map(({ reasonId, ms }) => ({ reasonId, ms }))).toEqual([{ reasonId: 'lunch', ms: 300_000 }]);
  });

  it('counts time in the current state to now, never to the end of a range that runs past now', async () => {
    // The filter shows the whole day (to 18:00); it is 09:30 now. Agent One paused for lunch at 09:20:
    // 600 s of lunch, not the 8.5 hours left until the range ends.
    const day = { to: at(9 * 3600) };
    const pauses = await get<PauseDetailRow[]>('pauses', day);
    expect(pauses.map(({ name, reasonId, ms }) => ({ name, reasonId, ms }))).toEqual([
      { name: 'Agent One', reasonId: 'break', ms: 120_000 },
      { name: 'Agent One', reasonId: 'lunch', ms: 600_000 },
      { name: 'Agent Two', reasonId: 'meeting', ms: 900_000 },
    ]);
    const agents = await get<AgentServiceRow[]>('agents', day);
    expect(agents.find((row) => row.agentId === agent1.userId)!.times).toEqual({ paused: 720_000, busy: 480_000, available: 600_000 });
    expect(agents.find((row) => row.agentId === agent2.userId)!.times).toEqual({ paused: 900_000, busy: 100_000, available: 800_000 });
    const summary = await get<DashboardSummary>('summary', day);
    expect(summary.window).toEqual({ from: WINDOW.from, to: at(1800) });
    expect(summary.occupancy).toBeCloseTo(580 / 1980, 9);
    // The trend's axis still covers the whole range; hours after now are empty, not projected.
    const trend = await get<TrendPoint[]>('trend', { ...day, unit: 'hour' });
    expect(trend.length).toBe(9);
    expect(trend.slice(1).every((point) => point.offered === 0 && point.handled === 0)).toBe(true);
  });

  it('explains handled beside offered: every handled chat of the day was offered through the queue', async () => {
    const summary = await get<DashboardSummary>('summary');
    expect(summary.handledBreakdown).toEqual({ fromQueue: 3, fromTransfer: 0, calls: 0 });
  });

  it("shows an agent their own figures, whatever agent the query names, never the tenant's", async () => {
    // Agent One answered C1 and C3 (waits 60 s and 0 s): 2 offered, 2 handled. The tenant had 4 offered.
    for (const extra of [{}, { agentId: agent2.userId }] as Record<string, string>[]) {
      const own = await get<DashboardSummary>('summary', extra, agent1.token);
      expect(own).toMatchObject({ offered: 2, answered: 2, abandoned: 0, handled: 2, averageHandleTimeMs: 240_000 });
    }
    const options = data<{ agents: { id: string }[] }>(await t.http().get('/api/dashboards/options').set(bearer(agent1.token)));
    expect(options.agents.map((agent) => agent.id)).toEqual([agent1.userId]);
  });

  it('measures staff compliance against the default Monday–Friday 09:00–17:00 schedule', async () => {
    const rows = await get<ComplianceRow[]>('compliance');
    expect(
      rows.map(({ name, scheduledMs, loggedInMs, loggedInWhileScheduledMs, staffedWhileScheduledMs, compliance }) => ({
        name,
        scheduledMs,
        loggedInMs,
        loggedInWhileScheduledMs,
        staffedWhileScheduledMs,
        compliance,
      })),
    ).toEqual([
      {
        name: 'Agent One',
        scheduledMs: 1_800_000,
        loggedInMs: 1_800_000,
        loggedInWhileScheduledMs: 1_800_000,
        staffedWhileScheduledMs: 1_080_000,
        compliance: 1,
      },
      {
        name: 'Agent Two',
        scheduledMs: 1_800_000,
        loggedInMs: 1_800_000,
        loggedInWhileScheduledMs: 1_800_000,
        staffedWhileScheduledMs: 900_000,
        compliance: 1,
      },
    ]);
  });

  it('recommends Erlang C staffing beside the agents actually staffed, per line', async () => {
    const rows = await get<StaffingRow[]>('staffing');
    const sales = rows.find((row) => row.attentionLineId === lineA)!;
    const billing = rows.find((row) => row.attentionLineId === lineB)!;
    // Sales: 3 arrivals in 1800 s (6/h), AHT (180 + 300) / 2 = 240 s → 0.4 erlang; 1 agent gives 62 %, 2 give 94 % ≥ 80 %.
    expect(sales).toMatchObject({ arrivals: 3, ahtSec: 240, recommendedAgents: 2, actualAgents: 0.6 });
    expect(sales.arrivalRatePerHour).toBeCloseTo(6, 9);
    expect(agentsForServiceLevel(0.8, 20, 3 / 1800, 240)).toBe(2);
    // Billing: 1 arrival, AHT 100 s → 0.056 erlang; one agent is enough. Agent 2 staffed 900 of 1800 s.
    expect(billing).toMatchObject({ arrivals: 1, ahtSec: 100, recommendedAgents: 1, actualAgents: 0.5 });
  });

  it('lists the active conversations per logged-in agent now', async () => {
    const rows = data<ActiveByAgentRow[]>(await t.http().get('/api/dashboards/active-by-agent').set(bearer(supervisor.token)));
    expect(rows.map(({ name, status, active, capacity }) => ({ name, status, active, capacity }))).toEqual([
      { name: 'Agent One', status: 'paused', active: 0, capacity: 1 },
      { name: 'Agent Two', status: 'available', active: 0, capacity: 1 },
    ]);
  });

  it('refuses agents (403), other tenants’ filter ids (404) and bad windows (400)', async () => {
    expect((await t.http().get('/api/dashboards/queues').query(query()).set(bearer(agentToken))).status).toBe(403);
    expect((await t.http().put('/api/dashboards/settings').set(bearer(agentToken)).send({ refreshSeconds: 30 })).status).toBe(403);
    // The default dashboard's summary is open to agents (dashboard.view).
    expect((await t.http().get('/api/dashboards/summary').query(query()).set(bearer(agentToken))).status).toBe(200);
    const foreign = await t
      .http()
      .get('/api/dashboards/summary')
      .query(query({ attentionLineId: lineA }))
      .set(bearer(outsider));
    expect(foreign.status).toBe(404);
    const own = await get<DashboardSummary>('summary', {}, outsider);
    expect(own.offered).toBe(0);
    const reversed = await t
      .http()
      .get('/api/dashboards/summary')
      .query({ from: WINDOW.to, to: WINDOW.from })
      .set(bearer(supervisor.token));
    expect(reversed.status).toBe(400);
    const missing = await t.http().get('/api/dashboards/summary').set(bearer(supervisor.token));
    expect(missing.status).toBe(400);
    expect(missing.body.errorMessage).toMatch(/from/);
  });

  it('validates the settings and keeps each client’s own', async () => {
    const bad = await t
      .http()
      .put('/api/dashboards/settings')
      .set(bearer(supervisor.token))
      .send({ serviceLevelThresholdSec: 0, timeZone: 'Mars/Olympus', shortAbandonMode: 'sometimes', visibleWidgets: ['nope'] });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.data.fields).sort()).toEqual([
      'serviceLevelThresholdSec',
      'shortAbandonMode',
      'timeZone',
      'visibleWidgets',
    ]);
    await t.http().put('/api/dashboards/settings').set(bearer(supervisor.token)).send({ refreshSeconds: 30, timeZone: 'Europe/Madrid' });
    const mine = data<DashboardSettings>(await t.http().get('/api/dashboards/settings').set(bearer(supervisor.token)));
    const theirs = data<DashboardSettings>(await t.http().get('/api/dashboards/settings').set(bearer(outsider)));
    expect(mine).toMatchObject({ refreshSeconds: 30, timeZone: 'Europe/Madrid' });
    expect(theirs).toMatchObject({ refreshSeconds: 60, timeZone: 'UTC' });
    // Madrid is UTC+1 in January: the same half hour is the 10:00 local bucket.
    const trend = await get<TrendPoint[]>('trend', { unit: 'hour' });
    expect(trend.map((point) => point.key)).toEqual(['2026-01-15T10:00+01:00']);
  });

  it('reads each agent’s state at the start of a window days later from its last earlier row', async () => {
    const later = { from: at(2 * 86_400), to: at(2 * 86_400 + 3_600) };
    setClock(2 * 86_400 + 3_600);
    try {
      // The script's tokens have expired by then: a supervisor signs in "later".
      const { token } = await createStaff(t, tenant, 'SUPER');
      const get = async <T>(path: string, window: object) =>
        data<T>(await t.http().get(`/api/dashboards/${path}`).query(window).set(bearer(token)));
      const agents = await get<AgentServiceRow[]>('agents', later);
      expect(agents.map(({ name, times, handled }) => ({ name, times, handled }))).toEqual([
        { name: 'Agent One', times: { paused: 3_600_000 }, handled: 0 },
        { name: 'Agent Two', times: { available: 3_600_000 }, handled: 0 },
      ]);
      const pauses = await get<PauseDetailRow[]>('pauses', later);
      expect(pauses.map(({ reasonId, ms }) => ({ reasonId, ms }))).toEqual([{ reasonId: 'lunch', ms: 3_600_000 }]);
      // Saturday: nothing scheduled, so compliance has no figure.
      const compliance = await get<ComplianceRow[]>('compliance', later);
      expect(compliance.map((row) => row.compliance)).toEqual([null, null]);
    } finally {
      setClock(1800);
    }
  });

  // Last: it leaves a customer waiting.
  it('numbers the live position board in serving order', async () => {
    const empty = data<QueuePositionRow[]>(await t.http().get('/api/dashboards/positions').set(bearer(supervisor.token)));
    expect(empty).toEqual([]);
    const first = await queueChat(lineA);
    setClock(1810);
    const second = await queueChat(lineA);
    const board = data<QueuePositionRow[]>(await t.http().get('/api/dashboards/positions').set(bearer(supervisor.token)));
    expect(board.map(({ conversationId, lineName, position, queuedAt }) => ({ conversationId, lineName, position, queuedAt }))).toEqual([
      { conversationId: first.conversation.id, lineName: 'Sales', position: 1, queuedAt: at(1800) },
      { conversationId: second.conversation.id, lineName: 'Sales', position: 2, queuedAt: at(1810) },
    ]);
    expect((await t.http().get('/api/dashboards/positions').set(bearer(agentToken))).status).toBe(403);
    const theirs = data<QueuePositionRow[]>(await t.http().get('/api/dashboards/positions').set(bearer(outsider)));
    expect(theirs).toEqual([]);
  });
});
