import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { QUEUES, type IvrTree, type VoiceCallEvent } from '@centralita/contracts';
import { Worker } from 'bullmq';
import { eventually } from '../../../../test/support/eventually';
import { freeUdpPort, rtpengineBinary, startRtpengine, type RunningRtpengine } from '../../../../test/support/rtpengine';
import type { ResolvedInboundNumber } from './inbound-numbers';
import { SipTestCaller, toneShare } from './testing/sip-test-caller';
import { writeToneWav } from './testing/tone-wav';
import type { VoiceConfig } from './voice-config';
import { QueueVoiceEventSink } from './voice-events';
import { VoiceServer } from './voice-server';

/**
 * SIP over TCP and TLS (VOICE_SIP_TCP_PORT / VOICE_SIP_TLS_PORT) and the carrier source check, with real SIP on
 * loopback, a real rtpengine and the real BullMQ queue: a phone over TCP and one over TLS (a self-signed certificate made
 * by openssl here) hear the IVR prompt and get the platform's BYE back over their own connection; SIPp over TCP
 * (`-t t1`) walks the tree with sip-tester's RFC 4733 pcaps. Debian's SIPp is built without OpenSSL (`-t l1` answers
 * "To use a TLS transport you must compile SIPp with OpenSSL"), so the TLS caller is the Node phone. Sources: a trunk
 * with allowed sources takes 127.0.0.2 and answers 127.0.0.3 with 403; a trunk without any takes its host only.
 */
const RTPENGINE = rtpengineBinary();
const OPENSSL = '/usr/bin/openssl';
if (!RTPENGINE) console.warn('sip-transports.int-spec: rtpengine is not installed (apt-get install rtpengine-daemon): skipped');
const describeVoice = RTPENGINE && existsSync(OPENSSL) ? describe : describe.skip;
const SIPP = process.env.SIPP_PATH ?? '/usr/bin/sipp';

const TENANT = '00000000-0000-4000-8000-000000000031';
const MENU_HZ = 1000;

const TREE: IvrTree = {
  rootNodeId: 'n1',
  nodes: [
    {
      id: 'n1',
      name: 'Menu',
      promptText: 'Menu',
      promptAudioUrl: null,
      promptAudioFileId: 'menu-file',
      timeoutSeconds: 5,
      maxRetries: 0,
      fallback: { type: 'hangup', targetId: null },
      options: [{ digit: '1', label: 'Sales', destination: { type: 'node', targetId: 'n2' } }],
    },
    {
      id: 'n2',
      name: 'Sales',
      promptText: 'Sales',
      promptAudioUrl: null,
      timeoutSeconds: 5,
      maxRetries: 0,
      fallback: { type: 'hangup', targetId: null },
      options: [{ digit: '3', label: 'Queue', destination: { type: 'line', targetId: 'line-sales' } }],
    },
  ],
};

function freeTcpPort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

