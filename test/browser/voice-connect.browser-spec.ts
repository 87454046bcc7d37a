import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { VoiceCallEvent } from '@centralita/contracts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { SipTestCaller, rms, toneShare } from '../../apps/worker/src/voice/testing/sip-test-caller';
import { VOICE_TONES } from '../../apps/worker/src/voice/voice-media-files';
import type { VoiceServer } from '../../apps/worker/src/voice/voice-server';
import { eventually } from '../support/eventually';
import { launchBrowser, newPage } from '../support/browser';
import type { RunningKamailio } from '../support/kamailio';
import { freeUdpPort, rtpengineBinary, type RunningRtpengine } from '../support/rtpengine';
import { startWebrtcVoiceStack } from './support/webrtc-voice';

/**
 * The WebRTC profile of 'connect' (VOICE_AGENT_MEDIA=webrtc): the voice server (in this process, real rtpengine)
 * rings an agent whose sip.js user agent runs in headless Chromium with a fake microphone, registered over WebSocket at
 * a real kamailio; sip.js answers, DTLS-SRTP and ICE come up against rtpengine, the test phone hears the fake
 * microphone (energy that is not hold music) and the browser receives the caller's 700 Hz (getStats: bytes and level;
 * Web Audio: the pitch). sip.js's hold and unhold re-INVITEs are answered through rtpengine (the caller hears the hold
 * music while held, the agent again after).
 */
const SIPJS_LIB = path.resolve(__dirname, '../../node_modules/sip.js/lib');
const MODULES = '/__test-agent/sipjs/';
const AGENT_SCRIPT = `
  import { Web } from '${MODULES}index.js';
  window.startAgent = async ({ wsUrl, domain, user }) => {
    const remote = document.body.appendChild(document.createElement('audio'));
    const agent = new Web.SimpleUser(wsUrl, {
      aor: 'sip:' + user + '@' + domain,
      media: { constraints: { audio: true, video: false }, remote: { audio: remote } },
      delegate: { onCallReceived: () => { window.invited = true; agent.answer().catch((e) => { window.answerError = String(e); }); } },
      userAgentOptions: {
        logLevel: 'error',
        sessionDescriptionHandlerFactoryOptions: { peerConnectionConfiguration: { iceServers: [] }, iceGatheringTimeout: 2000 },
      },
    });
    window.agent = agent;
    await agent.connect();
    await agent.register();
  };
  window.inboundAudio = async () => {
    const pc = window.agent && window.agent.session && window.agent.session.sessionDescriptionHandler
      && window.agent.session.sessionDescriptionHandler.peerConnection;
    if (!pc) return null;
    const out = { bytes: 0, energy: 0, state: pc.connectionState, ice: pc.iceConnectionState, remote: (pc.remoteDescription || {}).sdp };
    (await pc.getStats()).forEach((report) => {
      if (report.type === 'inbound-rtp' && report.kind === 'audio') {
        out.bytes = report.bytesReceived || 0;
        out.energy = report.totalAudioEnergy || 0;
      }
    });
    return out;
  };
  // What the agent hears, by pitch: the share of the received audio's power (100-3800 Hz) within a few bins of each
  // frequency asked for (Web Audio's analyser on the received track; the <audio> element keeps it flowing).
  window.heardShares = async (frequencies) => {
    const pc = window.agent.session.sessionDescriptionHandler.peerConnection;
    if (!window.analyser) {
      const track = pc.getReceivers().map((receiver) => receiver.track).find((t) => t && t.kind === 'audio');
      const context = new AudioContext();
      await context.resume();
      const analyser = context.createAnalyser();
      analyser.fftSize = 8192;
      analyser.smoothingTimeConstant = 0;
      context.createMediaStreamSource(new MediaStream([track])).connect(analyser);
      window.analyser = analyser;
    }
    const analyser = window.analyser;
    const bins = new Float32Array(analyser.frequencyBinCount);
    analyser.getFloatFrequencyData(bins);
    const binHz = analyser.context.sampleRate / analyser.fftSize;
    const power = (from, to) => {
      let sum = 0;
      for (let i = Math.max(0, Math.round(from / binHz)); i <= Math.round(to / binHz); i++) sum += Math.pow(10, bins[i] / 10);
      return sum;
    };
    const total = power(100, 3800);
    return frequencies.map((hz) => (total > 0 ? power(hz - 20, hz + 20) / total : 0));
  };
`;
const TENANT = '00000000-0000-4000-8000-000000000001';
const NUMBER = '+34910000020';
const CALLER_HZ = 700;

