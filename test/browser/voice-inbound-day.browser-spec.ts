import { randomInt, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { IvrTree, PlatformSettings } from '@centralita/contracts';
// test/tsconfig resolves like node10: the server entry point by its path.
import { PostgresFileStore } from '../../libs/contracts/src/server';
import { Client } from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { SipTestCaller, rms, toneShare } from '../../apps/worker/src/voice/testing/sip-test-caller';
import { writeToneWav } from '../../apps/worker/src/voice/testing/tone-wav';
import { VOICE_TONES } from '../../apps/worker/src/voice/voice-media-files';
import { api, createDemoAgent, DEMO, DEMO_PASSWORD, launchBrowser } from '../support/browser';
import { eventually } from '../support/eventually';
import { startKamailio, type RunningKamailio } from '../support/kamailio';
import { freeUdpPort, rtpengineBinary, startRtpengine, type RunningRtpengine } from '../support/rtpengine';
import { startSuiteApi, type SuiteApi } from '../support/suite-api';

/**
 * Issue #22's inbound phone day, end to end: a caller (the Node test phone, G.711 + RFC 4733) calls a trunk's inbound
 * number at the suite's own worker (voice server, real rtpengine recording pcaps, agents behind a real kamailio), hears
 * the published IVR's stored prompt (1000 Hz), presses 1 and is queued on the phone line; the suite's API routes the call
 * to agent 1, whose desk softphone (the console's sip.js dock, registered over WebSocket, fake microphone) rings and is
 * answered with the console's own Answer button; each side hears the other (the caller's 700 Hz as received bytes and
 * energy in the browser's WebRTC stats, the fake microphone's energy at the caller); agent 1 transfers from the desk to
 * agent 2, whose softphone rings and answers, hears the caller, then hangs up (the call's end closes the phone conversation, so the desk asks for
 * no disposition: the softphone's own wrap-up form does, and agent 2 saves one);
 * the recording of the call plays from the conversation detail of the administrator's report.
 * The browsers' RTCPeerConnections are read through an init script that only keeps a reference to each one.
 */
jest.setTimeout(240_000);

const CALLER_HZ = 700;
const PROMPT_HZ = 1000;
const tag = randomUUID().slice(0, 6);
const NUMBER = `+3495${String(randomInt(0, 10_000_000)).padStart(7, '0')}`;
const FROM = `+3466${String(randomInt(0, 10_000_000)).padStart(7, '0')}`;
/** The caller is a contact the tenant knows, with an open case: the ringing softphone's screen pop shows both. */
const CALLER_NAME = `Marta Día ${tag}`;
const CASE_SUBJECT = `Factura duplicada ${tag}`;

/** Keeps every RTCPeerConnection the page makes on window.__pcs (the softphone's is the last with audio). */
const KEEP_PEER_CONNECTIONS = () => {
  const Native = window.RTCPeerConnection;
  const kept: RTCPeerConnection[] = [];
  (window as unknown as { __pcs: RTCPeerConnection[] }).__pcs = kept;
  window.RTCPeerConnection = class extends Native {
    constructor(...args: ConstructorParameters<typeof RTCPeerConnection>) {
      super(...args);
      kept.push(this);
    }
  } as typeof RTCPeerConnection;
};

/** Bytes and energy of the audio the page's newest connected peer connection receives. */
async function inboundAudio(page: Page): Promise<{ bytes: number; energy: number; state: string } | null> {
  return page.evaluate(async () => {
    const pcs = (window as unknown as { __pcs: RTCPeerConnection[] }).__pcs ?? [];
    const pc = [...pcs].reverse().find((candidate) => candidate.connectionState === 'connected');
    if (!pc) return null;
    const out = { bytes: 0, energy: 0, state: pc.connectionState };
    (await pc.getStats()).forEach((report: { type: string; kind?: string; bytesReceived?: number; totalAudioEnergy?: number }) => {
      if (report.type === 'inbound-rtp' && report.kind === 'audio') {
        out.bytes = report.bytesReceived ?? 0;
        out.energy = report.totalAudioEnergy ?? 0;
      }
    });
    return out;
  });
}

/** The browser tier's own database (see browser-setup.ts). */
function database(): Client {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${process.env.CENTRALITA_BROWSER_TEST_DB}`;
  return new Client({ connectionString: url.toString() });
}

const describeVoice = rtpengineBinary() ? describe : describe.skip;

describeVoice('inbound phone day: IVR, desk softphone, transfer, disposition, recording', () => {
  let dir: string;
  let rtpengine: RunningRtpengine;
  let kamailio: RunningKamailio;
  let suite: SuiteApi;
  let browser: Browser;
  let db: Client;
  let caller: SipTestCaller | undefined;
  let admin: string;
  let tenantId: string | undefined;
  let lineId: string;
  let trunkId: string;
  let ivrId: string;
  let sipPort: number;
  let savedSettings: PlatformSettings | undefined;
  let savedSoftphone: { wsUrl: string; domain: string; iceServers?: unknown[] } | null = null;
  let caseId: string;
  /** docs/screenshots with VOICE_DAY_SCREENSHOTS=1 (the user guide's "Taking calls"), else the suite's temporary folder. */
  let screenshots: string;
  const contexts: BrowserContext[] = [];
  const agents: { name: string; email: string; id: string; extension: string; page?: Page }[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'centralita-voice-day-'));
    const recordingDir = path.join(dir, 'recordings');
    mkdirSync(recordingDir);
    const dtmfPort = await freeUdpPort();
    rtpengine = await startRtpengine({ dtmfLogDest: { host: '127.0.0.1', port: dtmfPort }, recordingDir });
    kamailio = await startKamailio({ udpHost: '127.0.0.3' });

    db = database();
    await db.connect();
    const shared = await api<{ accessToken: string; user: { clientId: string } }>('POST', '/api/auth/login', null, {
      email: DEMO.admin,
      password: DEMO_PASSWORD,
    });
    tenantId = shared.user.clientId;
    lineId = (
      await api<{ id: string }>('POST', '/api/attention-lines', shared.accessToken, {
        name: `Teléfono día ${tag}`,
        type: 'inbound',
        channel: 'Phone',
        internal: false,
        businessHours: [],
      })
    ).id;
    for (const [index, name] of [`Ana Voz ${tag}`, `Bruno Voz ${tag}`].entries()) {
      const email = `voice-day-${index}-${tag}@demo.centralita.io`;
      const { id } = await createDemoAgent(shared.accessToken, { name, email });
      agents.push({ name, email, id, extension: String(70000 + randomInt(0, 29_999) + index) });
    }
    // Only agent 1 serves the phone line: the call reaches agent 2 by the desk's transfer alone.
    const detail = await api<Record<string, unknown>>('GET', `/api/users/${agents[0]!.id}`, shared.accessToken);
    await api('PUT', `/api/users/${agents[0]!.id}`, shared.accessToken, {
      name: detail.name,
      email: detail.email,
      roleId: detail.roleId,
      active: true,
      attentionLineIds: [lineId],
      campaignIds: detail.campaignIds ?? [],
      pauseReasonCodes: detail.pauseReasonCodes ?? [],
    });

    // The IVR as the console publishes it: the prompt's 8 kHz WAV in the file store, 1 → the phone line.
    writeToneWav(path.join(dir, 'menu.wav'), PROMPT_HZ, 3);
    const store = new PostgresFileStore(async (text, values) => (await db.query(text, values as unknown[])).rows);
    const upload = await store.create(tenantId, 'ivr-prompt');
    await new Promise<void>((resolve, reject) => upload.stream.on('error', reject).end(readFileSync(path.join(dir, 'menu.wav')), resolve));
    const tree: IvrTree = {
      rootNodeId: 'menu',
      nodes: [
        {
          id: 'menu',
          name: 'Menú principal',
          promptText: 'Pulse uno',
          promptAudioUrl: null,
          promptAudioFileId: upload.id,
          timeoutSeconds: 20,
          maxRetries: 0,
          fallback: { type: 'hangup', targetId: null },
          options: [{ digit: '1', label: 'Ventas', destination: { type: 'line', targetId: lineId } }],
        },
      ],
    };
    ivrId = (
      await db.query<{ id: string }>(
        `INSERT INTO ivrs (client_id, name, draft_tree, published_tree, published_version, active, language)
         VALUES ($1, $2, $3, $3, 1, true, 'es') RETURNING id`,
        [tenantId, `Day ${tag}`, JSON.stringify(tree)],
      )
    ).rows[0]!.id;
    // The caller's number is a known contact: an earlier phone conversation with an open case.
    const contactId = (
      await db.query<{ id: string }>(
        `INSERT INTO contacts (tenant_id, channel, channel_account_id, external_id, name) VALUES ($1, 'phone', 'pstn', $2, $3) RETURNING id`,
        [tenantId, FROM, CALLER_NAME],
      )
    ).rows[0]!.id;
    const earlier = randomUUID();
    await db.query(
      `INSERT INTO conversations (id, tenant_id, channel, entry_line_id, attention_line_id, status, customer_name, snapshot, version, last_event, contact_id, created_at, closed_at)
       VALUES ($1, $2, 'phone', $3, $3, 'Closed', $4, '{"value":"Closed","context":{}}'::jsonb, 1, 'test', $5, now() - interval '3 days', now() - interval '3 days')`,
      [earlier, tenantId, lineId, `Anterior ${tag}`, contactId],
    );
    caseId = (
      await db.query<{ id: string }>(
        `INSERT INTO cases (tenant_id, number, subject, description) VALUES ($1, 900000 + floor(random() * 99999)::int, $2, 'Cobro repetido') RETURNING id`,
        [tenantId, CASE_SUBJECT],
      )
    ).rows[0]!.id;
    await db.query(`INSERT INTO case_conversations (conversation_id, case_id, tenant_id) VALUES ($1, $2, $3)`, [earlier, caseId, tenantId]);
    screenshots =
      process.env.VOICE_DAY_SCREENSHOTS === '1' ? path.join(__dirname, '../../docs/screenshots') : path.join(dir, 'screenshots');
    mkdirSync(screenshots, { recursive: true });

    trunkId = (
      await db.query<{ id: string }>(
        `INSERT INTO trunks (client_id, name, host, port, transport, max_concurrent_calls, allowed_sources) VALUES ($1, $2, 'sip.carrier.test', 5060, 'udp', 10, '{127.0.0.2}') RETURNING id`,
        [tenantId, `Carrier ${tag}`],
      )
    ).rows[0]!.id;
    await db.query(`INSERT INTO trunk_inbound_numbers (client_id, trunk_id, number, ivr_id) VALUES ($1, $2, $3, $4)`, [
      tenantId,
      trunkId,
      NUMBER,
      ivrId,
    ]);

    sipPort = await freeUdpPort();
    suite = await startSuiteApi({
      worker: true,
      queuePrefixSuffix: `-voiceday`,
      env: {
        VOICE_SIP_PORT: String(sipPort),
        VOICE_SIP_HOST: '127.0.0.1',
        RTPENGINE_NG: `${rtpengine.ng.host}:${rtpengine.ng.port}`,
        VOICE_DTMF_LISTEN: `127.0.0.1:${dtmfPort}`,
        VOICE_MEDIA_DIR: path.join(dir, 'media'),
        VOICE_PROMPT_CACHE_DIR: path.join(dir, 'prompts'),
        VOICE_OUTBOUND_PROXY: `${kamailio.udp.host}:${kamailio.udp.port}`,
        VOICE_AGENT_MEDIA: 'webrtc',
        VOICE_AGENT_RING_SECONDS: '60',
        VOICE_RECORDING_DIR: recordingDir,
        VOICE_CONNECT_ENABLED: 'true',
        // The SIP server (kamailio) is on loopback, as the browser tier's API allows it.
        OUTGOING_ALLOWED_CIDRS: '127.0.0.0/8',
      },
    });
    admin = (await suite.call<{ accessToken: string }>('POST', '/api/auth/login', null, { email: DEMO.admin, password: DEMO_PASSWORD }))
      .accessToken;
    // The demo tenant's SIP server is this suite's kamailio meanwhile (put back afterwards), and it records calls.
    savedSoftphone = await suite.call<{ wsUrl: string; domain: string } | null>('GET', '/api/softphone/config', admin).catch(() => null);
    await suite.call('PUT', '/api/softphone/config', admin, { wsUrl: kamailio.wsUrl, domain: kamailio.domain, iceServers: [] });
    for (const agent of agents)
      await suite.call('PUT', `/api/softphone/accounts/${agent.id}`, admin, { extension: agent.extension, password: `sip-${tag}` });
    savedSettings = await suite.call<PlatformSettings>('GET', '/api/platform-settings', admin);
    await suite.call('PUT', '/api/platform-settings', admin, { ...savedSettings, callRecording: true, announceCallRecording: false });

    browser = await launchBrowser({ fakeMedia: true });
  }, 240_000);

  afterAll(async () => {
    await caller?.close().catch(() => undefined);
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    if (suite && admin) {
      if (savedSettings) await suite.call('PUT', '/api/platform-settings', admin, savedSettings).catch(() => undefined);
      if (savedSoftphone?.wsUrl)
        await suite
          .call('PUT', '/api/softphone/config', admin, {
            wsUrl: savedSoftphone.wsUrl,
            domain: savedSoftphone.domain,
            iceServers: savedSoftphone.iceServers ?? [],
          })
          .catch(() => undefined);
    }
    if (db) {
      // No SIP server again when the tenant had none (softphone.browser-spec.ts starts from an unconfigured one).
      if (tenantId && !savedSoftphone?.wsUrl) await db.query(`DELETE FROM softphone_configs WHERE client_id = $1`, [tenantId]);
      if (trunkId) await db.query(`DELETE FROM trunk_inbound_numbers WHERE trunk_id = $1`, [trunkId]).catch(() => undefined);
      await db.end();
    }
    await suite?.stop();
    await kamailio?.stop();
    await rtpengine?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** An agent's desk in the suite's console, signed in, available, the softphone dock opened and registered. */
  async function openDesk(agent: (typeof agents)[number], language: 'es' | 'en'): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 }, baseURL: suite.url });
    contexts.push(context);
    await context.addInitScript((lng) => window.localStorage.setItem('language', lng), language);
    await context.addInitScript(KEEP_PEER_CONNECTIONS);
    const page = await context.newPage();
    await page.goto('/session/signin');
    await page.getByTestId('signin-email').fill(agent.email);
    await page.getByTestId('signin-password').fill(DEMO_PASSWORD);
    await page.getByTestId('signin-submit').click();
    await page.waitForURL('**/dashboard/**');
    await page.goto('/conversations/agentConversations');
    await page.locator('[data-testid=connection-status][data-status=online]').waitFor();
    await page.getByTestId('softphone-dock-toggle').click();
    await page.locator('[data-testid=softphone-status][data-state=registered]').waitFor({ timeout: 20_000 });
    await page.getByTestId('presence-available').click();
    agent.page = page;
    return page;
  }

  /** What the caller heard in 100 ms frames since `from`: silence, the hold music, or an agent's voice. */
  function callerHeard(from: number): string[] {
    const heard: string[] = [];
    for (let at = from; at + 100 <= Date.now(); at += 100) {
      const frame = caller!.samples(at, at + 100);
      if (rms(frame) < 200) heard.push('silence');
      else if (VOICE_TONES.hold.some((hz) => toneShare(frame, hz) > 0.5)) heard.push('hold');
      else if (toneShare(frame, PROMPT_HZ) > 0.5) heard.push('prompt');
      else heard.push('agent');
    }
    return heard;
  }

  /** The agent's browser receives the caller's audio over WebRTC, with energy. */
  async function agentHearsCaller(page: Page): Promise<void> {
    let last: unknown = null;
    await eventually(
      async () => {
        const stats = await inboundAudio(page);
        last = stats;
        expect(stats?.state).toBe('connected');
        expect(stats!.bytes).toBeGreaterThan(8000);
        expect(stats!.energy).toBeGreaterThan(0.01);
      },
      { timeoutMs: 20_000, intervalMs: 250 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\nbrowser: ${JSON.stringify(last)}`);
    });
  }

  /** A user-guide screenshot without the notices' toasts; `deskTop`: the side column scrolled back to the customer card. */
  async function shoot(page: Page, name: string, deskTop = false): Promise<void> {
    for (const close of await page.locator('.p-toast-icon-close').all()) await close.click().catch(() => undefined);
    await page.locator('.p-toast-message').first().waitFor({ state: 'detached' });
    if (deskTop) await page.getByTestId('desk-side').evaluate((side) => side.scrollTo(0, 0));
    await page.screenshot({ path: path.join(screenshots, name) });
  }

  /** The ringing softphone's screen pop: the caller's number, the line, the IVR path, the known contact and their open case. */
  async function screenPopShows(page: Page, ivrPath: string, lineName: string): Promise<void> {
    const pop = page.locator('[data-testid=softphone-inbound-pop][data-status=ready]');
    await pop.waitFor({ timeout: 15_000 });
    expect(await pop.getByTestId('softphone-remote-number').textContent()).toBe(FROM);
    expect(await pop.getByTestId('softphone-pop-line').textContent()).toBe(lineName);
    expect(await pop.getByTestId('softphone-pop-ivr').textContent()).toBe(ivrPath);
    expect(await pop.getByTestId('softphone-pop-waited').textContent()).toMatch(/^\d{2}:\d{2}/);
    expect(await pop.getByTestId('softphone-pop-contact').textContent()).toContain(CALLER_NAME);
    const openCase = pop.locator(`[data-testid=softphone-pop-case][data-id="${caseId}"]`);
    expect(await openCase.textContent()).toContain(CASE_SUBJECT);
    expect(await openCase.locator('a').getAttribute('href')).toBe(`/crm/crmlist?case=${caseId}`);
    await pop.getByTestId('softphone-pop-conversation').first().waitFor();
  }

  async function callerHearsAgent(since: number): Promise<void> {
    await eventually(
      () => {
        const heard = callerHeard(since + 500);
        expect(heard.filter((sound) => sound === 'agent').length).toBeGreaterThanOrEqual(3);
        expect(heard).not.toContain('hold');
      },
      { timeoutMs: 20_000, intervalMs: 250 },
    );
  }

  it('a caller goes through the IVR to agent 1, is transferred from the desk to agent 2, and the recording plays', async () => {
    const [ana, bruno] = agents as [(typeof agents)[number], (typeof agents)[number]];
    const anaPage = await openDesk(ana, 'es');
    const brunoPage = await openDesk(bruno, 'en');

    // The caller dials the trunk's number and hears the IVR's stored prompt.
    caller = await SipTestCaller.create(await freeUdpPort('127.0.0.2'));
    caller.setTone(CALLER_HZ);
    expect((await caller.invite({ host: '127.0.0.1', port: sipPort }, { to: NUMBER, from: FROM })).status).toBe(200);
    const answeredAt = Date.now();
    await eventually(
      () => {
        const heard = caller!.samples(answeredAt, Date.now());
        expect(heard.length).toBeGreaterThan(4000);
        expect(rms(heard)).toBeGreaterThan(1000);
        expect(toneShare(heard, PROMPT_HZ)).toBeGreaterThan(0.5);
      },
      { timeoutMs: 10_000 },
    );
    await caller.pressRtp('1');

    // Queued on the line, routed to agent 1: the desk's softphone rings with the screen pop (the caller's number, line,
    // IVR path with the key pressed, the known contact and their open case); Answer.
    await anaPage.locator('[data-testid=softphone-status][data-state=ringing]').waitFor({ timeout: 30_000 });
    await screenPopShows(anaPage, 'Menú principal › 1 Ventas', `Teléfono día ${tag}`);
    await shoot(anaPage, 'softphone-screen-pop-es.png');
    await anaPage.getByTestId('softphone-answer').click();
    await anaPage.locator('[data-testid=softphone-status][data-state=inCall]').waitFor({ timeout: 20_000 });
    const anaAnsweredAt = Date.now();
    await agentHearsCaller(anaPage);
    await callerHearsAgent(anaAnsweredAt);

    // The phone conversation is on agent 1's desk; transferred from there to agent 2.
    // A known caller keeps their contact's name: the desk lists the phone conversation under it.
    const conversation = anaPage.locator('[data-testid=conversation-item]').filter({ hasText: CALLER_NAME });
    await conversation.first().waitFor({ timeout: 20_000 });
    await conversation.first().click();
    // The call's history lines: the IVR's nodes and the key that left it for the line.
    await anaPage.getByText(/^IVR: Ventas \((tecla|key) 1\)$/).waitFor({ timeout: 10_000 });
    // The channel is a word, not a brand: the Spanish desk names it in Spanish.
    expect(await anaPage.getByTestId('chat-window').locator('[data-testid=channel-badge][data-channel=phone]').first().textContent()).toBe(
      'Teléfono',
    );
    // A caller reads no text: the composer is off and says why, in Spanish.
    const composer = anaPage.getByTestId('chat-input');
    expect(await composer.isDisabled()).toBe(true);
    expect(await composer.getAttribute('placeholder')).toBe('Llamada de voz: quien llama no lee mensajes');
    await shoot(anaPage, 'desk-phone-call-es.png', true);
    await anaPage.getByTestId('chat-transfer').click();
    const option = anaPage.locator(`[data-testid=transfer-agent][data-target-id="${bruno.id}"]`);
    await option.and(anaPage.locator('[data-disabled=false]')).waitFor({ timeout: 15_000 });
    await option.locator('input').check();
    await anaPage.getByTestId('transfer-confirm').click();

    // Agent 1's leg is released; agent 2's softphone rings and answers; they hear each other.
    await anaPage.locator('[data-testid=softphone-status][data-state=inCall]').waitFor({ state: 'detached', timeout: 20_000 });
    await brunoPage.locator('[data-testid=softphone-status][data-state=ringing]').waitFor({ timeout: 30_000 });
    await screenPopShows(brunoPage, 'Menú principal › 1 Ventas', `Teléfono día ${tag}`);
    await shoot(brunoPage, 'softphone-screen-pop-en.png');
    await brunoPage.getByTestId('softphone-answer').click();
    await brunoPage.locator('[data-testid=softphone-status][data-state=inCall]').waitFor({ timeout: 20_000 });
    const brunoAnsweredAt = Date.now();
    await agentHearsCaller(brunoPage);
    await callerHearsAgent(brunoAnsweredAt);
    expect(caller.byeReceived).toBe(false);
    const brunoConversation = brunoPage.locator('[data-testid=conversation-item]').filter({ hasText: CALLER_NAME });
    await brunoConversation.first().waitFor({ timeout: 20_000 });
    await brunoConversation.first().click();
    await brunoPage.getByTestId('chat-transfer').waitFor();
    expect(
      await brunoPage.getByTestId('chat-window').locator('[data-testid=channel-badge][data-channel=phone]').first().textContent(),
    ).toBe('Phone');
    await shoot(brunoPage, 'desk-phone-call-en.png', true);

    // Agent 2 hangs up: the caller gets the BYE.
    await brunoPage.getByTestId('softphone-hangup').click();
    await eventually(() => expect(caller!.byeReceived).toBe(true), { timeoutMs: 15_000 });

    // The call's end closes the phone conversation (voice-events.service.ts: call.ended → conversation.closed), so the
    // desk has nothing to close; the disposition is the softphone's own wrap-up form on hang-up, saved to the call log.
    await brunoPage.getByTestId('softphone-disposition').waitFor({ timeout: 10_000 });
    await brunoPage.getByTestId('softphone-disposition-select').selectOption('information');
    await brunoPage.getByTestId('softphone-disposition-notes').fill(`Day ${tag}`);
    await brunoPage.getByTestId('softphone-disposition-save').click();
    await brunoPage.locator('[data-testid=softphone-status][data-state=registered]').waitFor({ timeout: 10_000 });
    await eventually(async () => {
      const { rows } = await db.query<{ disposition: string; notes: string }>(
        `SELECT disposition, notes FROM softphone_calls WHERE user_id = $1`,
        [bruno.id],
      );
      expect(rows).toEqual([{ disposition: 'information', notes: `Day ${tag}` }]);
    });
    await eventually(async () => {
      const { rows } = await db.query<{ status: string }>(
        `SELECT v.status FROM voice_calls c JOIN conversations v ON v.id = c.conversation_id WHERE c.from_number = $1`,
        [FROM],
      );
      expect(rows.map((row) => row.status)).toEqual(['Closed']);
    });

    // The recording plays from the conversation detail of the administrator's report.
    const recordingsOf = async () =>
      (
        await db.query<{ conversation_id: string | null }>(
          `SELECT r.conversation_id FROM voice_recordings r JOIN voice_calls c ON c.id = r.call_id WHERE c.from_number = $1`,
          [FROM],
        )
      ).rows;
    await eventually(async () => expect((await recordingsOf()).length).toBeGreaterThan(0), { timeoutMs: 60_000, intervalMs: 500 });
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 }, baseURL: suite.url });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto('/session/signin');
    await page.getByTestId('signin-email').fill(DEMO.admin);
    await page.getByTestId('signin-password').fill(DEMO_PASSWORD);
    await page.getByTestId('signin-submit').click();
    await page.waitForURL((url) => !url.pathname.startsWith('/session'));
    await page.goto('/reports/reports');
    const row = page.locator('[data-testid=report-row]').filter({ hasText: CALLER_NAME });
    await row.waitFor({ timeout: 20_000 });
    await row.click();
    const player = page.getByTestId('conversation-detail').getByTestId('detail-recordings').getByTestId('call-recording').first();
    await player.waitFor();
    await eventually(async () =>
      expect(await player.locator('audio').evaluate((audio: HTMLAudioElement) => audio.duration)).toBeGreaterThan(1),
    );
  });
});
