import { QUEUES, type VoiceCallEvent, type VoiceCommand } from '@centralita/contracts';
import type { FileStore } from '@centralita/contracts/server';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import type request from 'supertest';
import { eventually } from '../../../../../test/support/eventually';
import { randomUUID } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '../../../src/config/app-config';
import { FILE_STORE } from '../../../src/modules/files/files.module';
import { MachineHostService } from '../../../src/modules/machine-host/machine-host.service';
import type { TestTenant } from '../../support/factories';
import { createLine, createStaff, createTenant } from '../../support/realtime';
import { startTestApp, type TestApp } from '../../support/test-app';

export interface VoiceTestApp {
  t: TestApp;
  /** The real `voice-call-events` queue the API consumes: post events as the worker's voice server does. */
  events: Queue<VoiceCallEvent>;
  /** The `voice-commands` queue the API writes (connect, release, hangUp…) for the worker. */
  commands: Queue<VoiceCommand>;
  config: AppConfig;
  close(): Promise<void>;
}

/**
 * An API on its own queue prefix and its own database (suite-database.ts: another suite's routing
 * sweeper would otherwise give our callers to our agents and send the `connect` to its own voice
 * queue), with calls connectable (VOICE_CONNECT_ENABLED on unless `connectEnabled` is false: then
 * callers are offered to nobody), for suites that play the worker's part on the voice queues;
 * `afterCallWorkSeconds`, when given, is the host's after-call-work timer for this app.
 */