jest.setTimeout(90_000);

/**
 * The agent leg is a side of its own in rtpengine (voice-server.ts, agentMediaTag): offered on the platform sink's side
 * instead, rtpengine 10.5 took the DTLS client role while offering actpass and refused Chromium's ClientHello
 * ("DTLS error: 1 (unexpected message)"). Skipped only where rtpengine is not installed (.ci/run installs it).
 */
const describeWebrtc = rtpengineBinary() ? describe : describe.skip;

describeWebrtc('connect to a browser softphone (WebRTC through kamailio + rtpengine)', () => {
  let rtpengine: RunningRtpengine;
  let kamailio: RunningKamailio;
  let server: VoiceServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let caller: SipTestCaller;
  let dir: string;
  let sipPort = 0;
  let events: VoiceCallEvent[] = [];

  beforeAll(async () => {
    ({ rtpengine, kamailio, server, sipPort, dir, events } = await startWebrtcVoiceStack({
      dirPrefix: 'centralita-voice-webrtc-',
      number: NUMBER,
      tenant: TENANT,
    }));
    browser = await launchBrowser({ fakeMedia: true });
    ({ context, page } = await newPage(browser, { language: 'en' }));
    await context.route(`**${MODULES}**`, async (route) => {
      const file = path.join(SIPJS_LIB, new URL(route.request().url()).pathname.slice(MODULES.length));
      if (!file.startsWith(SIPJS_LIB) || !existsSync(file)) return route.fulfill({ status: 404 });
      return route.fulfill({ path: file, contentType: 'text/javascript' });
    });
    await context.route('**/__test-agent/agent.js', (route) => route.fulfill({ contentType: 'text/javascript', body: AGENT_SCRIPT }));
  }, 90_000);

  afterAll(async () => {
    await caller?.close().catch(() => undefined);
    await server?.stop();
    await context?.close();
    await browser?.close();
    await kamailio?.stop();
    await rtpengine?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the browser answers, each side hears the other, hold plays the hold music until it resumes, and a transfer reaches a second browser', async () => {
    // A page of the console's origin (Chromium refuses a WebSocket to 127.0.0.1 from a page the test fulfilled itself).
    await page.goto('/session/signin');
    await page.addScriptTag({ type: 'module', url: '/__test-agent/agent.js' });
    await page.waitForFunction(() => 'startAgent' in window);
    await page.evaluate((options) => (window as unknown as { startAgent(options: object): Promise<void> }).startAgent(options), {
      wsUrl: kamailio.wsUrl,
      domain: kamailio.domain,
      user: 'webrtc-agent',
    });

    caller = await SipTestCaller.create(await freeUdpPort('127.0.0.2'));
    caller.setTone(CALLER_HZ);
    const from = '+34600000201';
    expect((await caller.invite({ host: '127.0.0.1', port: sipPort }, { to: NUMBER, from })).status).toBe(200);
    await eventually(() => expect(events.map((event) => event.type)).toEqual(['call.started', 'call.queued']));
    const callId = events[0]!.callId;

    await server.command({
      type: 'connect',
      tenantId: TENANT,
      callId,
      conversationId: '00000000-0000-4000-8000-0000000000c2',
      agentId: 'agent-webrtc',
      agentSipUri: `sip:webrtc-agent@${kamailio.domain}`,
    });
    await eventually(async () => expect(await page.evaluate(() => (window as unknown as { invited?: boolean }).invited)).toBe(true), {
      timeoutMs: 10_000,
    });
    await eventually(
      () => {
        const error = events.find((event) => event.type === 'call.connectFailed');
        if (error) throw new Error(`connect failed: ${JSON.stringify(error)}`);
        expect(events.map((event) => event.type)).toContain('call.connected');
      },
      { timeoutMs: 15_000 },
    );
    const connectedAt = Date.now();

    let lastStats: unknown = null;
    // The browser receives the caller: audio bytes and energy (the 700 Hz) over DTLS-SRTP.
    const inbound = () =>
      page.evaluate(() =>
        (window as unknown as { inboundAudio(): Promise<{ bytes: number; energy: number; state: string } | null> }).inboundAudio(),
      );
    await eventually(
      async () => {
        const stats = await inbound();
        lastStats = stats;
        expect(stats?.state).toBe('connected');
        expect(stats!.bytes).toBeGreaterThan(8000);
        expect(stats!.energy).toBeGreaterThan(0.01);
      },
      { timeoutMs: 15_000, intervalMs: 250 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\nbrowser: ${JSON.stringify(lastStats)}\nrtpengine: ${rtpengine.log().slice(-3000)}`);
    });
    // And it is the caller's voice, not hold music: most of what the browser plays is the caller's 700 Hz.
    await eventually(
      async () => {
        const [caller700, ...hold] = await page.evaluate(
          (frequencies) => (window as unknown as { heardShares(f: number[]): Promise<number[]> }).heardShares(frequencies),
          [CALLER_HZ, ...VOICE_TONES.hold],
        );
        expect(caller700).toBeGreaterThan(0.6);
        for (const share of hold) expect(share).toBeLessThan(0.05);
      },
      { timeoutMs: 10_000, intervalMs: 250 },
    );
    // The caller hears the fake microphone (Chromium's beeps): energy that is neither silence nor hold music.
    await eventually(
      () => {
        const heard: string[] = [];
        for (let at = connectedAt + 300; at + 100 <= Date.now(); at += 100) {
          const frame = caller.samples(at, at + 100);
          if (rms(frame) < 200) heard.push('silence');
          else if (VOICE_TONES.hold.some((hz) => toneShare(frame, hz) > 0.5)) heard.push('hold');
          else heard.push('agent');
        }
        expect(heard.filter((sound) => sound === 'agent').length).toBeGreaterThanOrEqual(3);
        expect(heard).not.toContain('hold');
      },
      { timeoutMs: 15_000, intervalMs: 250 },
    );

    // The softphone's Hold (sip.js re-INVITE, a=sendonly): accepted (sip.js says held only after the 200 OK), and the
    // caller hears the hold music; Resume (a=sendrecv): the music stops, each side hears the other again over the
    // same DTLS-SRTP session.
    const callerHeard = (from: number) => {
      const heard: string[] = [];
      for (let at = from; at + 100 <= Date.now(); at += 100) {
        const frame = caller.samples(at, at + 100);
        if (rms(frame) < 200) heard.push('silence');
        else if (VOICE_TONES.hold.some((hz) => toneShare(frame, hz) > 0.5)) heard.push('hold');
        else heard.push('agent');
      }
      return heard;
    };
    type SimpleUserOnPage = { agent: { hold(): Promise<void>; unhold(): Promise<void>; isHeld(): boolean } };
    await page.evaluate(() => (window as unknown as SimpleUserOnPage).agent.hold());
    expect(await page.evaluate(() => (window as unknown as SimpleUserOnPage).agent.isHeld())).toBe(true);
    const heldAt = Date.now();
    await eventually(() => expect(callerHeard(heldAt + 300).filter((sound) => sound === 'hold').length).toBeGreaterThanOrEqual(10), {
      timeoutMs: 10_000,
      intervalMs: 250,
    });
    await page.evaluate(() => (window as unknown as SimpleUserOnPage).agent.unhold());
    expect(await page.evaluate(() => (window as unknown as SimpleUserOnPage).agent.isHeld())).toBe(false);
    const resumedAt = Date.now();
    await eventually(
      () => {
        const heard = callerHeard(resumedAt + 500);
        expect(heard.filter((sound) => sound === 'agent').length).toBeGreaterThanOrEqual(3);
        expect(heard).not.toContain('hold');
      },
      { timeoutMs: 15_000, intervalMs: 250 },
    );
    await eventually(
      async () => {
        const [caller700] = await page.evaluate(
          (frequencies) => (window as unknown as { heardShares(f: number[]): Promise<number[]> }).heardShares(frequencies),
          [CALLER_HZ],
        );
        expect(caller700).toBeGreaterThan(0.6);
      },
      { timeoutMs: 10_000, intervalMs: 250 },
    );
    expect(events.map((event) => event.type)).toEqual(['call.started', 'call.queued', 'call.connected']);

    // A transfer to another agent, as the API asks it ('release' of the first, 'connect' of the second): the first
    // softphone gets its BYE, the caller hears the hold music, then the second browser softphone answers and hears them.
    const second = await context.newPage();
    await second.goto('/session/signin');
    await second.addScriptTag({ type: 'module', url: '/__test-agent/agent.js' });
    await second.waitForFunction(() => 'startAgent' in window);
    await second.evaluate((options) => (window as unknown as { startAgent(options: object): Promise<void> }).startAgent(options), {
      wsUrl: kamailio.wsUrl,
      domain: kamailio.domain,
      user: 'webrtc-agent-2',
    });
    await server.command({ type: 'release', tenantId: TENANT, callId, agentId: 'agent-webrtc', reason: 'transferred' });
    await eventually(() => expect(events.map((event) => event.type)).toContain('call.released'));
    await eventually(async () =>
      expect(await page.evaluate(() => !(window as unknown as { agent: { session?: unknown } }).agent.session)).toBe(true),
    );
    const releasedAt = Date.now();
    await eventually(() => expect(callerHeard(releasedAt + 300).filter((sound) => sound === 'hold').length).toBeGreaterThanOrEqual(5), {
      timeoutMs: 10_000,
      intervalMs: 250,
    });
    expect(caller.byeReceived).toBe(false);
    await server.command({
      type: 'connect',
      tenantId: TENANT,
      callId,
      conversationId: '00000000-0000-4000-8000-0000000000c2',
      agentId: 'agent-webrtc-2',
      agentSipUri: `sip:webrtc-agent-2@${kamailio.domain}`,
    });
    await eventually(() => expect(events.filter((event) => event.type === 'call.connected')).toHaveLength(2), { timeoutMs: 15_000 });
    await eventually(
      async () => {
        const [caller700] = await second.evaluate(
          (frequencies) => (window as unknown as { heardShares(f: number[]): Promise<number[]> }).heardShares(frequencies),
          [CALLER_HZ],
        );
        expect(caller700).toBeGreaterThan(0.6);
      },
      { timeoutMs: 15_000, intervalMs: 250 },
    );
    const transferredAt = Date.now();
    await eventually(
      () => {
        const heard = callerHeard(transferredAt + 300);
        expect(heard.filter((sound) => sound === 'agent').length).toBeGreaterThanOrEqual(3);
        expect(heard).not.toContain('hold');
      },
      { timeoutMs: 15_000, intervalMs: 250 },
    );
    expect(events.map((event) => event.type)).toEqual(['call.started', 'call.queued', 'call.connected', 'call.released', 'call.connected']);

    expect((await caller.hangUp()).status).toBe(200);
    await eventually(() => expect(events.map((event) => event.type)).toContain('call.ended'));
    expect(events.find((event) => event.type === 'call.ended')).toMatchObject({ by: 'caller' });
  });
});
