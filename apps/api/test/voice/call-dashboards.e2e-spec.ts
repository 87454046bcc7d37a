import { randomUUID } from 'node:crypto';
import {
  QUEUES,
  type AgentServiceRow,
  type ConversationView,
  type DashboardSummary,
  type QueueStatusRow,
  type ReportExportState,
  type ReportPage,
  type StartChatResult,
  type TrendPoint,
  type VoiceCallEvent,
} from '@centralita/contracts';
import { Worker } from 'bullmq';
import { loadWorkerConfig } from '../../../worker/src/config/worker-config';
import { ReportExportProcessor } from '../../../worker/src/reports/report-export.processor';
import { createLine, createStaff, createTenant, data, type StaffMember } from '../support/realtime';
import { eventuallyRealClock, fakeDateOnly } from '../support/scripted-clock';
import { bearer } from '../support/test-app';
import { startVoiceTestApp, type VoiceTestApp } from './support/voice-test-app';

/**
 * Issue 22: the dashboards and reports count calls next to chats. Phone calls are driven through the
 * events the worker's voice server posts on the real `voice-call-events` queue (no SIP here), a web
 * chat through the visitor API, both through the real machine host, with the clock set by the test
 * (only `Date` is faked, as in dashboards-replay.e2e-spec.ts). Figures are worked out by hand below.
 *
 * Thursday 12 February 2026, 10:00 UTC = T0; seconds after T0. Line P is a phone line (agent Ana, with a
 * softphone), line W a web-chat line (agent Bea). Both agents log in and pause at 0.
 *   5  C2 rings in straight to P's queue          17  C2's caller hangs up in the queue (waited 12 s)
 *   6  C3 rings in, walks the IVR                  9  C3's caller hangs up in the IVR
 *   8  C4 rings in, the IVR sends it to a closed line: 11 the platform hangs up (lineClosed)
 *  10  C1 rings in, walks the IVR (20 s)          30  C1 queued on P
 *  40  Ana available → C1 assigned, her phone rings                     48  Ana answers (speed of answer 18 s)
 * 168  the caller hangs up (talk 120 s)          198  Ana ends her after-call work (30 s): handle time 150 s
 * 200  C6 rings in, walks the IVR               230  it ends on a line's voicemail
 * 300  C5 queued on P → assigned to Ana at once, rings           306  its caller hangs up while it rings (waited 6 s)
 * 400  a web chat queues on W                    420  Bea available → takes it (waited 20 s)  520  Bea closes it (100 s)
 * 600  the dashboards and reports are read
 */
const T0 = Date.UTC(2026, 1, 12, 10, 0, 0);
const at = (seconds: number) => T0 + seconds * 1000;
const WINDOW = { from: T0, to: at(600) };
const NAME = 'calldash';

jest.setTimeout(180_000);

/** Polls with the real clock: `Date` is frozen by the script. */
const eventually = <T>(assertion: () => T | Promise<T>) => eventuallyRealClock(assertion, 30_000);

type EventBody<T extends VoiceCallEvent['type']> = Omit<
  Extract<VoiceCallEvent, { type: T }>,
  'callId' | 'tenantId' | 'seq' | 'at' | 'type'
>;

