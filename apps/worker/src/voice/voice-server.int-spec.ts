import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { QUEUES, type IvrTree, type VoiceCallEvent } from '@centralita/contracts';
import { Worker } from 'bullmq';
import { eventually } from '../../../../test/support/eventually';
import { freeUdpPort, rtpengineBinary, startRtpengine, type RunningRtpengine } from '../../../../test/support/rtpengine';
import type { PublishedIvr, ResolvedInboundNumber } from './inbound-numbers';
import { SipTestCaller, rms, toneShare } from './testing/sip-test-caller';
import { writeToneWav } from './testing/tone-wav';
import type { VoiceConfig } from './voice-config';
import { QueueVoiceEventSink } from './voice-events';
import { VOICE_TONES } from './voice-media-files';
import { QueueAnnouncements } from './queue-announcements';
import { VoiceServer } from './voice-server';

/**
 * The inbound voice server with real SIP (UDP, the `sip` package on both ends) and real RTP through a real rtpengine on
 * loopback: the caller hears the prompts (decoded G.711, tone detection), presses keys as RFC 4733 events (end packet
 * three times, a non-default payload type) or SIP INFO, and every step reaches the real BullMQ queue the API reads.
 * Numbers and trees come from an in-memory stand-in for the database lookups (inbound-numbers.ts has its own tests).
 */
const RTPENGINE = rtpengineBinary();
if (!RTPENGINE)
  console.warn('voice-server.int-spec: rtpengine is not installed (apt-get install rtpengine-daemon): the voice media tests are skipped');
const describeVoice = RTPENGINE ? describe : describe.skip;
/** SIPp (Debian's sip-tester, with the DTMF pcaps in /usr/share/sip-tester): installed by .ci/run. */
const SIPP = process.env.SIPP_PATH ?? '/usr/bin/sipp';
if (RTPENGINE && !existsSync(SIPP))
  console.warn('voice-server.int-spec: SIPp is not installed (apt-get install sip-tester): its pcap test is skipped');

const TENANT = '00000000-0000-4000-8000-000000000001';
/** The recorded "Menu" prompt of the test: 1.5 s of 1000 Hz, told apart from the generated 440 Hz tone and the hold notes. */
const MENU_HZ = 1000;
/** The closed line's off-hours sentence of the test: 1 s of 1500 Hz. */
const CLOSED_HZ = 1500;
/** A second tenant with its own hold music (2 s of 800 Hz) and a position announcement every 2 s. */
const TENANT2 = '00000000-0000-4000-8000-000000000002';
const OWN_HOLD_HZ = 800;

const node = (id: string, name: string, extra: Partial<IvrTree['nodes'][number]>): IvrTree['nodes'][number] => ({
  id,
  name,
  promptText: name,
  promptAudioUrl: null,
  timeoutSeconds: 5,
  maxRetries: 0,
  fallback: { type: 'hangup', targetId: null },
  options: [],
  ...extra,
});

const MAIN: IvrTree = {
  rootNodeId: 'n1',
  nodes: [
    node('n1', 'Menu', {
      promptAudioFileId: 'menu-file',
      timeoutSeconds: 1,
      maxRetries: 1,
      fallback: { type: 'line', targetId: 'line-fallback' },
      options: [
        { digit: '1', label: 'Sales', destination: { type: 'node', targetId: 'n2' } },
        { digit: '2', label: 'Other menu', destination: { type: 'ivr', targetId: 'ivr-second' } },
        { digit: '9', label: 'Bye', destination: { type: 'hangup', targetId: null } },
        { digit: '7', label: 'Closed', destination: { type: 'line', targetId: 'line-closed' } },
      ],
    }),
    node('n2', 'Sales', { options: [{ digit: '3', label: 'Queue', destination: { type: 'line', targetId: 'line-sales' } }] }),
  ],
};
const SECOND: IvrTree = {
  rootNodeId: 's1',
  nodes: [node('s1', 'Second', { options: [{ digit: '4', label: 'Agent', destination: { type: 'agent', targetId: 'agent-1' } }] })],
};

