import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { VoiceCallEvent, VoiceMonitorMode } from '@centralita/contracts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { SipTestCaller, rms, toneShare } from '../../apps/worker/src/voice/testing/sip-test-caller';
import type { VoiceServer } from '../../apps/worker/src/voice/voice-server';
import { eventually } from '../support/eventually';
import { launchBrowser } from '../support/browser';
import type { RunningKamailio } from '../support/kamailio';
import { freeUdpPort, rtpengineBinary, type RunningRtpengine } from '../support/rtpengine';
import { startWebrtcVoiceStack } from './support/webrtc-voice';

/**
 * Monitoring with the supervisor's browser softphone (issue #22 item 4, VOICE_AGENT_MEDIA=webrtc): a test phone calls
 * (700 Hz), the agent's sip.js in headless Chromium answers (its microphone a 1500 Hz oscillator), then the
 * supervisor's sip.js in another page (a 1100 Hz oscillator) is rung for monitoring. Both browsers are registered at a
 * real kamailio over WebSocket and talk DTLS-SRTP/ICE with a real rtpengine; the worker's mixer sits between the legs.
 * Pitch is read with Web Audio on each browser's received track and per 100 ms window on the test phone:
 * listen — the supervisor hears the caller and the agent, nobody hears the supervisor; whisper — the agent hears the
 * supervisor, the caller never does; stop — the supervisor's softphone gets its BYE and caller and agent go on.
 * The pages come from a loopback HTTP server of the test (sip.js and the softphone script), not from the console.
 */