export async function startVoiceTestApp(
  name: string,
  options: { afterCallWorkSeconds?: number; accessTtlSeconds?: number; connectEnabled?: boolean } = {},
): Promise<VoiceTestApp> {
  const prefix = `${process.env.QUEUE_PREFIX ?? 'centralita'}-${name}-${process.pid}`;
  const saved = { AFTER_CALL_WORK_SECONDS: process.env.AFTER_CALL_WORK_SECONDS };
  if (options.afterCallWorkSeconds !== undefined) process.env.AFTER_CALL_WORK_SECONDS = String(options.afterCallWorkSeconds);
  let t: TestApp;
  try {
    t = await startTestApp(
      { queuePrefix: prefix, ...(options.accessTtlSeconds ? { jwt: { accessTtlSeconds: options.accessTtlSeconds } } : {}) },
      { ownDatabase: true },
    );
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  const events = new Queue<VoiceCallEvent>(QUEUES.voiceCallEvents, { connection: redis, prefix });
  const commands = new Queue<VoiceCommand>(QUEUES.voiceCommands, { connection: redis, prefix });
  const config = t.app.get<AppConfig>(APP_CONFIG);
  config.voiceConnectEnabled = options.connectEnabled ?? true;
  return {
    t,
    events,
    commands,
    config,
    async close() {
      config.voiceConnectEnabled = false;
      for (const queue of [events, commands]) {
        await queue.obliterate({ force: true }).catch(() => undefined);
        await queue.close();
      }
      redis.disconnect();
      await t.close();
    },
  };
}

/** Switches the tenant's history and messages to English, so suites assert its lines in English. */
export async function englishTenant(t: TestApp, tenant: TestTenant): Promise<void> {
  await t.dataSource.query(`UPDATE clients SET language = 'en' WHERE id = $1`, [tenant.client.id]);
}

/** A phone line of the tenant named `name` (a per-run suffix by default); resolves with its id. */
export async function createPhoneLine(t: TestApp, tenant: TestTenant, name = `Phone ${randomUUID().slice(0, 6)}`): Promise<string> {
  const lineId = await createLine(t.dataSource, tenant, name);
  await t.dataSource.query(`UPDATE attention_lines SET channel = 'Phone' WHERE id = $1`, [lineId]);
  return lineId;
}

/** The tenant's carrier trunk (UDP, 10 calls); resolves with its id. */
export async function createTrunk(t: TestApp, tenant: TestTenant): Promise<string> {
  const [trunk] = (await t.dataSource.query(
    `INSERT INTO trunks (client_id, name, host, transport, max_concurrent_calls) VALUES ($1, 'Carrier', 'sip.carrier.test', 'udp', 10) RETURNING id`,
    [tenant.client.id],
  )) as { id: string }[];
  return trunk!.id;
}

/** An empty IVR "Main" of the tenant; resolves with its id. */
export async function createIvr(t: TestApp, tenant: TestTenant): Promise<string> {
  const [ivr] = (await t.dataSource.query(
    `INSERT INTO ivrs (client_id, name, draft_tree) VALUES ($1, 'Main', '{"rootNodeId":"n1","nodes":[]}') RETURNING id`,
    [tenant.client.id],
  )) as { id: string }[];
  return ivr!.id;
}

/**
 * A new English tenant with a phone line (named `lineName`, a per-run name by default), a carrier
 * trunk and a softphone configuration: agents given softphone accounts can be offered its calls.
 */
export async function createPhoneTenant(t: TestApp, lineName?: string): Promise<{ tenant: TestTenant; lineId: string; trunkId: string }> {
  const tenant = await createTenant(t.dataSource);
  await englishTenant(t, tenant);
  const lineId = await createPhoneLine(t, tenant, lineName);
  const trunkId = await createTrunk(t, tenant);
  await createSoftphoneConfig(t, tenant);
  return { tenant, lineId, trunkId };
}

/** The tenant's softphone configuration (kept if it has one), so its agents' phones can be offered calls. */
export async function createSoftphoneConfig(t: TestApp, tenant: TestTenant): Promise<void> {
  await t.dataSource.query(
    `INSERT INTO softphone_configs (client_id, ws_url, domain) VALUES ($1, 'wss://sip.test/ws', 'voice.test') ON CONFLICT (client_id) DO NOTHING`,
    [tenant.client.id],
  );
}

/**
 * An agent serving `lineId`, named `name` when given, with a softphone account (extension and auth
 * user from `extension`), logged in (capacity 3 unless given, pause reason 'break') and so available;
 * resolves with the staff member.
 */
export async function createSoftphoneAgent(
  t: TestApp,
  tenant: TestTenant,
  lineId: string,
  options: { extension: (userId: string) => string; name?: string; capacity?: number },
) {
  const staff = await createStaff(t, tenant, 'AGENT', [lineId]);
  if (options.name !== undefined) await t.dataSource.query(`UPDATE users SET name = $2 WHERE id = $1`, [staff.userId, options.name]);
  await t.dataSource.query(`INSERT INTO softphone_accounts (user_id, client_id, extension, auth_user) VALUES ($1, $2, $3, $3)`, [
    staff.userId,
    tenant.client.id,
    options.extension(staff.userId),
  ]);
  const host = t.app.get(MachineHostService);
  await host.transaction(async (manager, outbox) => {
    await host.ensureAgent(manager, staff.userId, tenant.client.id, options.capacity ?? 3, ['break']);
    outbox.push(
      ...(await host.dispatchAgent(manager, staff.userId, { type: 'agent.loggedIn' }, { kind: 'agent', id: staff.userId })).outboxIds,
    );
  });
  return staff;
}

/**
 * Posts one call's events on the voice-call-events queue with the worker's job ids and waits until the
 * API applied them all (the call's last_seq is the last one's); resolves with the call's conversation.
 */
export async function postCallEvents(voice: VoiceTestApp, list: VoiceCallEvent[]): Promise<string> {
  const callId = list[0]!.callId;
  await voice.events.addBulk(
    list.map((event) => ({ name: event.type, data: event, opts: { jobId: `voice.${event.callId}.${event.seq}` } })),
  );
  const row = await eventually(async () => {
    const [found] = (await voice.t.dataSource.query(`SELECT last_seq, conversation_id FROM voice_calls WHERE id = $1`, [callId])) as {
      last_seq: number;
      conversation_id: string | null;
    }[];
    expect(found?.last_seq).toBe(list.length);
    return found!;
  });
  return row.conversation_id!;
}

/** Stores `bytes` as a call recording's WAV of the tenant, as the worker's recorder does; resolves with the file's id. */
export async function storeRecording(voice: VoiceTestApp, tenantId: string, bytes: Buffer): Promise<string> {
  const upload = await voice.t.app.get<FileStore>(FILE_STORE).create(tenantId, 'call-recording', { contentType: 'audio/wav' });
  await new Promise<void>((resolve, reject) => upload.stream.on('error', reject).end(bytes, resolve));
  return upload.id;
}

/** supertest's parser for a binary body (a Buffer whatever the Content-Type). */
export const binary: Parameters<request.Test['parse']>[0] = (res, done) => {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => done(null, Buffer.concat(chunks)));
};