describe('dashboards and reports count calls next to chats', () => {
  let voice: VoiceTestApp;
  let tenant: Awaited<ReturnType<typeof createTenant>>;
  let phoneLine: string;
  let chatLine: string;
  let trunkId: string;
  let ivrId: string;
  let ana: StaffMember;
  let bea: StaffMember;
  let supervisor: StaffMember;
  const calls: Record<'c1' | 'c2' | 'c3' | 'c4' | 'c5' | 'c6', ReturnType<typeof call>> = {} as never;
  let chatId: string;
  const env = { ...process.env };

  const setClock = (seconds: number) => jest.setSystemTime(at(seconds));
  const sql = <T>(text: string, values: unknown[] = []) => voice.t.dataSource.query(text, values) as Promise<T[]>;

  beforeAll(async () => {
    // Nothing times out during the script; after-call work ends when the agent says so (at 198).
    process.env.QUEUE_TIMEOUT_SECONDS = '864000';
    process.env.INACTIVITY_TIMEOUT_SECONDS = '864000';
    fakeDateOnly(at(-60));
    // The script spans ten minutes of its clock: tokens outlive it.
    voice = await startVoiceTestApp(NAME, { afterCallWorkSeconds: 864000, accessTtlSeconds: 3600 });
    const t = voice.t;
    tenant = await createTenant(t.dataSource);
    phoneLine = await createLine(t.dataSource, tenant, 'Phone sales');
    await sql(`UPDATE attention_lines SET channel = 'Phone' WHERE id = $1`, [phoneLine]);
    chatLine = await createLine(t.dataSource, tenant, 'Web sales');
    [{ id: trunkId }] = await sql<{ id: string }>(
      `INSERT INTO trunks (client_id, name, host, transport, max_concurrent_calls) VALUES ($1, 'Carrier', 'sip.carrier.test', 'udp', 10) RETURNING id`,
      [tenant.client.id],
    );
    [{ id: ivrId }] = await sql<{ id: string }>(
      `INSERT INTO ivrs (client_id, name, draft_tree) VALUES ($1, 'Main', '{"rootNodeId":"n1","nodes":[]}') RETURNING id`,
      [tenant.client.id],
    );
    ana = await createStaff(t, tenant, 'AGENT', [phoneLine]);
    bea = await createStaff(t, tenant, 'AGENT', [chatLine]);
    supervisor = await createStaff(t, tenant, 'SUPER');
    await sql(`UPDATE users SET name = 'Ana Phone' WHERE id = $1`, [ana.userId]);
    await sql(`UPDATE users SET name = 'Bea Chat' WHERE id = $1`, [bea.userId]);
    // Only Ana has a softphone: calls are offered to her alone.
    await sql(`INSERT INTO softphone_configs (client_id, ws_url, domain) VALUES ($1, 'wss://sip.test/ws', 'voice.test')`, [
      tenant.client.id,
    ]);
    await sql(`INSERT INTO softphone_accounts (user_id, client_id, extension, auth_user) VALUES ($1, $2, 'ana', 'ana')`, [
      ana.userId,
      tenant.client.id,
    ]);
    for (const key of ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'] as const) calls[key] = call();
    await script();
  });

  afterAll(async () => {
    await voice?.close();
    jest.useRealTimers();
    process.env = env;
  });

  /** A call of the tenant: its events numbered and posted as the worker posts them, stamped with the scripted clock. */
  function call(callId = randomUUID()) {
    let seq = 0;
    return {
      callId,
      post: async <T extends VoiceCallEvent['type']>(type: T, body: EventBody<T>) => {
        const event = { type, callId, tenantId: tenant.client.id, seq: ++seq, at: Date.now(), ...body } as unknown as VoiceCallEvent;
        await voice.events.add(event.type, event, { jobId: `voice.${callId}.${event.seq}`, attempts: 5 });
        // Applied before the clock moves on: the host stamps each step with the scripted instant.
        await eventually(async () => expect((await callRow(callId))?.last_seq).toBe(event.seq));
      },
    };
  }

  const callRow = async (callId: string) =>
    (
      await sql<{ last_seq: number; conversation_id: string | null; stage: string }>(`SELECT * FROM voice_calls WHERE id = $1`, [callId])
    )[0];
  const conversationOf = async (callId: string) =>
    (
      await sql<{ id: string; status: string; agent_id: string | null }>(
        `SELECT c.id, c.status, c.agent_id FROM voice_calls v JOIN conversations c ON c.id = v.conversation_id WHERE v.id = $1`,
        [callId],
      )
    )[0];
  const presence = async (agent: StaffMember) =>
    (await sql<{ status: string }>(`SELECT status FROM agent_presence WHERE user_id = $1`, [agent.userId]))[0]?.status;
  const statusOf = (agent: StaffMember, status: string) => eventually(async () => expect(await presence(agent)).toBe(status));
  const post = async (token: string, path: string, body: object = {}) =>
    data(await voice.t.http().post(path).set(bearer(token)).send(body));
  const ringing = (key: keyof typeof calls) =>
    eventually(async () => {
      expect(await conversationOf(calls[key].callId)).toMatchObject({ status: 'Active', agent_id: ana.userId });
      const connects = (await voice.commands.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed'])).filter(
        (job) => job.data.callId === calls[key].callId && job.data.type === 'connect',
      );
      expect(connects).toHaveLength(1);
    });

  async function script(): Promise<void> {
    const { c1, c2, c3, c4, c5, c6 } = calls;
    const to = '+34910000000';
    setClock(0);
    for (const agent of [ana, bea]) {
      await post(agent.token, '/api/agent/presence/login');
      await post(agent.token, '/api/agent/presence/pause', { reasonId: 'break' });
    }

    setClock(5);
    await c2.post('call.started', { trunkId, from: '+34600000002', to, ivrId: null });
    await c2.post('call.queued', { attentionLineId: phoneLine, path: [] });
    setClock(6);
    await c3.post('call.started', { trunkId, from: '+34600000003', to, ivrId });
    await c3.post('ivr.step', { ivrId, nodeId: 'n1', nodeName: 'Welcome', digit: null });
    setClock(8);
    await c4.post('call.started', { trunkId, from: '+34600000004', to, ivrId });
    await c4.post('ivr.step', { ivrId, nodeId: 'n1', nodeName: 'Welcome', digit: null });
    setClock(9);
    await c3.post('call.abandoned', { stage: 'ivr' });
    setClock(10);
    await c1.post('call.started', { trunkId, from: '+34600000001', to, ivrId });
    await c1.post('ivr.step', { ivrId, nodeId: 'n1', nodeName: 'Welcome', digit: null });
    setClock(11);
    await c4.post('call.ended', { by: 'system', reason: 'lineClosed' });
    setClock(17);
    await c2.post('call.abandoned', { stage: 'queue' });
    setClock(25);
    await c1.post('ivr.step', { ivrId, nodeId: 'n2', nodeName: 'Sales', digit: '1' });
    setClock(30);
    await c1.post('call.queued', { attentionLineId: phoneLine, path: ['Welcome', 'Sales'] });

    setClock(40);
    await post(ana.token, '/api/agent/presence/available');
    await ringing('c1');
    setClock(48);
    await c1.post('call.connected', { agentId: ana.userId });
    await statusOf(ana, 'inCall');
    setClock(168);
    await c1.post('call.ended', { by: 'caller', reason: 'hangup' });
    await statusOf(ana, 'afterCallWork');
    setClock(198);
    await post(ana.token, '/api/agent/presence/available');
    await statusOf(ana, 'available');

    setClock(200);
    await c6.post('call.started', { trunkId, from: '+34600000006', to, ivrId });
    await c6.post('ivr.step', { ivrId, nodeId: 'n3', nodeName: 'Leave a message', digit: '9' });
    setClock(230);
    await c6.post('call.ended', { by: 'caller', reason: 'voicemail' });

    setClock(300);
    await c5.post('call.started', { trunkId, from: '+34600000005', to, ivrId: null });
    await c5.post('call.queued', { attentionLineId: phoneLine, path: [] });
    await ringing('c5');
    setClock(306);
    await c5.post('call.abandoned', { stage: 'queue' });
    await eventually(async () => expect((await conversationOf(c5.callId)).status).toBe('Closed'));
    await statusOf(ana, 'available');

    setClock(400);
    const started = data<StartChatResult>(
      await voice.t.http().post('/api/webchat/conversations').send({ attentionLineId: chatLine, name: 'Web customer' }),
    );
    chatId = started.conversation.id;
    const queued = data<ConversationView>(
      await voice.t
        .http()
        .post('/api/webchat/conversation/menu')
        .set(bearer(started.visitorToken))
        .send({ queryTypeId: 'sales', submenuId: 'new' }),
    );
    expect(queued.status).toBe('LiningUp');
    setClock(420);
    await post(bea.token, '/api/agent/presence/available');
    await eventually(async () =>
      expect((await sql(`SELECT status, agent_id FROM conversations WHERE id = $1`, [chatId]))[0]).toEqual({
        status: 'Active',
        agent_id: bea.userId,
      }),
    );
    setClock(520);
    await post(bea.token, `/api/agent/conversations/${chatId}/close`, { disposition: 'done' });
    await statusOf(bea, 'available');
    setClock(600);
  }

  const get = async <T>(path: string, extra: Record<string, string | number> = {}) =>
    data<T>(
      await voice.t
        .http()
        .get(`/api/dashboards/${path}`)
        .query({ ...WINDOW, ...extra })
        .set(bearer(supervisor.token)),
    );

  it('counts the answered call and the chat with the speed of answer from queue entry to the answer, and the call’s handle time with its after-call work', async () => {
    const summary = await get<DashboardSummary>('summary');
    // Offered: C2 and C5 (abandoned in the queue, C5 while ringing), C1 (answered 18 s after it queued), the chat (20 s).
    // C3 (IVR), C4 (closed line) and C6 (voicemail) never reached a queue.
    expect(summary).toMatchObject({
      offered: 4,
      answered: 2,
      answeredWithinThreshold: 2,
      abandoned: 2,
      timedOut: 0,
      serviceLevel: 0.5,
      abandonmentRate: 0.5,
      averageSpeedOfAnswerMs: 19_000,
      longestAnswerWaitMs: 20_000,
      // The call once (talk 120 s + after-call work 30 s), never again as a "chat" from its ringing; and the chat (100 s).
      handled: 2,
      averageHandleTimeMs: 125_000,
      // The inbound call was offered through the phone line's queue, like the chat.
      handledBreakdown: { fromQueue: 2, fromTransfer: 0, calls: 0 },
      waitingNow: 0,
    });
  });

  it('narrows to the phone channel and to the web-chat channel', async () => {
    expect(await get<DashboardSummary>('summary', { channel: 'phone' })).toMatchObject({
      offered: 3,
      answered: 1,
      abandoned: 2,
      averageSpeedOfAnswerMs: 18_000,
      handled: 1,
      averageHandleTimeMs: 150_000,
    });
    expect(await get<DashboardSummary>('summary', { channel: 'webchat' })).toMatchObject({
      offered: 1,
      answered: 1,
      abandoned: 0,
      averageSpeedOfAnswerMs: 20_000,
      handled: 1,
      averageHandleTimeMs: 100_000,
    });
    const trend = await get<TrendPoint[]>('trend', { unit: 'hour', channel: 'phone' });
    expect(trend).toEqual([expect.objectContaining({ offered: 3, answered: 1, abandoned: 2, handled: 1, averageHandleTimeMs: 150_000 })]);
  });

  it('groups the queues by channel: the phone row keeps abandons in the IVR, in the queue, closed lines and voicemails apart', async () => {
    const rows = await get<QueueStatusRow[]>('queues', { by: 'channel' });
    expect(rows.map((row) => row.key).sort()).toEqual(['phone', 'webchat']);
    expect(rows.find((row) => row.key === 'phone')).toEqual(
      expect.objectContaining({
        offered: 3,
        answered: 1,
        answeredWithinThreshold: 1,
        abandoned: 2,
        averageSpeedOfAnswerMs: 18_000,
        abandonedInIvr: 1,
        closedLine: 1,
        voicemail: 1,
        waitingNow: 0,
      }),
    );
    const web = rows.find((row) => row.key === 'webchat')!;
    expect(web).toMatchObject({ offered: 1, answered: 1, abandoned: 0, averageSpeedOfAnswerMs: 20_000 });
    expect(web).not.toHaveProperty('abandonedInIvr');
    expect(web).not.toHaveProperty('closedLine');
    // By line: the phone line counts the queued calls only.
    const byLine = await get<QueueStatusRow[]>('queues', { by: 'line' });
    expect(byLine.find((row) => row.key === phoneLine)).toMatchObject({ name: 'Phone sales', offered: 3, answered: 1, abandoned: 2 });
    expect(byLine.find((row) => row.key === chatLine)).toMatchObject({ name: 'Web sales', offered: 1, answered: 1 });
  });

  it('gives the agent who answered the call its handle time and her time in the call and in after-call work', async () => {
    const agents = await get<AgentServiceRow[]>('agents');
    const one = agents.find((row) => row.agentId === ana.userId)!;
    expect(one).toMatchObject({ name: 'Ana Phone', handled: 1, averageHandleTimeMs: 150_000 });
    expect(one.times).toMatchObject({ inCall: 120_000, afterCallWork: 30_000 });
    expect(agents.find((row) => row.agentId === bea.userId)).toMatchObject({ handled: 1, averageHandleTimeMs: 100_000 });
  });

  it('offers the phone channel in the filter as soon as the tenant has a phone line, and shows its row before any call', async () => {
    const quiet = await createTenant(voice.t.dataSource);
    const line = await createLine(voice.t.dataSource, quiet, 'Phone only');
    const boss = await createStaff(voice.t, quiet, 'SUPER');
    const channelsOf = async () =>
      data<{ channels: string[] }>(await voice.t.http().get('/api/dashboards/options').set(bearer(boss.token))).channels;
    expect(await channelsOf()).toEqual(['webchat']);
    await sql(`UPDATE attention_lines SET channel = 'Phone' WHERE id = $1`, [line]);
    expect(await channelsOf()).toEqual(['webchat', 'phone']);
    const rows = data<QueueStatusRow[]>(
      await voice.t
        .http()
        .get('/api/dashboards/queues')
        .query({ ...WINDOW, by: 'channel', channel: 'phone' })
        .set(bearer(boss.token)),
    );
    expect(rows).toEqual([
      expect.objectContaining({ key: 'phone', offered: 0, serviceLevel: null, abandonedInIvr: 0, closedLine: 0, voicemail: 0 }),
    ]);
  });

  const reportWindow = { from: new Date(WINDOW.from).toISOString(), to: new Date(WINDOW.to).toISOString() };

  it('lists each call in the conversations report with its wait from queue entry and its handle time', async () => {
    const page = data<ReportPage>(
      await voice.t
        .http()
        .get('/api/reports/conversations')
        .query({ ...reportWindow, channel: 'phone', pageSize: 50 })
        .set(bearer(supervisor.token)),
    );
    const byId = new Map(page.items.map((row) => [row.id, row]));
    const rowOf = async (key: keyof typeof calls) => byId.get((await conversationOf(calls[key].callId)).id);
    expect(page.total).toBe(6);
    expect(await rowOf('c1')).toMatchObject({
      channel: 'phone',
      agent: 'Ana Phone',
      status: 'Closed',
      waitSeconds: 18,
      handleSeconds: 150,
    });
    expect(await rowOf('c2')).toMatchObject({ status: 'Closed', waitSeconds: 12, handleSeconds: null });
    expect(await rowOf('c5')).toMatchObject({ status: 'Closed', waitSeconds: 6, handleSeconds: null });
    for (const key of ['c3', 'c4', 'c6'] as const) expect(await rowOf(key)).toMatchObject({ waitSeconds: null, handleSeconds: null });
    const chats = data<ReportPage>(
      await voice.t
        .http()
        .get('/api/reports/conversations')
        .query({ ...reportWindow, channel: 'webchat' })
        .set(bearer(supervisor.token)),
    );
    expect(chats.items).toEqual([expect.objectContaining({ id: chatId, waitSeconds: 20, handleSeconds: 100 })]);

    const queues = data<ReportPage>(
      await voice.t
        .http()
        .get('/api/reports/queue')
        .query({ ...reportWindow, channel: 'phone' })
        .set(bearer(supervisor.token)),
    );
    expect(queues.items).toEqual([
      expect.objectContaining({ line: 'Phone sales', offered: 3, answered: 1, abandoned: 2, averageSpeedOfAnswerSeconds: 18 }),
    ]);
  });

  it('exports the call’s row as the table shows it', async () => {
    const prefix = `${process.env.QUEUE_PREFIX ?? 'centralita'}-${NAME}-${process.pid}`;
    const config = loadWorkerConfig({ ...process.env, NODE_ENV: 'test' });
    const processor = new ReportExportProcessor(voice.t.dataSource, config);
    const worker = new Worker(QUEUES.reportExport, (job) => processor.process(job), {
      connection: { url: config.redisUrl, maxRetriesPerRequest: null },
      prefix,
    });
    try {
      const started = data<ReportExportState>(
        await voice.t
          .http()
          .post('/api/reports/conversations/exports')
          .send({ ...reportWindow, channel: 'phone', format: 'csv' })
          .set(bearer(supervisor.token))
          .set('Accept-Language', 'en'),
      );
      const done = await eventually(async () => {
        const state = data<ReportExportState>(await voice.t.http().get(`/api/reports/exports/${started.id}`).set(bearer(supervisor.token)));
        expect(state.status).toBe('done');
        return state;
      });
      expect(done.rowCount).toBe(6);
      const file = await voice.t.http().get(`/api/reports/exports/${done.id}/download`).set(bearer(supervisor.token)).expect(200);
      const lines = file.text
        .replace(/^\uFEFF/, '')
        .trimEnd()
        .split('\r\n');
      expect(lines[0]).toBe(
        '"Conversation","Started","Channel","Line","Agent","Customer","Status","Closed","Wait (s)","Handle time (s)","Messages"',
      );
      const c1 = (await conversationOf(calls.c1.callId)).id;
      const row = lines.find((line) => line.startsWith(`"${c1}"`))!;
      const cells = row.slice(1, -1).split('","');
      expect(cells.slice(0, 10)).toEqual([
        c1,
        new Date(at(10)).toISOString(),
        'Phone',
        'Phone sales',
        'Ana Phone',
        "'+34600000001",
        'Closed',
        new Date(at(168)).toISOString(),
        '18',
        '150',
      ]);
    } finally {
      await worker.close();
    }
  });
});
