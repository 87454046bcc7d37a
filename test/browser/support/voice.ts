import { randomUUID } from 'node:crypto';
import { QUEUES, type VoiceCallEvent } from '@centralita/contracts';
// test/tsconfig resolves like node10: the server entry point by its path.
import { PostgresFileStore } from '../../../libs/contracts/src/server';
import { Queue } from 'bullmq';
import { Client } from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { api, DEMO, DEMO_PASSWORD, launchBrowser, newPage, signIn } from '../../support/browser';
import { eventually } from '../../support/eventually';

/** The demo tenant's admin, signed in through the API: the access token and the tenant's id. */
export async function demoAdminSession(): Promise<{ admin: string; clientId: string }> {
  const session = await api<{ accessToken: string; user: { clientId: string } }>('POST', '/api/auth/login', null, {
    email: DEMO.admin,
    password: DEMO_PASSWORD,
  });
  return { admin: session.accessToken, clientId: session.user.clientId };
}

/** An inbound phone line of the demo tenant named `name`, open at all hours; resolves with its id. */
export async function createDemoPhoneLine(admin: string, name: string): Promise<string> {
  return (
    await api<{ id: string }>('POST', '/api/attention-lines', admin, {
      name,
      type: 'inbound',
      channel: 'Phone',
      internal: false,
      businessHours: [],
    })
  ).id;
}

/**
 * Gives the demo tenant a SIP server when it has none (hold `takeWorkerLock` around it: the other voice
 * suites share it); resolves with whether it was created here, for the suite to delete it afterwards.
 */
export async function ensureDemoSipServer(admin: string): Promise<boolean> {
  const config = await api<{ domain: string }>('GET', '/api/softphone/config', admin);
  const created = !config.domain;
  if (created)
    await api('PUT', '/api/softphone/config', admin, { wsUrl: 'wss://sip.demo.test/ws', domain: 'sip.demo.test', iceServers: [] });
  return created;
}

/** A UDP trunk of the demo tenant (port 5060, 10 calls) named `name` towards `host`; resolves with its id. */
export async function createDemoTrunk(admin: string, name: string, host: string): Promise<string> {
  return (await api<{ id: string }>('POST', '/api/trunks', admin, { name, host, port: 5060, transport: 'udp', maxConcurrentCalls: 10 })).id;
}

/**
 * A browser for the demo admin's console: `launch` it in beforeAll; `open` gives a page signed in on
 * `/dashboard/default` in the language asked; `close` (afterAll) closes its pages and the browser.
 */
export function adminConsole(): { launch(): Promise<void>; open(language: string): Promise<Page>; close(): Promise<void> } {
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  return {
    async launch() {
      browser = await launchBrowser();
    },
    async open(language) {
      const { context, page } = await newPage(browser!, { language });
      contexts.push(context);
      await signIn(page, DEMO.admin);
      await page.waitForURL('**/dashboard/default');
      return page;
    },
    async close() {
      for (const context of contexts) await context.close();
      await browser?.close();
    },
  };
}

/**
 * The worker's side of the browser tier's voice, for suites that play it: the `voice-call-events` queue
 * the browser tier's API consumes, its database and its file store (call audio is written there as the
 * worker writes it).
 */
export interface BrowserVoiceWorker {
  events: Queue<VoiceCallEvent>;
  db: Client;
  store: PostgresFileStore;
  /** Stores `bytes` as call audio of the tenant; resolves with the file's id. */
  storeAudio(clientId: string, bytes: Buffer): Promise<string>;
  /** A new call of the tenant whose events `post` numbers and gives job ids as the worker does. */
  call(clientId: string): { callId: string; post(...bodies: Record<string, unknown>[]): Promise<void> };
  /** Posts one call's events (numbered as the worker numbers them) of the tenant; resolves with the call's id. */
  postCall(clientId: string, bodies: Record<string, unknown>[]): Promise<string>;
  close(): Promise<void>;
}

export async function openBrowserVoiceWorker(): Promise<BrowserVoiceWorker> {
  const events = new Queue<VoiceCallEvent>(QUEUES.voiceCallEvents, {
    connection: { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' },
    prefix: `${process.env.QUEUE_PREFIX}-browser`,
  });
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${process.env.CENTRALITA_BROWSER_TEST_DB}`;
  const db = new Client({ connectionString: url.toString() });
  await db.connect();
  const store = new PostgresFileStore(async (text, values) => (await db.query(text, values as unknown[])).rows);
  const call = (clientId: string) => {
    const callId = randomUUID();
    let seq = 0;
    return {
      callId,
      post: async (...bodies: Record<string, unknown>[]) => {
        for (const body of bodies) {
          const event = { ...body, callId, tenantId: clientId, seq: ++seq, at: Date.now() } as unknown as VoiceCallEvent;
          await events.add(event.type, event, { jobId: `voice.${callId}.${event.seq}` });
        }
      },
    };
  };
  return {
    events,
    db,
    store,
    async storeAudio(clientId, bytes) {
      const upload = await store.create(clientId, 'call-recording');
      await new Promise<void>((resolve, reject) => upload.stream.on('error', reject).end(bytes, resolve));
      return upload.id;
    },
    call,
    async postCall(clientId, bodies) {
      const made = call(clientId);
      await made.post(...bodies);
      return made.callId;
    },
    async close() {
      await events.close();
      await db.end();
    },
  };
}

/** Waits (15 s at most) until the API applied the call's `count` events; resolves with its conversation. */
export function appliedCall(worker: BrowserVoiceWorker, callId: string, count: number): Promise<string> {
  return eventually(
    async () => {
      const { rows } = await worker.db.query<{ last_seq: number; conversation_id: string | null }>(
        `SELECT last_seq, conversation_id FROM voice_calls WHERE id = $1`,
        [callId],
      );
      expect(rows[0]?.last_seq).toBe(count);
      return rows[0]!.conversation_id!;
    },
    { timeoutMs: 15_000 },
  );
}