const SIPJS_LIB = path.resolve(__dirname, '../../node_modules/sip.js/lib');
const MODULES = '/sipjs/';
const SOFTPHONE_SCRIPT = `
  import { Web } from '${MODULES}index.js';
  window.startSoftphone = async ({ wsUrl, domain, user, hz }) => {
    // The microphone says one pitch of its own, so each party can be told apart in what the others hear.
    navigator.mediaDevices.getUserMedia = async () => {
      const context = new AudioContext();
      await context.resume();
      const oscillator = context.createOscillator();
      oscillator.frequency.value = hz;
      const gain = context.createGain();
      gain.gain.value = 0.3;
      const destination = context.createMediaStreamDestination();
      oscillator.connect(gain).connect(destination);
      oscillator.start();
      return destination.stream;
    };
    const remote = document.body.appendChild(document.createElement('audio'));
    const phone = new Web.SimpleUser(wsUrl, {
      aor: 'sip:' + user + '@' + domain,
      media: { constraints: { audio: true, video: false }, remote: { audio: remote } },
      delegate: {
        onCallReceived: () => { window.invited = true; phone.answer().catch((e) => { window.answerError = String(e); }); },
        onCallHangup: () => { window.hungUp = true; },
      },
      userAgentOptions: {
        logLevel: 'error',
        sessionDescriptionHandlerFactoryOptions: { peerConnectionConfiguration: { iceServers: [] }, iceGatheringTimeout: 2000 },
      },
    });
    window.phone = phone;
    await phone.connect();
    await phone.register();
  };
  // The share of the received audio's power (100-3800 Hz) within 20 Hz of each frequency asked for.
  window.heardShares = async (frequencies) => {
    const session = window.phone.session;
    if (!session || !session.sessionDescriptionHandler) return frequencies.map(() => 0);
    const pc = session.sessionDescriptionHandler.peerConnection;
    if (!window.analyser || window.analysedPc !== pc) {
      const track = pc.getReceivers().map((receiver) => receiver.track).find((t) => t && t.kind === 'audio');
      const context = new AudioContext();
      await context.resume();
      const analyser = context.createAnalyser();
      analyser.fftSize = 8192;
      analyser.smoothingTimeConstant = 0;
      context.createMediaStreamSource(new MediaStream([track])).connect(analyser);
      window.analyser = analyser;
      window.analysedPc = pc;
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
const TONE = { caller: 700, agent: 1500, supervisor: 1100 } as const;
type Party = keyof typeof TONE;
/** A share this large means the party is heard (a mix of two gives about half each); this small means not heard. */
const HEARD = 0.15;
const NOT_HEARD = 0.03;

jest.setTimeout(180_000);

const describeWebrtc = rtpengineBinary() ? describe : describe.skip;

type SoftphoneWindow = {
  startSoftphone(options: object): Promise<void>;
  heardShares(frequencies: number[]): Promise<number[]>;
  invited?: boolean;
  hungUp?: boolean;
};

describeWebrtc('monitoring with the supervisor’s browser softphone (WebRTC through kamailio + rtpengine + the mixer)', () => {
  let rtpengine: RunningRtpengine;
  let kamailio: RunningKamailio;
  let server: VoiceServer;
  let browser: Browser;
  let context: BrowserContext;
  let pages: Server;
  let origin = '';
  let caller: SipTestCaller;
  let dir: string;
  let sipPort = 0;
  let events: VoiceCallEvent[] = [];
  const monitorEvents = () =>
    events.flatMap((event) => (event.type === 'call.monitor' ? [`${event.state} ${event.mode} ${event.reason}`] : []));

  beforeAll(async () => {
    ({ rtpengine, kamailio, server, sipPort, dir, events } = await startWebrtcVoiceStack({
      dirPrefix: 'centralita-monitor-webrtc-',
      number: NUMBER,
      tenant: TENANT,
    }));
    // A loopback origin of its own: a secure context for the microphone, allowed to open a WebSocket to kamailio.
    pages = createServer((request, response) => {
      const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
      const file = path.join(SIPJS_LIB, pathname.slice(MODULES.length));
      if (pathname === '/softphone.js') response.writeHead(200, { 'content-type': 'text/javascript' }).end(SOFTPHONE_SCRIPT);
      else if (pathname.startsWith(MODULES) && file.startsWith(SIPJS_LIB) && existsSync(file))
        response.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(file));
      else if (pathname === '/') response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>softphone</title>');
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
    browser = await launchBrowser({ fakeMedia: true });
    context = await browser.newContext();
  }, 120_000);

  afterAll(async () => {
    await caller?.close().catch(() => undefined);
    await server?.stop();
    await context?.close();
    await browser?.close();
    await new Promise((resolve) => (pages ? pages.close(resolve) : resolve(undefined)));
    await kamailio?.stop();
    await rtpengine?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const softphone = async (user: string, hz: number): Promise<Page> => {
    const page = await context.newPage();
    await page.goto(`${origin}/`);
    await page.addScriptTag({ type: 'module', url: `${origin}/softphone.js` });
    await page.waitForFunction(() => 'startSoftphone' in window);
    await page.evaluate((options) => (window as unknown as SoftphoneWindow).startSoftphone(options), {
      wsUrl: kamailio.wsUrl,
      domain: kamailio.domain,
      user,
      hz,
    });
    return page;
  };
  const shares = async (page: Page): Promise<Record<Party, number>> => {
    const [caller700, agent1500, supervisor1100] = await page.evaluate(
      (frequencies) => (window as unknown as SoftphoneWindow).heardShares(frequencies),
      [TONE.caller, TONE.agent, TONE.supervisor],
    );
    return { caller: caller700!, agent: agent1500!, supervisor: supervisor1100! };
  };
  /** 100 ms windows the test phone heard since `from` that carry each party's pitch. */
  const callerHeard = (from: number) => {
    const counts: Record<Party, number> = { caller: 0, agent: 0, supervisor: 0 };
    for (let at = from; at + 100 <= Date.now(); at += 100) {
      const window = caller.samples(at, at + 100);
      if (rms(window) < 200) continue;
      for (const party of Object.keys(TONE) as Party[]) if (toneShare(window, TONE[party]) > 0.2) counts[party] += 1;
    }
    return counts;
  };

  it('the supervisor’s browser hears both parties, and in whisper the agent’s browser hears the supervisor while the caller does not', async () => {
    const agent = await softphone('webrtc-agent-m', TONE.agent);
    const supervisor = await softphone('webrtc-supervisor-m', TONE.supervisor);

    caller = await SipTestCaller.create(await freeUdpPort('127.0.0.2'));
    caller.setTone(TONE.caller);
    expect((await caller.invite({ host: '127.0.0.1', port: sipPort }, { to: NUMBER, from: '+34600000301' })).status).toBe(200);
    await eventually(() => expect(events.map((event) => event.type)).toEqual(['call.started', 'call.queued']));
    const callId = events[0]!.callId;
    await server.command({
      type: 'connect',
      tenantId: TENANT,
      callId,
      conversationId: '00000000-0000-4000-8000-0000000000c3',
      agentId: 'agent-webrtc',
      agentSipUri: `sip:webrtc-agent-m@${kamailio.domain}`,
    });
    await eventually(() => expect(events.map((event) => event.type)).toContain('call.connected'), { timeoutMs: 20_000 });
    // Bridged directly: the agent's browser hears the caller, the caller hears the agent's 1500 Hz.
    await eventually(async () => expect((await shares(agent)).caller).toBeGreaterThan(0.5), { timeoutMs: 15_000, intervalMs: 250 });
    const connectedAt = Date.now() + 300;
    await eventually(() => expect(callerHeard(connectedAt).agent).toBeGreaterThanOrEqual(5), { timeoutMs: 15_000, intervalMs: 250 });

    const monitor = (mode: VoiceMonitorMode) =>
      server.command({
        type: 'monitor',
        tenantId: TENANT,
        callId,
        supervisorId: 'sup-webrtc',
        supervisorSipUri: `sip:webrtc-supervisor-m@${kamailio.domain}`,
        mode,
      });
    await monitor('listen');
    await eventually(
      () => {
        const failed = events.find((event) => event.type === 'call.monitor' && event.state === 'failed');
        if (failed) throw new Error(`monitoring failed: ${JSON.stringify(failed)}`);
        expect(monitorEvents()).toEqual(['started listen answered']);
      },
      { timeoutMs: 20_000 },
    );
    expect(await supervisor.evaluate(() => (window as unknown as SoftphoneWindow).invited)).toBe(true);

    // Listen: the supervisor's browser hears the caller and the agent summed; nobody hears the supervisor.
    await eventually(
      async () => {
        const heard = await shares(supervisor);
        expect(heard.caller).toBeGreaterThan(HEARD);
        expect(heard.agent).toBeGreaterThan(HEARD);
        expect(heard.supervisor).toBeLessThan(NOT_HEARD);
      },
      { timeoutMs: 20_000, intervalMs: 250 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\nrtpengine: ${rtpengine.log().slice(-3000)}`);
    });
    // The agent's WebRTC side was re-offered toward the mixer without a re-INVITE: it still hears the caller.
    await eventually(
      async () => {
        const heard = await shares(agent);
        expect(heard.caller).toBeGreaterThan(0.5);
        expect(heard.supervisor).toBeLessThan(NOT_HEARD);
      },
      { timeoutMs: 15_000, intervalMs: 250 },
    );
    const listenAt = Date.now() + 300;
    await eventually(() => expect(callerHeard(listenAt).agent).toBeGreaterThanOrEqual(10), { timeoutMs: 15_000, intervalMs: 250 });
    expect(callerHeard(listenAt).supervisor).toBe(0);

    // Whisper: the agent's browser hears the supervisor beside the caller; the caller never hears the supervisor.
    await server.command({ type: 'monitor.mode', tenantId: TENANT, callId, supervisorId: 'sup-webrtc', mode: 'whisper' });
    await eventually(() => expect(monitorEvents().at(-1)).toBe('changed whisper mode'));
    const whisperAt = Date.now() + 300;
    await eventually(
      async () => {
        const heard = await shares(agent);
        expect(heard.supervisor).toBeGreaterThan(HEARD);
        expect(heard.caller).toBeGreaterThan(HEARD);
      },
      { timeoutMs: 15_000, intervalMs: 250 },
    );
    await eventually(async () => expect((await shares(supervisor)).caller).toBeGreaterThan(HEARD), { timeoutMs: 10_000, intervalMs: 250 });
    await eventually(() => expect(callerHeard(whisperAt).agent).toBeGreaterThanOrEqual(15), { timeoutMs: 15_000, intervalMs: 250 });
    expect(callerHeard(whisperAt).supervisor).toBe(0);

    // Stop: the supervisor's softphone is hung up; caller and agent are bridged directly again.
    await server.command({ type: 'monitor.stop', tenantId: TENANT, callId, supervisorId: 'sup-webrtc' });
    await eventually(async () => expect(await supervisor.evaluate(() => (window as unknown as SoftphoneWindow).hungUp)).toBe(true));
    expect(monitorEvents()).toEqual(['started listen answered', 'changed whisper mode', 'ended whisper stopped']);
    await eventually(
      async () => {
        const heard = await shares(agent);
        expect(heard.caller).toBeGreaterThan(0.5);
        expect(heard.supervisor).toBeLessThan(NOT_HEARD);
      },
      { timeoutMs: 15_000, intervalMs: 250 },
    ).catch(async (error: Error) => {
      // What the agent's browser received (the transport's packets against the played stream's), for the failure.
      const state = await agent.evaluate(async () => {
        type Session = { sessionDescriptionHandler: { peerConnection: RTCPeerConnection } };
        const pc = (window as unknown as { phone: { session: Session } }).phone.session.sessionDescriptionHandler.peerConnection;
        const stats: unknown[] = [];
        (await pc.getStats()).forEach((report: { type: string }) => {
          if (['inbound-rtp', 'transport', 'candidate-pair'].includes(report.type)) stats.push(report);
        });
        return { state: pc.connectionState, ice: pc.iceConnectionState, stats };
      });
      throw new Error(`${error.message}\nagent: ${JSON.stringify(state)}\nrtpengine: ${rtpengine.log().slice(-6000)}`);
    });
    const stoppedAt = Date.now() + 300;
    await eventually(() => expect(callerHeard(stoppedAt).agent).toBeGreaterThanOrEqual(10), { timeoutMs: 15_000, intervalMs: 250 });
    expect(callerHeard(stoppedAt).supervisor).toBe(0);

    expect((await caller.hangUp()).status).toBe(200);
    await eventually(() => expect(events.map((event) => event.type)).toContain('call.ended'));
  });
});
