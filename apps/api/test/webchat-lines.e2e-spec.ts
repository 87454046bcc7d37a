import { CATALOGUE_MESSAGES, QUEUES, type LineQueueView, type StartChatResult, type WebchatLineView } from '@centralita/contracts';
import { Queue } from 'bullmq';
import { eventually } from '../../../test/support/eventually';
import { LINE_CLOSED_MESSAGE, type VisitorConversation } from '../src/modules/conversations/webchat.service';
import { MachineHostService } from '../src/modules/machine-host/machine-host.service';
import { twoTenants, type TestTenant } from './support/factories';
import { createLine, createStaff, data, type StaffMember } from './support/realtime';
import { bearer, startTestApp, type TestApp } from './support/test-app';

jest.setTimeout(60_000);

describe('web chat lines: welcome, business hours, deleted lines; emoticons and max queue wait', () => {
  let t: TestApp;
  let tenantA: TestTenant;
  let tenantB: TestTenant;
  let adminA: string;
  let adminB: string;
  let agent: StaffMember;
  let supervisor: StaffMember;
  let timers: Queue;

  beforeAll(async () => {
    t = await startTestApp();
    ({ tenantA, tenantB, adminA, adminB } = await twoTenants(t));
    agent = await createStaff(t, tenantA, 'AGENT');
    supervisor = await createStaff(t, tenantA, 'SUPER');
    timers = new Queue(QUEUES.machineTimers, { connection: { url: process.env.REDIS_URL! }, prefix: process.env.QUEUE_PREFIX });
  });
  afterAll(async () => {
    await timers.close();
    await t.close();
  });

  const settings = (overrides: Record<string, unknown> = {}) => ({
    welcomeMessage: 'Welcome to Acme!',
    offHoursMessage: 'Acme is closed: back at 9.',
    idleLogoutMinutes: 30,
    maxQueueWaitSeconds: 600,
    emoticons: ['🦄', '🍕'],
    ...overrides,
  });
  const lineView = async (lineId: string) => data<WebchatLineView>(await t.http().get(`/api/webchat/lines/${lineId}`));
  const start = (attentionLineId: string, name = 'Ada') => t.http().post('/api/webchat/conversations').send({ attentionLineId, name });
  /** A weekday other than today's in the zone, so the window is certainly closed now. */
  const notToday = (timeZone: string) => {
    const today = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short' }).format(new Date());
    return (['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(today) + 3) % 7;
  };
  const setHours = (lineId: string, hours: unknown[]) =>
    t.dataSource.query(`UPDATE attention_lines SET business_hours = $2 WHERE id = $1`, [lineId, JSON.stringify(hours)]);

  it('answers the line’s texts: empty until the tenant saves them, then its own, never another tenant’s', async () => {
    const line = await createLine(t.dataSource, tenantA, 'Welcome line');
    expect(await lineView(line)).toEqual({
      attentionLineId: line,
      open: true,
      welcomeMessage: '',
      offHoursMessage: '',
      widgetTitle: '',
      timeZone: 'UTC',
      // No windows: always open, so nothing to say about opening again.
      businessHours: [],
      nextOpening: null,
      // Nobody serves the line yet and it has no handle times: nothing to estimate from, and the widget says so.
      estimatedWaitSeconds: null,
      nobodyServing: true,
    });
    await t.http().put('/api/platform-settings').set(bearer(adminA)).send(settings()).expect(200);
    await t
      .http()
      .put('/api/channels-config/WebChat')
      .set(bearer(adminA))
      .send({ enabled: true, settings: { widgetTitle: 'Acme help' } })
      .expect(200);
    await t
      .http()
      .put('/api/platform-settings')
      .set(bearer(adminB))
      .send(settings({ welcomeMessage: 'B says hi' }))
      .expect(200);
    expect(await lineView(line)).toMatchObject({
      open: true,
      welcomeMessage: 'Welcome to Acme!',
      offHoursMessage: 'Acme is closed: back at 9.',
      widgetTitle: 'Acme help',
    });
  });

  it('the WebChat channel card no longer takes allowedOrigins: the client’s origins are the one place', async () => {
    const refused = await t
      .http()
      .put('/api/channels-config/WebChat')
      .set(bearer(adminA))
      .send({ settings: { allowedOrigins: 'https://x.example', widgetTitle: 'T' } })
      .expect(400);
    expect(Object.keys(refused.body.data.fields)).toEqual(['settings']);
    const list = data<{ channel: string; settings: Record<string, string> }[]>(
      await t.http().get('/api/channels-config').set(bearer(adminA)),
    );
    expect(Object.keys(list.find((c) => c.channel === 'WebChat')!.settings)).toEqual(['widgetTitle']);
  });

  it('a line outside its business hours is closed: the widget is told, and starting is refused (409)', async () => {
    const line = await createLine(t.dataSource, tenantA, 'Office hours');
    await setHours(line, [{ day: notToday('UTC'), from: '00:00', to: '23:59' }]);
    expect(await lineView(line)).toMatchObject({ open: false, offHoursMessage: 'Acme is closed: back at 9.' });
    // The widget names when it opens again: that weekday at 00:00 in the line's zone, and the week's windows.
    const closed = await lineView(line);
    expect(closed.businessHours).toEqual([{ day: notToday('UTC'), from: '00:00', to: '23:59' }]);
    expect(closed.nextOpening).toMatchObject({ day: notToday('UTC'), time: '00:00', daysAhead: 3 });
    expect(new Date(closed.nextOpening!.at).getUTCDay()).toBe(notToday('UTC'));
    const refused = await start(line).expect(409);
    expect(refused.body).toMatchObject({ statusCode: 409, errorCode: 'conflict', errorMessage: LINE_CLOSED_MESSAGE });
    const [{ count }] = await t.dataSource.query(`SELECT count(*)::int AS count FROM conversations WHERE entry_line_id = $1`, [line]);
    expect(count).toBe(0);
    // Every day all day (00:00–24:00 is not storable; 00:00–23:59 is): open again.
    await setHours(
      line,
      [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, from: '00:00', to: '23:59' })),
    );
    const minute = new Date().getUTCHours() * 60 + new Date().getUTCMinutes();
    if (minute < 23 * 60 + 59) {
      expect((await lineView(line)).open).toBe(true);
      data<StartChatResult>(await start(line));
    }
  });

  it('reads business hours in the tenant’s configured zone (dashboard settings), else UTC', async () => {
    const zone = 'Pacific/Kiritimati'; // UTC+14: its weekday is often not UTC's.
    await t.dataSource.query(
      `INSERT INTO dashboard_settings (client_id, settings, updated_at) VALUES ($1, $2, now())
       ON CONFLICT (client_id) DO UPDATE SET settings = EXCLUDED.settings`,
      [tenantB.client.id, JSON.stringify({ timeZone: zone })],
    );
    const line = await createLine(t.dataSource, tenantB, 'Zoned');
    const local = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(new Date())
      .reduce<Record<string, string>>((parts, part) => ({ ...parts, [part.type]: part.value }), {});
    if (`${local.hour}:${local.minute}` !== '23:59') {
      await setHours(line, [{ day: (notToday(zone) + 4) % 7, from: '00:00', to: '23:59' }]); // the zone's today
      expect(await lineView(line)).toMatchObject({ open: true, timeZone: zone });
    }
    await setHours(line, [{ day: notToday(zone), from: '00:00', to: '23:59' }]);
    expect(await lineView(line)).toMatchObject({ open: false, timeZone: zone, welcomeMessage: 'B says hi' });
    await start(line).expect(409);
  });

  it('a deleted or unknown line is refused with the catalogue message, and leaves the supervisor’s queues', async () => {
    const line = await createLine(t.dataSource, tenantA, 'Soon deleted');
    const before = data<LineQueueView[]>(await t.http().get('/api/supervisor/queues').set(bearer(supervisor.token)));
    expect(before.map((q) => q.attentionLineId)).toContain(line);
    await t.dataSource.query(`UPDATE attention_lines SET deleted_at = now() WHERE id = $1`, [line]);
    for (const id of [line, '00000000-0000-4000-8000-000000000000']) {
      const refused = await start(id).expect(404);
      expect(refused.body).toMatchObject({ errorCode: 'not_found', errorMessage: CATALOGUE_MESSAGES.noAttentionLine });
      expect((await t.http().get(`/api/webchat/lines/${id}`).expect(404)).body.errorMessage).toBe(CATALOGUE_MESSAGES.noAttentionLine);
    }
    expect((await t.http().get('/api/webchat/lines/not-a-uuid').expect(404)).body.errorMessage).toBe(CATALOGUE_MESSAGES.noAttentionLine);
    const after = data<LineQueueView[]>(await t.http().get('/api/supervisor/queues').set(bearer(supervisor.token)));
    expect(after.map((q) => q.attentionLineId)).not.toContain(line);
  });

  it('gives agents their tenant’s emoticons ([] when none are configured)', async () => {
    expect(data<string[]>(await t.http().get('/api/agent/emoticons').set(bearer(agent.token)))).toEqual(['🦄', '🍕']);
    const lonely = await createStaff(t, (await twoTenants(t)).tenantA, 'AGENT');
    expect(data<string[]>(await t.http().get('/api/agent/emoticons').set(bearer(lonely.token)))).toEqual([]);
    await t.http().get('/api/agent/emoticons').expect(401);
  });

  it('uses the tenant’s max queue wait for a line without its own queue timeout', async () => {
    const queued = async (lineId: string) => {
      const started = data<StartChatResult>(await start(lineId, 'Waiting'));
      await t
        .http()
        .post('/api/webchat/conversation/menu')
        .set(bearer(started.visitorToken))
        .send({ queryTypeId: 'q', submenuId: 's' })
        .expect(200);
      const id = started.conversation.id;
      const [{ snapshot }] = await t.dataSource.query(`SELECT snapshot FROM conversations WHERE id = $1`, [id]);
      return eventually(async () => {
        const job = await timers.getJob(`cqt.${id}.${snapshot.context.queuedAt}`);
        expect(job).toBeDefined();
        return job!.opts.delay;
      });
    };
    // An administrator-made line has no routing row: the platform setting (600 s) applies.
    const [bare] = await t.dataSource.query(
      `INSERT INTO attention_lines (client_id, name, type, channel) VALUES ($1, 'No routing row', 'inbound', 'WebChat') RETURNING id`,
      [tenantA.client.id],
    );
    expect(await queued(bare.id)).toBe(600_000);
    // A line with its own value keeps it.
    const own = await createLine(t.dataSource, tenantA, 'Own timeout');
    await t.dataSource.query(`UPDATE attention_line_routing SET queue_timeout_seconds = 45 WHERE attention_line_id = $1`, [own]);
    expect(await queued(own)).toBe(45_000);
    // A routing row whose timeout was left empty on the line's form also waits the platform setting.
    await t.dataSource.query(`UPDATE attention_line_routing SET queue_timeout_seconds = NULL WHERE attention_line_id = $1`, [own]);
    expect(await queued(own)).toBe(600_000);
  });

  it('tells a customer about to start how long the line expects them to wait: Erlang C on an empty queue, the position behind others', async () => {
    const lineId = await createLine(t.dataSource, tenantA, 'Expected wait');
    expect((await lineView(lineId)).estimatedWaitSeconds).toBeNull(); // nobody serving, no handle times
    const serving = await createStaff(t, tenantA, 'AGENT', [lineId]);
    const host = t.app.get(MachineHostService);
    await host.transaction((manager) => host.ensureAgent(manager, serving.userId, tenantA.client.id, 2, []));
    await host.dispatch(
      'agent',
      serving.userId,
      { type: 'agent.loggedIn', capacity: 2, pauseReasons: [] },
      { kind: 'agent', id: serving.userId },
    );
    expect((await lineView(lineId)).estimatedWaitSeconds).toBeNull(); // serving, but no handle times yet

    // Three chats in the last hour, each handled in 180 s.
    const now = Date.now();
    const conversation = (status: string, queuedAgoMs: number, handledSec: number | null) =>
      t.dataSource.query(
        `INSERT INTO conversations (id, tenant_id, channel, entry_line_id, attention_line_id, status, customer_name, snapshot, version, last_event, queued_at, closed_at)
         VALUES (gen_random_uuid(), $1, 'WebChat', $2, $2, $3, 'Seeded', $4, 1, 'seeded', $5, $6)`,
        [
          tenantA.client.id,
          lineId,
          status,
          JSON.stringify({ context: handledSec === null ? {} : { assignedAt: now - 1_000_000 } }),
          new Date(now - queuedAgoMs),
          handledSec === null ? null : new Date(now - 1_000_000 + handledSec * 1000),
        ],
      );
    for (let i = 0; i < 3; i++) await conversation('Closed', 600_000, 180);
    // λ = 3/3600 s⁻¹, AHT = 180 s → A = 0.15 Erlangs on N = 2 slots: B₁ = 0.15/1.15, B₂ = 0.15·B₁/(2 + 0.15·B₁) = 0.0096878,
    // C = 2·B₂/(2 − 0.15·(1 − B₂)) = 0.010465, ASA = C·180/(2 − 0.15) = 1.02 s.
    expect((await lineView(lineId)).estimatedWaitSeconds).toBe(1);

    // Two customers already waiting: the newcomer is third, 3 · 180 / 2 = 270 s.
    await conversation('LiningUp', 30_000, null);
    await conversation('LiningUp', 20_000, null);
    expect((await lineView(lineId)).estimatedWaitSeconds).toBe(270);
  });

  it('says nobody is serving when every agent of the line is paused: before the chat and in the queue, instead of no estimate', async () => {
    const lineId = await createLine(t.dataSource, tenantA, 'All paused');
    const member = await createStaff(t, tenantA, 'AGENT', [lineId]);
    const host = t.app.get(MachineHostService);
    const actor = { kind: 'agent' as const, id: member.userId };
    await host.transaction((manager) => host.ensureAgent(manager, member.userId, tenantA.client.id, 2, ['break']));
    await host.dispatch('agent', member.userId, { type: 'agent.loggedIn', capacity: 2, pauseReasons: ['break'] }, actor);
    // Serving, no handle times yet: no estimate, but somebody is there.
    expect(await lineView(lineId)).toMatchObject({ open: true, estimatedWaitSeconds: null, nobodyServing: false });

    await host.dispatch('agent', member.userId, { type: 'agent.paused', reasonId: 'break' }, actor);
    expect(await lineView(lineId)).toMatchObject({ open: true, estimatedWaitSeconds: null, nobodyServing: true });

    // A customer who starts anyway waits in the queue and is told the same, with their place.
    const started = data<StartChatResult>(await start(lineId, 'Patient'));
    await t
      .http()
      .post('/api/webchat/conversation/menu')
      .set(bearer(started.visitorToken))
      .send({ queryTypeId: 'q', submenuId: 's' })
      .expect(200);
    const waiting = data<VisitorConversation>(
      await t.http().get('/api/webchat/conversation').set(bearer(started.visitorToken)).expect(200),
    );
    expect(waiting.conversation.status).toBe('LiningUp');
    expect(waiting.queue).toMatchObject({ position: 1, estimatedWaitSeconds: null, nobodyServing: true });

    // A closed line says nothing about agents: the off-hours message is what counts.
    await setHours(lineId, [{ day: notToday('UTC'), from: '00:00', to: '23:59' }]);
    expect(await lineView(lineId)).toMatchObject({ open: false, estimatedWaitSeconds: null, nobodyServing: false });
  });
});
