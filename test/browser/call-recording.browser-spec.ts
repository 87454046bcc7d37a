import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { QUEUES, type VoiceCallEvent } from '@centralita/contracts';
// test/tsconfig resolves like node10: the server entry point by its path.
import { PostgresFileStore } from '../../libs/contracts/src/server';
import { Queue } from 'bullmq';
import { Client } from 'pg';
import type { Browser } from 'playwright-core';
import { api, createDemoAgent, DEMO, DEMO_PASSWORD, launchBrowser, newPage, signIn } from '../support/browser';
import { eventually } from '../support/eventually';

/**
 * Call recordings in the console (issue 22 item 3), in Spanish and English: the tenant's recording settings are saved
 * from platform settings, and a recorded phone call (its events posted on the browser tier's `voice-call-events` queue
 * as the worker posts them, its WAV written to the file store as the worker writes it; the media side is
 * apps/worker/src/voice/voice-recording.int-spec.ts) plays in the report's conversation detail — the browser loads
 * the audio through the signed URL — with its download link; audio that is gone shows the spec's message.
 * CALL_RECORDING_SCREENSHOTS=1 writes docs/screenshots/call-recording-{es,en}.png and call-recording-settings-{es,en}.png.
 */
jest.setTimeout(120_000);

const SCREENSHOTS =
  process.env.CALL_RECORDING_SCREENSHOTS === '1'
    ? path.join(__dirname, '../../docs/screenshots')
    : path.join(tmpdir(), 'centralita-call-recording');

const RUNS = [
  {
    language: 'es',
    from: '+34911000201',
    title: 'Grabaciones de la llamada',
    settings: 'Grabar las llamadas entrantes',
    missing: 'No se encontró el audio, inténtelo de nuevo más tarde.',
  },
  {
    language: 'en',
    from: '+34911000202',
    title: 'Call recordings',
    settings: 'Record inbound calls',
    missing: 'The audio was not found, please try again later.',
  },
];