describeVoice('VoiceServer over TCP and TLS, with the carrier source check', () => {
  let rtpengine: RunningRtpengine;
  let server: VoiceServer;
  let sink: QueueVoiceEventSink;
  let collector: Worker;
  let dir: string;
  let config: VoiceConfig;
  const events: VoiceCallEvent[] = [];
  const callers: SipTestCaller[] = [];
  const prefix = `${process.env.QUEUE_PREFIX ?? 'ct'}-voice-transports-${process.pid}`;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

  /** +34910000031: a trunk whose allowed sources are 127.0.0.2 and 127.0.0.64/26; +34910000033: one with host 127.0.0.4 and no list. */
  const numbers: Record<string, Omit<ResolvedInboundNumber, 'number'>> = {
    '+34910000031': {
      tenantId: TENANT,
      trunkId: 'trunk-listed',
      ivrId: 'ivr-main',
      attentionLineId: null,
      language: 'es',
      trunkHost: 'sip.carrier.invalid',
      allowedSources: ['127.0.0.2', '127.0.0.64/26'],
    },
    // The Node phone's TCP/TLS connections leave from 127.0.0.1 (the package connects without binding a source address).
    '+34910000032': {
      tenantId: TENANT,
      trunkId: 'trunk-local',
      ivrId: 'ivr-main',
      attentionLineId: null,
      language: 'es',
      trunkHost: 'sip.carrier.invalid',
      allowedSources: ['127.0.0.1'],
    },
    '+34910000033': {
      tenantId: TENANT,
      trunkId: 'trunk-host',
      ivrId: 'ivr-main',
      attentionLineId: null,
      language: 'es',
      trunkHost: '127.0.0.4',
      allowedSources: [],
    },
  };

  const fromOf = (callId: string) => {
    const started = events.find((event) => event.callId === callId && event.type === 'call.started');
    return started?.type === 'call.started' ? started.from : null;
  };
  const summary = (from: string) => {
    const started = events.find((event) => event.type === 'call.started' && event.from === from);
    return started
      ? events
          .filter((event) => event.callId === started.callId)
          .map((event) => (event.type === 'ivr.step' ? `ivr.step ${event.nodeName} ${event.digit}` : event.type))
      : [];
  };
  const menuFrames = (caller: SipTestCaller, from: number) => {
    let count = 0;
    for (let at = from; at + 100 <= Date.now(); at += 100) if (toneShare(caller.samples(at, at + 100), MENU_HZ) > 0.5) count += 1;
    return count;
  };
  const newCaller = async (options: { host?: string; transport?: 'udp' | 'tcp' | 'tls' } = {}) => {
    const host = options.host ?? '127.0.0.2';
    const port = options.transport && options.transport !== 'udp' ? await freeTcpPort(host) : await freeUdpPort(host);
    const caller = await SipTestCaller.create(port, options);
    callers.push(caller);
    return caller;
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'centralita-voice-transports-'));
    writeToneWav(path.join(dir, 'menu.wav'), MENU_HZ, 3);
    execFileSync(
      OPENSSL,
      [
        ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1'],
        ...['-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')],
      ],
      { stdio: 'ignore' },
    );
    const dtmfPort = await freeUdpPort();
    rtpengine = await startRtpengine({ dtmfLogDest: { host: '127.0.0.1', port: dtmfPort } });
    const sipPort = await freeUdpPort();
    config = {
      sipHost: '127.0.0.1',
      sipPublicHost: '127.0.0.1',
      sipPort,
      sipTcpPort: await freeTcpPort(),
      sipTls: { port: await freeTcpPort(), cert: path.join(dir, 'cert.pem'), key: path.join(dir, 'key.pem') },
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
        events.push(job.data as VoiceCallEvent);
      },
      { connection: { url: redisUrl, maxRetriesPerRequest: null }, prefix, concurrency: 1 },
    );
    server = new VoiceServer(config, {
      resolveNumber: async (called) => {
        const key = called.startsWith('+') ? called : `+${called}`;
        return numbers[key] ? { ...numbers[key], number: key } : null;
      },
      loadIvr: async (tenantId, ivrId) => (tenantId === TENANT && ivrId === 'ivr-main' ? { tree: TREE, version: 1, language: 'es' } : null),
      promptFile: async (tenantId, id) => (tenantId === TENANT && id === 'menu-file' ? path.join(dir, 'menu.wav') : null),
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

  it.each(['tcp', 'tls'] as const)(
    'answers a call over %s: Contact on that transport, the prompt heard, the BYE back over the same connection',
    async (transport) => {
      const caller = await newCaller({ transport });
      const from = transport === 'tcp' ? '+34600003101' : '+34600003102';
      const port = transport === 'tcp' ? config.sipTcpPort! : config.sipTls!.port;
      const response = await caller.invite({ host: '127.0.0.1', port }, { to: '+34910000032', from });
      const answeredAt = Date.now();
      expect(response.status).toBe(200);
      expect(response.headers.via[0]!.protocol?.toUpperCase()).toBe(transport.toUpperCase());
      const contact = Array.isArray(response.headers.contact) ? response.headers.contact[0]!.uri : '';
      expect(contact).toBe(`sip:+34910000032@127.0.0.1:${port};transport=${transport}`);
      try {
        await eventually(() => expect(menuFrames(caller, answeredAt)).toBeGreaterThanOrEqual(5), { timeoutMs: 8000 });
        await eventually(() => expect(summary(from)).toEqual(['call.started', 'ivr.step Menu null']));
        const callId = events.find((event) => event.type === 'call.started' && event.from === from)!.callId;
        expect(fromOf(callId)).toBe(from);
        // The platform hangs up: its BYE reaches the phone over the connection the call came in on.
        await server.command({ type: 'hangUp', tenantId: TENANT, callId, reason: 'conversationClosed' });
        await caller.waitForBye();
        expect(caller.requests.find((request) => request.method === 'BYE')!.headers.via[0]!.protocol?.toUpperCase()).toBe(
          transport.toUpperCase(),
        );
        await eventually(() => expect(summary(from)).toEqual(['call.started', 'ivr.step Menu null', 'call.ended']));
      } finally {
        if (!caller.byeReceived) await caller.hangUp().catch(() => undefined);
      }
    },
  );

  (existsSync(SIPP) ? it : it.skip)("walks the tree for SIPp over TCP (-t t1) playing sip-tester's RFC 4733 pcaps", async () => {
    const sipPort = await freeTcpPort('127.0.0.2');
    const mediaPort = await freeUdpPort('127.0.0.2');
    const args = [
      `127.0.0.1:${config.sipTcpPort}`,
      ...['-t', 't1', '-sf', path.join(__dirname, 'testing', 'sipp-dtmf-caller.xml'), '-s', '+34910000031', '-m', '1'],
      ...['-i', '127.0.0.2', '-p', String(sipPort), '-mi', '127.0.0.2', '-mp', String(mediaPort)],
      ...['-timeout', '20s', '-timeout_error', '-nostdin', '-trace_err', '-error_file', path.join(dir, 'sipp-errors.log')],
    ];
    const sipp = spawn(SIPP, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
    let output = '';
    sipp.stdout.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
    sipp.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => sipp.on('exit', resolve));
    expect({ code, output: code === 0 ? '' : output }).toEqual({ code: 0, output: '' });
    await eventually(() =>
      expect(summary('+34600009999')).toEqual(['call.started', 'ivr.step Menu null', 'ivr.step Sales 1', 'call.queued', 'call.abandoned']),
    );
  });

  it('answers 403 to a source the trunk does not allow and creates nothing; an allowed network is taken', async () => {
    const refused = await newCaller({ host: '127.0.0.3' });
    const before = events.length;
    const response = await refused.invite({ host: '127.0.0.1', port: config.sipPort }, { to: '+34910000031', from: '+34600003103' });
    expect(response.status).toBe(403);
    expect(server.activeCalls).toBe(0);

    // 127.0.0.70 is in the trunk's 127.0.0.64/26.
    const networked = await newCaller({ host: '127.0.0.70' });
    const ok = await networked.invite({ host: '127.0.0.1', port: config.sipPort }, { to: '+34910000031', from: '+34600003104' });
    expect(ok.status).toBe(200);
    await eventually(() => expect(summary('+34600003104')).toEqual(['call.started', 'ivr.step Menu null']));
    await networked.hangUp();
    await eventually(() => expect(summary('+34600003104')).toEqual(['call.started', 'ivr.step Menu null', 'call.abandoned']));
    // Nothing at all was reported for the refused call.
    expect(events.slice(before).some((event) => fromOf(event.callId) === '+34600003103')).toBe(false);
    expect(events.some((event) => event.type === 'call.started' && event.from === '+34600003103')).toBe(false);
  });

  it("without allowed sources takes the trunk's host only (also over TCP)", async () => {
    const other = await newCaller({ host: '127.0.0.2', transport: 'tcp' });
    const refused = await other.invite({ host: '127.0.0.1', port: config.sipTcpPort! }, { to: '+34910000033', from: '+34600003105' });
    expect(refused.status).toBe(403);
    expect(server.activeCalls).toBe(0);

    const host = await newCaller({ host: '127.0.0.4' });
    const ok = await host.invite({ host: '127.0.0.1', port: config.sipPort }, { to: '+34910000033', from: '+34600003106' });
    expect(ok.status).toBe(200);
    await eventually(() => expect(summary('+34600003106')).toEqual(['call.started', 'ivr.step Menu null']));
    await host.hangUp();
    await eventually(() => expect(server.activeCalls).toBe(0));
    expect(events.some((event) => event.type === 'call.started' && event.from === '+34600003105')).toBe(false);
  });
});
