import { randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { QUEUES, type IvrTree, type VoiceCallEvent, type VoiceCommand } from '@centralita/contracts';
import { PostgresFileStore } from '@centralita/contracts/server';
import type { INestApplicationContext } from '@nestjs/common';
import { Queue, Worker } from 'bullmq';
import Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../../api/src/database/data-source';
import { createTenant } from '../../../api/test/support/factories';
import { createLine } from '../../../api/test/support/realtime';
import { eventually } from '../../../../test/support/eventually';
import { freeUdpPort, rtpengineBinary, startRtpengine, type RunningRtpengine } from '../../../../test/support/rtpengine';
import { createWorker } from '../main';
import { SipTestCaller, rms, toneShare } from './testing/sip-test-caller';
import { writeToneWav } from './testing/tone-wav';
import { VOICE_STATUS_KEY } from './voice-worker.module';

/**
 * The worker as `npm start` runs it, with VOICE_SIP_PORT set: its VoiceServer finds the called number, the published
 * IVR and the prompt's audio (in the file store) in PostgreSQL, plays the stored prompt through a real rtpengine, takes
 * a key, reports to the real queue, keeps its status key in Redis, and obeys a hangUp job from QUEUES.voiceCommands.
 */
const describeVoice = rtpengineBinary() ? describe : describe.skip;
if (!rtpengineBinary()) console.warn('voice-worker.int-spec: rtpengine is not installed (apt-get install rtpengine-daemon): skipped');

describeVoice('worker with VOICE_SIP_PORT (database, file store, queues)', () => {
  let ds: DataSource;
  let rtpengine: RunningRtpengine;
  let worker: INestApplicationContext | null = null;
  let collector: Worker;
  let commands: Queue;
  let redis: Redis;
  let dir: string;
  let sipPort: number;
  const events: VoiceCallEvent[] = [];
  const queuePrefix = `${process.env.QUEUE_PREFIX ?? 'ct'}-voicew-${randomBytes(3).toString('hex')}`;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const number = `+3493${String(randomInt(0, 10_000_000)).padStart(7, '0')}`;
  let tenantId: string;
  let lineId: string;
  let ivrId: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'centralita-voice-worker-'));
    ds = createDataSource(process.env.DATABASE_URL!);
    await ds.initialize();
    const tenant = await createTenant(ds);
    tenantId = tenant.client.id;
    lineId = await createLine(ds, tenant, 'Phone line');

    // The prompt as the IVR publish stores it: an 8 kHz mono WAV in the file store (1000 Hz here, to be recognised).
    writeToneWav(path.join(dir, 'menu.wav'), 1000);
    const store = new PostgresFileStore((text, values) => ds.query(text, values));
    const upload = await store.create(tenantId, 'ivr-prompt');
    await new Promise<void>((resolve, reject) => upload.stream.on('error', reject).end(readFileSync(path.join(dir, 'menu.wav')), resolve));

    const tree: IvrTree = {
      rootNodeId: 'menu',
      nodes: [
        {
          id: 'menu',
          name: 'Menu',
          promptText: 'Pulse uno',
          promptAudioUrl: null,
          promptAudioFileId: upload.id,
          timeoutSeconds: 10,
          maxRetries: 0,
          fallback: { type: 'hangup', targetId: null },
          options: [{ digit: '1', label: null, destination: { type: 'line', targetId: lineId } }],
        },
      ],
    };
    [{ id: ivrId }] = await ds.query(
      `INSERT INTO ivrs (client_id, name, draft_tree, published_tree, published_version, active, language)
       VALUES ($1, 'Main', $2, $2, 1, true, 'es') RETURNING id`,
      [tenantId, JSON.stringify(tree)],
    );
    const [trunk] = await ds.query(
      `INSERT INTO trunks (client_id, name, host, port, transport, max_concurrent_calls, allowed_sources) VALUES ($1, 'Carrier', 'sip.example.com', 5060, 'udp', 10, '{127.0.0.2}') RETURNING id`,
      [tenantId],
    );
    await ds.query(`INSERT INTO trunk_inbound_numbers (client_id, trunk_id, number, ivr_id) VALUES ($1, $2, $3, $4)`, [
      tenantId,
      trunk.id,
      number,
      ivrId,
    ]);

    const dtmfPort = await freeUdpPort();
    rtpengine = await startRtpengine({ dtmfLogDest: { host: '127.0.0.1', port: dtmfPort } });
    sipPort = await freeUdpPort();
    collector = new Worker(QUEUES.voiceCallEvents, async (job) => void events.push(job.data as VoiceCallEvent), {
      connection: { url: redisUrl, maxRetriesPerRequest: null },
      prefix: queuePrefix,
    });
    commands = new Queue(QUEUES.voiceCommands, { connection: { url: redisUrl, maxRetriesPerRequest: null }, prefix: queuePrefix });
    redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
    worker = await createWorker({
      env: {
        ...process.env,
        VOICE_SIP_PORT: String(sipPort),
        VOICE_SIP_HOST: '127.0.0.1',
        RTPENGINE_NG: `${rtpengine.ng.host}:${rtpengine.ng.port}`,
        VOICE_DTMF_LISTEN: `127.0.0.1:${dtmfPort}`,
        VOICE_MEDIA_DIR: path.join(dir, 'media'),
        VOICE_PROMPT_CACHE_DIR: path.join(dir, 'prompts'),
      },
      config: { queuePrefix, channelSendEnabled: false },
      logger: ['error'],
    });
  });

  afterAll(async () => {
    await worker?.close();
    await collector?.close();
    await commands?.close();
    redis?.disconnect();
    await rtpengine?.stop();
    await ds?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers the number with its published IVR, plays the stored prompt, queues on a key and hangs up on the command', async () => {
    const status = JSON.parse((await redis.get(`${queuePrefix}:${VOICE_STATUS_KEY}`)) ?? 'null');
    expect(status).toMatchObject({ sip: `127.0.0.1:${sipPort}`, rtpengine: 'up', calls: 0 });

    const caller = await SipTestCaller.create(await freeUdpPort('127.0.0.2'));
    try {
      const response = await caller.invite({ host: '127.0.0.1', port: sipPort }, { to: number, from: '+34611222333' });
      expect(response.status).toBe(200);
      const answeredAt = Date.now();
      // The stored prompt (1000 Hz) is what the caller hears.
      await eventually(
        () => {
          const heard = caller.samples(answeredAt, Date.now());
          expect(heard.length).toBeGreaterThan(4000);
          expect(rms(heard)).toBeGreaterThan(1000);
          expect(toneShare(heard, 1000)).toBeGreaterThan(0.5);
        },
        { timeoutMs: 5000 },
      );
      await caller.pressRtp('1');
      await eventually(() => expect(events.map((event) => event.type)).toEqual(['call.started', 'ivr.step', 'call.queued']));
      expect(events[0]).toMatchObject({ tenantId, from: '+34611222333', to: number, ivrId, seq: 1 });
      expect(events[1]).toMatchObject({ ivrId, nodeId: 'menu', nodeName: 'Menu', digit: null, seq: 2 });
      expect(events[2]).toMatchObject({ attentionLineId: lineId, path: ['Menu'], seq: 3 });

      const command: VoiceCommand = { type: 'hangUp', tenantId, callId: events[0]!.callId, reason: 'conversationClosed' };
      await commands.add(command.type, command);
      await caller.waitForBye();
      await eventually(() => expect(events[3]).toMatchObject({ type: 'call.ended', by: 'system', reason: 'conversationClosed', seq: 4 }));
    } finally {
      await caller.close();
    }
    await worker!.close();
    worker = null;
    expect(await redis.get(`${queuePrefix}:${VOICE_STATUS_KEY}`)).toBeNull();
  });
});