/** Three seconds of stereo 8 kHz WAV: 700 Hz on the caller's side, 1500 Hz on the agent's, as the worker writes them. */
function recordingWav(): Buffer {
  const frames = 3 * 8000;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + frames * 4, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(2, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(32000, 28);
  header.writeUInt16LE(4, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(frames * 4, 40);
  const pcm = Buffer.alloc(frames * 4);
  for (let i = 0; i < frames; i += 1) {
    pcm.writeInt16LE(Math.round(6000 * Math.sin((2 * Math.PI * 700 * i) / 8000)), i * 4);
    pcm.writeInt16LE(Math.round(6000 * Math.sin((2 * Math.PI * 1500 * i) / 8000)), i * 4 + 2);
  }
  return Buffer.concat([header, pcm]);
}

function database(): Client {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${process.env.CENTRALITA_BROWSER_TEST_DB}`;
  return new Client({ connectionString: url.toString() });
}

describe('Call recordings in the console', () => {
  let browser: Browser;
  let events: Queue<VoiceCallEvent>;
  let db: Client;
  let store: PostgresFileStore;
  let admin: string;
  let clientId: string;
  let agentId: string;
  let lineId: string;

  beforeAll(async () => {
    const session = await api<{ accessToken: string; user: { clientId: string } }>('POST', '/api/auth/login', null, {
      email: DEMO.admin,
      password: DEMO_PASSWORD,
    });
    admin = session.accessToken;
    clientId = session.user.clientId;
    agentId = (await createDemoAgent(admin, { name: 'Marta Ruiz', email: `recording-${randomUUID().slice(0, 6)}@demo.centralita.io` })).id;
    lineId = (
      await api<{ id: string }>('POST', '/api/attention-lines', admin, {
        name: `Teléfono ${randomUUID().slice(0, 4)}`,
        type: 'inbound',
        channel: 'Phone',
        internal: false,
        businessHours: [],
      })
    ).id;
    events = new Queue(QUEUES.voiceCallEvents, {
      connection: { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' },
      prefix: `${process.env.QUEUE_PREFIX}-browser`,
    });
    db = database();
    await db.connect();
    store = new PostgresFileStore(async (text, values) => (await db.query(text, values as unknown[])).rows);
    browser = await launchBrowser();
    await mkdir(SCREENSHOTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await events?.close();
    // Other suites see the demo tenant's settings as they were: recording off.
    if (admin) {
      const settings = await api<Record<string, unknown>>('GET', '/api/platform-settings', admin);
      await api('PUT', '/api/platform-settings', admin, { ...settings, callRecording: false });
    }
    await db?.end();
  });

  /** A call of the demo tenant that was connected to the agent, ended and recorded: its conversation id and file. */
  async function recordedCall(from: string): Promise<{ conversationId: string; fileId: string }> {
    const upload = await store.create(clientId, 'call-recording');
    await new Promise<void>((resolve, reject) => upload.stream.on('error', reject).end(recordingWav(), resolve));
    const callId = randomUUID();
    let seq = 0;
    for (const body of [
      { type: 'call.started', trunkId: randomUUID(), from, to: '+34910000999', ivrId: null },
      { type: 'call.queued', attentionLineId: lineId, path: [] },
      { type: 'call.connected', agentId },
      { type: 'call.ended', by: 'caller', reason: 'hangUp' },
      { type: 'call.recorded', fileId: upload.id, durationMs: 3000, agentId },
    ]) {
      const event = { ...body, callId, tenantId: clientId, seq: ++seq, at: Date.now() } as unknown as VoiceCallEvent;
      await events.add(event.type, event, { jobId: `voice.${callId}.${event.seq}` });
    }
    const conversationId = await eventually(
      async () => {
        const { rows } = await db.query<{ conversation_id: string | null }>(
          `SELECT r.conversation_id FROM voice_recordings r WHERE r.file_id = $1`,
          [upload.id],
        );
        expect(rows[0]?.conversation_id).toBeTruthy();
        return rows[0]!.conversation_id!;
      },
      { timeoutMs: 15_000 },
    );
    return { conversationId, fileId: upload.id };
  }

  it.each(RUNS.map((run) => [run.language, run] as const))('sets recording up and plays a recorded call in %s', async (language, run) => {
    const { context, page } = await newPage(browser, { language });
    try {
      await signIn(page, DEMO.admin);
      await page.waitForURL((url) => !url.pathname.startsWith('/session'));

      // Platform settings: recording on, with the announcement, kept 30 days.
      await page.goto('/platformSettings/platformSettings');
      await page.getByText(run.settings, { exact: true }).waitFor();
      await page.getByTestId('settings-call-recording').click();
      await page.locator('#settings-recording-days').fill('30');
      await page.getByTestId('admin-save').click();
      await eventually(async () => {
        const saved = await api<{ callRecording: boolean; announceCallRecording: boolean; callRecordingRetentionDays: number }>(
          'GET',
          '/api/platform-settings',
          admin,
        );
        expect(saved).toMatchObject({ callRecording: true, announceCallRecording: true, callRecordingRetentionDays: 30 });
      });
      await page.locator('#settings-call-recording').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SCREENSHOTS, `call-recording-settings-${language}.png`) });
      // Off again for the next run (which turns it on from the screen).
      await api('PUT', '/api/platform-settings', admin, {
        ...(await api<Record<string, unknown>>('GET', '/api/platform-settings', admin)),
        callRecording: false,
      });

      const { fileId } = await recordedCall(run.from);
      await page.goto('/reports/reports');
      const row = page.locator('[data-testid=report-row]').filter({ hasText: run.from });
      await row.waitFor({ timeout: 15_000 });
      await row.click();
      const dialog = page.getByTestId('conversation-detail');
      const recordings = dialog.getByTestId('detail-recordings');
      await recordings.getByText(run.title).waitFor();
      const player = recordings.getByTestId('call-recording');
      await player.waitFor();
      expect(await player.textContent()).toContain('Marta Ruiz');
      // The browser loaded the WAV through the signed URL: its length is the recording's three seconds.
      await eventually(async () =>
        expect(await player.locator('audio').evaluate((audio: HTMLAudioElement) => Math.round(audio.duration))).toBe(3),
      );
      const href = await player.getByTestId('call-recording-download').getAttribute('href');
      expect(href).toMatch(/^\/api\/voice\/recordings\/[0-9a-f-]+\/audio\?t=.+&download=1$/);
      await page.screenshot({ path: path.join(SCREENSHOTS, `call-recording-${language}.png`) });

      // The audio is gone (as after the retention sweep) while the dialog is open: the player says so in the reader's language.
      await store.remove(fileId);
      // (A fresh request, as pressing play again makes: the signature ignores the extra parameter, the media cache does not.)
      await player.locator('audio').evaluate((audio: HTMLAudioElement) => {
        audio.src = `${audio.src}&retry=1`;
        audio.load();
      });
      await eventually(async () => expect(await player.getByTestId('call-recording-missing').textContent()).toBe(run.missing));
    } finally {
      await context.close();
    }
  });
});
