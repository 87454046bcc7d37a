import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import type { Browser, Locator, Page } from 'playwright-core';
import { DEMO, launchBrowser, newPage, signIn } from '../support/browser';
import { eventually } from '../support/eventually';
import { wav } from '../support/wav';
import { appliedCall, createDemoPhoneLine, demoAdminSession, openBrowserVoiceWorker, type BrowserVoiceWorker } from './support/voice';

/**
 * Voicemail in the console (issue 22 item 1): the IVR editor offers "Voicemail" with the line the messages are for and
 * publishes it; a voicemail the worker reported (events on the browser tier's `voice-call-events` queue, its WAV in the
 * file store; the media side is apps/worker/src/voice/voice-voicemail.int-spec.ts) is found with the conversations
 * report's "Voicemails only" box and plays, labelled as a voicemail, in the conversation detail.
 */
jest.setTimeout(120_000);

const suffix = Date.now().toString(36).slice(-5);

/** Picks an option of a PrimeReact Dropdown by its visible label. */
async function pick(page: Page, dropdown: Locator, label: string): Promise<void> {
  await dropdown.click();
  await page.locator(`li[role="option"][aria-label="${label}"]`).click();
}

/** Two seconds of stereo 8 kHz WAV: the caller's 700 Hz on the left, silence on the right, as the worker writes a voicemail. */
const voicemailWav = () => wav(2, { amplitude: 6000 });

describe('Voicemail in the console', () => {
  let browser: Browser;
  let worker: BrowserVoiceWorker;
  let db: Client;
  let admin: string;
  let clientId: string;
  let lineId: string;
  const lineName = `Buzón ${suffix}`;

  beforeAll(async () => {
    ({ admin, clientId } = await demoAdminSession());
    lineId = await createDemoPhoneLine(admin, lineName);
    worker = await openBrowserVoiceWorker();
    db = worker.db;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.close();
  });

  /** One call's events as the worker posts them; resolves once the API applied the last one. */
  const post = async (bodies: Record<string, unknown>[]): Promise<string> =>
    appliedCall(worker, await worker.postCall(clientId, bodies), bodies.length);

  it('offers voicemail in the IVR editor, and finds and plays a voicemail from the reports', async () => {
    const { context, page } = await newPage(browser, { language: 'en' });
    try {
      await signIn(page, DEMO.admin);
      await page.waitForURL((url) => !url.pathname.startsWith('/session'));

      // The editor: key 9 goes to the new line's voicemail; the tree publishes.
      const ivr = `Voicemail ${suffix}`;
      await page.goto('/settings/submitivr');
      await page.getByTestId('ivr-name').fill(ivr);
      await page.getByTestId('admin-save').click();
      await page.waitForURL('**/settings/ivrMain');
      await page.getByTestId('admin-search').fill(suffix);
      await page.getByTestId('admin-list').locator('tr', { hasText: ivr }).getByTestId('ivr-tree-link').click();
      await page.waitForURL('**/settings/ivrs?id=*');
      await page.getByTestId('ivr-editor').waitFor();
      await page.getByTestId('ivr-node-prompt').fill('Press 9 to leave a message after the tone.');
      await page.getByTestId('ivr-add-option').click();
      await pick(page, page.getByTestId('ivr-option-digit').first(), '9');
      await pick(page, page.getByTestId('ivr-destination-type').nth(1), 'Voicemail');
      await pick(page, page.getByTestId('ivr-destination-target').first(), lineName);
      await page.getByTestId('ivr-apply').click();
      await page.getByTestId('ivr-published-version').getByText('Published: version 1').waitFor();
      const ivrId = new URL(page.url()).searchParams.get('id')!;
      const { rows } = await db.query<{ tree: { nodes: { options: { digit: string; destination: unknown }[] }[] } }>(
        `SELECT published_tree AS tree FROM ivrs WHERE id = $1`,
        [ivrId],
      );
      expect(rows[0]!.tree.nodes[0]!.options).toEqual([
        expect.objectContaining({ digit: '9', destination: { type: 'voicemail', targetId: lineId } }),
      ]);

      // A voicemail left through it, and a caller of the same IVR who hung up in the menu.
      const fileId = await worker.storeAudio(clientId, voicemailWav());
      const caller = `+3461${Date.now().toString().slice(-7)}`;
      const other = `+3462${Date.now().toString().slice(-7)}`;
      const started = { type: 'call.started', trunkId: randomUUID(), to: '+34910000999', ivrId };
      const step = { type: 'ivr.step', ivrId, nodeId: 'main', nodeName: 'Main menu', digit: null };
      await post([
        { ...started, from: caller },
        step,
        { type: 'call.voicemail', attentionLineId: lineId, path: ['Main menu'] },
        { type: 'call.ended', by: 'system', reason: 'voicemail' },
        { type: 'call.recorded', fileId, durationMs: 2000, agentId: null, kind: 'voicemail' },
      ]);
      await post([{ ...started, from: other }, step, { type: 'call.abandoned', stage: 'ivr' }]);

      await page.goto('/reports/reports');
      const rowOf = (from: string) => page.locator('[data-testid=report-row]').filter({ hasText: from });
      await rowOf(other).waitFor({ timeout: 15_000 });
      await page.getByTestId('report-voicemail').click();
      await rowOf(caller).waitFor();
      await eventually(async () => expect(await rowOf(other).count()).toBe(0));
      expect(await rowOf(caller).textContent()).toContain(lineName);
      await rowOf(caller).click();
      const player = page.getByTestId('conversation-detail').getByTestId('call-recording');
      await player.waitFor();
      expect(await player.getAttribute('data-kind')).toBe('voicemail');
      expect(await player.textContent()).toContain('Voicemail');
      expect(await player.textContent()).toContain("The caller's message (left channel)");
      await eventually(async () =>
        expect(await player.locator('audio').evaluate((audio: HTMLAudioElement) => Math.round(audio.duration))).toBe(2),
      );
      // The history line is written in the tenant's language (the demo tenant's is Spanish).
      const history = await db.query<{ text: string }>(
        `SELECT m.text FROM messages m JOIN voice_recordings r ON r.conversation_id = m.conversation_id
          WHERE r.file_id = $1 AND m.sender_kind = 'system' AND m.text LIKE '%(2 s)'`,
        [fileId],
      );
      expect(['Voicemail left (2 s)', 'Mensaje de voz dejado (2 s)']).toContain(history.rows[0]?.text);
      await page.getByTestId('conversation-detail').getByText(history.rows[0]!.text).waitFor();
    } finally {
      await context.close();
    }
  });
});