describeVoice('VoiceServer (real SIP + rtpengine on loopback)', () => {
  let rtpengine: RunningRtpengine;
  let server: VoiceServer;
  let sink: QueueVoiceEventSink;
  let collector: Worker;
  let dir: string;
  let config: VoiceConfig;
  const events: { id: string; name: string; data: VoiceCallEvent }[] = [];
  const callers: SipTestCaller[] = [];
  let slowLookup: { release: () => void } | null = null;
  const closedAsked: string[] = [];
  const positionAsked: string[] = [];
  const prefix = `${process.env.QUEUE_PREFIX ?? 'ct'}-voice-${process.pid}`;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

  const numbers: Record<string, Omit<ResolvedInboundNumber, 'number'>> = {
    '+34910000001': { tenantId: TENANT, trunkId: 'trunk-1', ivrId: 'ivr-main', attentionLineId: null, language: 'es' },
    '+34910000002': { tenantId: TENANT, trunkId: 'trunk-1', ivrId: null, attentionLineId: 'line-direct', language: 'es' },
    '+34910000003': { tenantId: TENANT, trunkId: 'trunk-1', ivrId: null, attentionLineId: 'line-direct', language: 'es' },
    '+34910000004': { tenantId: TENANT2, trunkId: 'trunk-2', ivrId: null, attentionLineId: 'line-announced', language: 'en' },
  };
  const ivrs: Record<string, IvrTree> = { 'ivr-main': MAIN, 'ivr-second': SECOND };

  const server$ = () => ({ host: '127.0.0.1', port: config.sipPort });
  const newCaller = async () => {
    const caller = await SipTestCaller.create(await freeUdpPort('127.0.0.2'));
    callers.push(caller);
    return caller;
  };
  /** The events of the call whose caller presented `from`, in queue order. */
  const callEvents = (from: string) => {
    const started = events.find((event) => event.data.type === 'call.started' && event.data.from === from);
    return started ? events.filter((event) => event.data.callId === started.data.callId) : [];
  };
  const summary = (from: string) =>
    callEvents(from).map(({ data }) => {
      switch (data.type) {
        case 'ivr.step':
          return `ivr.step ${data.ivrId}/${data.nodeName} ${data.digit}`;
        case 'call.queued':
          return `call.queued ${data.attentionLineId} ${data.path.join('>')}`;
        case 'call.toAgent':
          return `call.toAgent ${data.agentId} ${data.path.join('>')}`;
        case 'call.abandoned':
          return `call.abandoned ${data.stage}`;
        case 'call.ended':
          return `call.ended ${data.by} ${data.reason}`;
        default:
          return data.type;
      }
    });
  /** 100 ms frames of what the caller heard since `from`: the dominant sound of each ('menu', 'tone', 'hold', 'silence'). */
  const frames = (caller: SipTestCaller, from: number, to: number) => {
    const out: string[] = [];
    for (let at = from; at + 100 <= to; at += 100) {
      const samples = caller.samples(at, at + 100);
      if (rms(samples) < 200) out.push('silence');
      else if (toneShare(samples, MENU_HZ) > 0.5) out.push('menu');
      else if (toneShare(samples, CLOSED_HZ) > 0.5) out.push('closed');
      else if (toneShare(samples, OWN_HOLD_HZ) > 0.5) out.push('ownhold');
      else if (toneShare(samples, VOICE_TONES.prompt) > 0.5) out.push('tone');
      else if (VOICE_TONES.hold.some((hz) => toneShare(samples, hz) > 0.5)) out.push('hold');
      else out.push('other');
    }
    return out;
  };
  /** Runs of equal frames, e.g. ['menu×14', 'silence×10', …]. */
  const runs = (list: string[]) =>
    list.reduce<{ sound: string; count: number }[]>((acc, sound) => {
      const last = acc[acc.length - 1];
      if (last?.sound === sound) last.count += 1;
      else acc.push({ sound, count: 1 });
      return acc;
    }, []);

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'centralita-voice-'));
    writeToneWav(path.join(dir, 'menu.wav'), MENU_HZ);
    writeToneWav(path.join(dir, 'closed.wav'), CLOSED_HZ, 1);
    writeToneWav(path.join(dir, 'own-hold.wav'), OWN_HOLD_HZ, 2);
    const announcements = new QueueAnnouncements(path.join(dir, 'positions'));
    const dtmfPort = await freeUdpPort();
    rtpengine = await startRtpengine({ dtmfLogDest: { host: '127.0.0.1', port: dtmfPort } });
    config = {
      sipHost: '127.0.0.1',
      sipPublicHost: '127.0.0.1',
      sipPort: await freeUdpPort(),
      rtpengine: rtpengine.ng,
      dtmfListen: { host: '127.0.0.1', port: dtmfPort },
      mediaDir: path.join(dir, 'media'),
      outboundProxy: null,
      agentMedia: 'rtp',
      agentRingSeconds: 30,
    };
    sink = new QueueVoiceEventSink({ redisUrl, queuePrefix: prefix }, () => undefined);
    collector = new Worker(
      QUEUES.voiceCallEvents,
      async (job) => {
        events.push({ id: job.id!, name: job.name, data: job.data as VoiceCallEvent });
      },
      { connection: { url: redisUrl, maxRetriesPerRequest: null }, prefix, concurrency: 1 },
    );
    server = new VoiceServer(config, {
      resolveNumber: async (called) => {
        const key = called.startsWith('+') ? called : `+${called}`;
        if (key === '+34910000003') await new Promise<void>((resolve) => (slowLookup = { release: resolve })); // held until the test releases it
        return numbers[key] ? { ...numbers[key], number: key } : null;
      },
      loadIvr: async (tenantId, ivrId): Promise<PublishedIvr | null> =>
        tenantId === TENANT && ivrs[ivrId] ? { tree: ivrs[ivrId], version: 1, language: 'es' } : null,
      promptFile: async (tenantId, id) =>
        tenantId === TENANT2 && id === 'own-hold-file'
          ? path.join(dir, 'own-hold.wav')
          : tenantId !== TENANT
            ? null
            : id === 'menu-file'
              ? path.join(dir, 'menu.wav')
              : id === 'closed-file'
                ? path.join(dir, 'closed.wav')
                : null,
      voiceSettings: async (tenantId) =>
        tenantId === TENANT2
          ? { holdMusicFileId: 'own-hold-file', queueAnnouncementSeconds: 2 }
          : { holdMusicFileId: null, queueAnnouncementSeconds: 0 },
      queuePosition: async (tenantId, callId) => {
        positionAsked.push(callId);
        return tenantId === TENANT2 ? 3 : null;
      },
      announcement: (language, position) => announcements.path(language, position),
      lineClosed: async (tenantId, lineId, language) => {
        closedAsked.push(`${lineId} ${language}`);
        return tenantId === TENANT && lineId === 'line-closed' ? { audioFileId: 'closed-file' } : null;
      },
      events: sink,
    });
    await server.start();
  });

  afterAll(async () => {
    for (const caller of callers) await caller.close().catch(() => undefined);
    await server?.stop();
    await sink?.close();
    await collector?.close();
    await rtpengine?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers an unknown number with 404 and reports nothing', async () => {
    const caller = await newCaller();
    const before = events.length;
    const response = await caller.invite(server$(), { to: '+34999999999', from: '+34600000404' });
    expect(response.status).toBe(404);
    expect(server.activeCalls).toBe(0);
    expect(events.length).toBe(before);
  });

  it('plays the prompt, walks the tree on RFC 4733 keys with barge-in, queues with hold music, and reports a queue abandon', async () => {
    const caller = await newCaller();
    const from = '+34600000001';
    const response = await caller.invite(server$(), { to: '+34910000001', from, telephoneEvent: 96 });
    const answeredAt = Date.now();
    expect(response.status).toBe(200);
    // rtpengine's answer carries the caller's codec and its telephone-event payload type, nothing else.
    expect(response.content).toMatch(/^m=audio \d+ RTP\/AVP 0 96\r?$/m);
    expect(response.content).toMatch(/a=rtpmap:96 telephone-event\/8000/);

    // The recorded Menu prompt is heard…
    await eventually(() => expect(frames(caller, answeredAt, Date.now()).filter((f) => f === 'menu').length).toBeGreaterThanOrEqual(5), {
      timeoutMs: 5000,
    });
    // …and a key in the middle of it stops it (barge-in) and moves to Sales, whose prompt has no audio: the tone plays.
    await caller.pressRtp('1');
    await eventually(() => expect(summary(from)).toContain('ivr.step ivr-main/Sales 1'));
    // The step is reported after the prompt was stopped: from then on (plus packets in flight) no more Menu.
    const steppedAt = Date.now() + 150;
    expect(frames(caller, answeredAt, steppedAt).filter((f) => f === 'menu').length).toBeLessThan(15); // cut short of its 1.5 s
    await eventually(() => expect(frames(caller, steppedAt, Date.now()).filter((f) => f === 'tone').length).toBeGreaterThanOrEqual(3), {
      timeoutMs: 5000,
    });
    expect(frames(caller, steppedAt, Date.now())).not.toContain('menu');

    const queuedAt = Date.now();
    await caller.pressRtp('3');
    await eventually(() => expect(summary(from)).toContain('call.queued line-sales Menu>Sales'));
    // Hold music in a loop after the queueing.
    await eventually(
      () => expect(frames(caller, queuedAt + 300, Date.now()).filter((f) => f === 'hold').length).toBeGreaterThanOrEqual(15),
      { timeoutMs: 6000 },
    );
    expect(frames(caller, queuedAt + 300, Date.now())).not.toContain('menu');

    expect((await caller.hangUp()).status).toBe(200);
    await eventually(() => expect(summary(from)).toContain('call.abandoned queue'));
    // One key per event although each end packet came three times; seq and job ids in order.
    expect(summary(from)).toEqual([
      'call.started',
      'ivr.step ivr-main/Menu null',
      'ivr.step ivr-main/Sales 1',
      'call.queued line-sales Menu>Sales',
      'call.abandoned queue',
    ]);
    const mine = callEvents(from);
    expect(mine.map((event) => event.data.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(mine.map((event) => event.id)).toEqual(mine.map((event) => `voice.${event.data.callId}.${event.data.seq}`));
    expect(mine.map((event) => event.name)).toEqual(mine.map((event) => event.data.type));
    // The key that left the IVR and its option's label (the agent's screen pop ends the path with it).
    expect(mine[3]!.data).toMatchObject({ type: 'call.queued', exit: { digit: '3', label: 'Queue' } });
    expect(mine[0]!.data).toMatchObject({
      type: 'call.started',
      tenantId: TENANT,
      trunkId: 'trunk-1',
      from,
      to: '+34910000001',
      ivrId: 'ivr-main',
    });
    expect(mine[0]!.data.callId).toMatch(/^[0-9a-f-]{36}$/);
    await eventually(() => expect(server.activeCalls).toBe(0));
  });

  it('replays the prompt after a timeout, then takes the fallback', async () => {
    const caller = await newCaller();
    const from = '+34600000002';
    const response = await caller.invite(server$(), { to: '+34910000001', from });
    expect(response.status).toBe(200);
    try {
      await eventually(() => expect(summary(from)).toContain('call.queued line-fallback Menu'), { timeoutMs: 10_000 });
      assertPromptTimeline(caller, Date.now());
      expect(summary(from)).toEqual(['call.started', 'ivr.step ivr-main/Menu null', 'call.queued line-fallback Menu']);
      // A fallback is no key: no exit option.
      expect(callEvents(from).find((event) => event.data.type === 'call.queued')!.data).toMatchObject({ exit: null });
    } finally {
      // Always: a call left up by a failed assertion would fail every later test's "no call left".
      await caller.hangUp();
    }
    await eventually(() => expect(summary(from)).toContain('call.abandoned queue'));
  });

  /**
   * The first call's timeline as the caller heard it: prompt, timeout, prompt, timeout. Timed from the
   * first packet heard, not from when the test saw the 200 OK: on a loaded machine the test can read
   * the answer late, which would cut the start of the first prompt off.
   */
  function assertPromptTimeline(caller: SipTestCaller, queuedAt: number) {
    const answeredAt = caller.heard[0]!.at;
    // Prompt (1.5 s), 1 s of waiting, the prompt again, 1 s, then the fallback line.
    // (Runs shorter than 300 ms — a frame straddling a start or a stop — are left out.)
    const heard = runs(
      frames(caller, answeredAt, queuedAt).filter(
        (sound, index, all) =>
          all.slice(index, index + 3).every((s) => s === sound) || all.slice(Math.max(0, index - 2), index + 1).every((s) => s === sound),
      ),
    );
    // Whatever the media relay sent before the prompt began is not part of the timeline.
    if (heard[0]?.sound === 'silence') heard.shift();
    expect(heard.map((run) => run.sound)).toEqual(['menu', 'silence', 'menu', 'silence']);
    // Each prompt lasts its 1.5 s and each wait its 1 s timeout (in 100 ms frames, with room for a loaded machine).
    const [firstPrompt, firstWait, secondPrompt, secondWait] = heard.map((run) => run.count);
    for (const prompt of [firstPrompt!, secondPrompt!]) {
      expect(prompt).toBeGreaterThanOrEqual(12);
      expect(prompt).toBeLessThanOrEqual(17);
    }
    for (const wait of [firstWait!, secondWait!]) {
      expect(wait).toBeGreaterThanOrEqual(8);
      expect(wait).toBeLessThanOrEqual(16);
    }
  }

  it('reports a hang-up during the IVR as an IVR abandon', async () => {
    const caller = await newCaller();
    const from = '+34600000003';
    expect((await caller.invite(server$(), { to: '+34910000001', from })).status).toBe(200);
    await eventually(() => expect(summary(from)).toContain('ivr.step ivr-main/Menu null'));
    await caller.hangUp();
    await eventually(() => expect(summary(from)).toEqual(['call.started', 'ivr.step ivr-main/Menu null', 'call.abandoned ivr']));
  });

  it('takes keys by SIP INFO (dtmf-relay) when no telephone-event is offered, across IVRs to an agent', async () => {
    const caller = await newCaller();
    const from = '+34600000004';
    const response = await caller.invite(server$(), { to: '+34910000001', from, telephoneEvent: null });
    expect(response.status).toBe(200);
    expect(response.content).not.toMatch(/telephone-event/);
    await eventually(() => expect(summary(from)).toContain('ivr.step ivr-main/Menu null'));
    expect((await caller.pressInfo('2')).status).toBe(200);
    await eventually(() => expect(summary(from)).toContain('ivr.step ivr-second/Second 2'));
    expect((await caller.pressInfo('4')).status).toBe(200);
    await eventually(() => expect(summary(from)).toContain('call.toAgent agent-1 Menu>Second'));
    await caller.hangUp();
    await eventually(() => expect(summary(from)).toContain('call.abandoned queue'));
  });

  it("ends the call with a BYE on the IVR's hang-up destination", async () => {
    const caller = await newCaller();
    const from = '+34600000005';
    expect((await caller.invite(server$(), { to: '+34910000001', from })).status).toBe(200);
    await eventually(() => expect(summary(from)).toContain('ivr.step ivr-main/Menu null'));
    await caller.pressRtp('9');
    await caller.waitForBye();
    await eventually(() => expect(summary(from)).toEqual(['call.started', 'ivr.step ivr-main/Menu null', 'call.ended system menu']));
  });

  it('plays the off-hours message of a line that is closed, then hangs up without queueing (not an abandon)', async () => {
    const caller = await newCaller();
    const from = '+34600000008';
    expect((await caller.invite(server$(), { to: '+34910000001', from })).status).toBe(200);
    await eventually(() => expect(summary(from)).toContain('ivr.step ivr-main/Menu null'));
    const pressedAt = Date.now();
    await caller.pressRtp('7');
    await caller.waitForBye();
    const byeAt = Date.now();
    // The 1 s sentence was heard (the menu cut by the key), then the BYE: never hold music.
    const heard = frames(caller, pressedAt, byeAt);
    expect(heard.filter((f) => f === 'closed').length).toBeGreaterThanOrEqual(7);
    expect(heard).not.toContain('hold');
    expect(closedAsked).toContain('line-closed es');
    await eventually(() => expect(summary(from)).toEqual(['call.started', 'ivr.step ivr-main/Menu null', 'call.ended system lineClosed']));
    await eventually(() => expect(server.activeCalls).toBe(0));
  });

  it("reports a hang-up during the closed line's message as ended by the caller, not as an abandon", async () => {
    const caller = await newCaller();
    const from = '+34600000009';
    expect((await caller.invite(server$(), { to: '+34910000001', from })).status).toBe(200);
    await eventually(() => expect(summary(from)).toContain('ivr.step ivr-main/Menu null'));
    await caller.pressRtp('7');
    await eventually(() => expect(frames(caller, Date.now() - 1000, Date.now())).toContain('closed'));
    expect((await caller.hangUp()).status).toBe(200);
    await eventually(() => expect(summary(from)).toEqual(['call.started', 'ivr.step ivr-main/Menu null', 'call.ended caller lineClosed']));
  });

  it("plays the tenant's own hold music and, every N seconds, the caller's position over it (espeak-ng), then the music again", async () => {
    const caller = await newCaller();
    const from = '+34600000010';
    expect((await caller.invite(server$(), { to: '+34910000004', from })).status).toBe(200);
    const answeredAt = Date.now();
    await eventually(() => expect(summary(from)).toEqual(['call.started', 'call.queued line-announced ']));
    const callId = callEvents(from)[0]!.data.callId;
    // Own music for 2 s, the sentence (speech: neither music nor silence), then the own music again.
    await eventually(
      () => {
        const heard = runs(frames(caller, answeredAt + 300, Date.now()).filter((f) => f !== 'silence')).filter((run) => run.count >= 3);
        expect(heard.map((run) => run.sound).slice(0, 3)).toEqual(['ownhold', 'other', 'ownhold']);
      },
      { timeoutMs: 9000 },
    );
    const all = frames(caller, answeredAt + 300, Date.now());
    expect(all).not.toContain('hold'); // never the built-in music
    expect(all.filter((f) => f === 'other').length).toBeGreaterThanOrEqual(8); // "You are number 3 in the queue." ≈ 1.5 s
    expect(positionAsked).toContain(callId);
    expect((await caller.hangUp()).status).toBe(200);
    await eventually(() => expect(summary(from)).toContain('call.abandoned queue'));
    await eventually(() => expect(server.activeCalls).toBe(0));
  });

  it('queues a number without IVR straight away (PCMA), answers OPTIONS and re-INVITE, and hangs up on the hangUp command', async () => {
    const caller = await newCaller();
    expect((await caller.options(server$())).status).toBe(200);
    const from = '+34600000006';
    const response = await caller.invite(server$(), { to: '+34910000002', from, codec: 'PCMA' });
    expect(response.status).toBe(200);
    expect(response.content).toMatch(/^m=audio \d+ RTP\/AVP 8 101\r?$/m);
    const answeredAt = Date.now();
    await eventually(() => expect(summary(from)).toEqual(['call.started', 'call.queued line-direct ']));
    expect(callEvents(from)[0]!.data).toMatchObject({ ivrId: null });
    // The 4 s hold file loops: still hold music well after its first pass.
    await eventually(
      () => {
        expect(Date.now()).toBeGreaterThan(answeredAt + 5000);
        expect(frames(caller, answeredAt + 4300, answeredAt + 5000).filter((f) => f === 'hold').length).toBeGreaterThanOrEqual(5);
      },
      { timeoutMs: 8000 },
    );

    // A re-INVITE (same offer) is answered with the same media.
    const mediaPort = /^m=audio (\d+)/m.exec(response.content!)![1];
    const again = await caller.request('INVITE', { contentType: 'application/sdp', content: caller.offerSdp('PCMA', 101) });
    expect(again.status).toBe(200);
    expect(/^m=audio (\d+)/m.exec(again.content!)![1]).toBe(mediaPort);

    const callId = callEvents(from)[0]!.data.callId;
    await server.command({ type: 'hangUp', tenantId: TENANT, callId, reason: 'conversationClosed' });
    await caller.waitForBye();
    await eventually(() =>
      expect(summary(from)).toEqual(['call.started', 'call.queued line-direct ', 'call.ended system conversationClosed']),
    );
  });

  (existsSync(SIPP) ? it : it.skip)(
    "walks the tree for SIPp playing sip-tester's shipped RFC 4733 pcaps (keys 1 then 3, end packets three times)",
    async () => {
      const sipPort = await freeUdpPort('127.0.0.2');
      const mediaPort = await freeUdpPort('127.0.0.2');
      const args = [
        `127.0.0.1:${config.sipPort}`,
        ...['-sf', path.join(__dirname, 'testing', 'sipp-dtmf-caller.xml'), '-s', '+34910000001', '-m', '1'],
        ...['-i', '127.0.0.2', '-p', String(sipPort), '-mi', '127.0.0.2', '-mp', String(mediaPort)],
        ...['-timeout', '20s', '-timeout_error', '-nostdin', '-trace_err', '-error_file', path.join(dir, 'sipp-errors.log')],
      ];
      const sipp = spawn(SIPP, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
      let output = '';
      sipp.stdout.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
      sipp.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => sipp.on('exit', resolve));
      expect({ code, output: code === 0 ? '' : output }).toEqual({ code: 0, output: '' });
      const from = '+34600009999';
      await eventually(() =>
        expect(summary(from)).toEqual([
          'call.started',
          'ivr.step ivr-main/Menu null',
          'ivr.step ivr-main/Sales 1',
          'call.queued line-sales Menu>Sales',
          'call.abandoned queue',
        ]),
      );
    },
  );

  it('answers a CANCEL before the answer with 487 and reports nothing', async () => {
    const caller = await newCaller();
    const before = events.length;
    let cancelled: Promise<{ status: number }> | null = null;
    const final = await caller.invite(server$(), { to: '+34910000003', from: '+34600000007' }, () => {
      cancelled ??= eventually(() => expect(slowLookup).not.toBeNull()).then(async () => {
        const answer = await caller.cancel();
        slowLookup!.release();
        return answer;
      });
    });
    expect(final.status).toBe(487);
    expect(cancelled).not.toBeNull();
    expect((await cancelled!).status).toBe(200);
    await eventually(() => expect(server.activeCalls).toBe(0));
    expect(events.length).toBe(before);
  });
});
