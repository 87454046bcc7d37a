import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import type { Browser, Page } from 'playwright-core';
import { api, createDemoAgent, launchBrowser, newPage, signIn } from '../support/browser';
import { eventually } from '../support/eventually';
import { takeWorkerLock } from '../support/suite-api';
import {
  createDemoPhoneLine,
  demoAdminSession,
  ensureDemoSipServer,
  openBrowserVoiceWorker,
  type BrowserVoiceWorker,
} from './support/voice';

/**
 * Attended transfer from the agent's desk (issue 22 item 2), in Spanish and English: a phone conversation whose call
 * events are posted on the browser tier's `voice-call-events` queue as the worker posts them (no voice server runs in
 * this tier; the media side is apps/worker/src/voice/voice-consult.int-spec.ts). Agent A's desk gets the call, presses
 * "Consult transfer", picks colleague B in the dialog and calls; the bar says B's phone rings (Complete disabled). A
 * first consultation is cancelled from the bar and the call stays A's; the second is answered (the bar says they talk)
 * and completed: once the worker reports it the conversation is B's, on B's desk.
 */
jest.setTimeout(180_000);

const RUNS = [
  {
    language: 'es',
    from: '+34911000301',
    consult: 'Transferencia con consulta',
    ringing: 'Llamando a',
    active: 'Hablando con',
    call: 'Llamar',
  },
  {
    language: 'en',
    from: '+34911000302',
    consult: 'Consult transfer',
    ringing: 'Calling',
    active: 'Talking with',
    call: 'Call',
  },
];

describe('Attended transfer from the agent desk', () => {
  let browser: Browser;
  let worker: BrowserVoiceWorker;
  let db: Client;
  let admin: string;
  let tenantId: string;
  let lineId: string;
  let releaseLock: (() => void) | undefined;
  let createdSipServer = false;
  const tag = randomUUID().slice(0, 6);

  beforeAll(async () => {
    // The demo tenant's SIP server is shared with the other voice suites: hold their lock, put it back as found.
    releaseLock = await takeWorkerLock();
    ({ admin, clientId: tenantId } = await demoAdminSession());
    createdSipServer = await ensureDemoSipServer(admin);
    lineId = await createDemoPhoneLine(admin, `Consulta ${tag}`);
    worker = await openBrowserVoiceWorker();
    db = worker.db;
    browser = await launchBrowser();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    if (createdSipServer) await db?.query(`DELETE FROM softphone_configs WHERE client_id = $1`, [tenantId]).catch(() => undefined);
    await worker?.close();
    releaseLock?.();
  });

  /** A new agent with a softphone account; `serves` puts them on the phone line (only they get its calls). */
  async function newAgent(name: string, serves: boolean) {
    const email = `consult-${randomUUID().slice(0, 8)}@demo.centralita.io`;
    const { id } = await createDemoAgent(admin, { name, email });
    await api('PUT', `/api/softphone/accounts/${id}`, admin, { extension: `c${Math.floor(Math.random() * 1e8)}` });
    if (serves) {
      const detail = await api<Record<string, unknown>>('GET', `/api/users/${id}`, admin);
      await api('PUT', `/api/users/${id}`, admin, {
        name: detail.name,
        email: detail.email,
        roleId: detail.roleId,
        active: true,
        attentionLineIds: [lineId],
        campaignIds: detail.campaignIds ?? [],
        pauseReasonCodes: detail.pauseReasonCodes ?? [],
      });
    }
    return { id, name, email };
  }

  /** The agent's desk, signed in and available. */
  async function openDesk(email: string, language: string): Promise<Page> {
    const { page } = await newPage(browser, { language });
    await signIn(page, email);
    await page.waitForURL((url) => !url.pathname.startsWith('/session'));
    await page.goto('/conversations/agentConversations');
    await page.locator('[data-testid=connection-status][data-status=online]').waitFor();
    await page.getByTestId('presence-available').click();
    return page;
  }

  const phoneCall = () => worker.call(tenantId);
  const callRow = async (callId: string) =>
    (
      await db.query<{ conversation_id: string | null; agent_id: string | null; consult_state: string | null }>(
        `SELECT conversation_id, agent_id, consult_state FROM voice_calls WHERE id = $1`,
        [callId],
      )
    ).rows[0];

  it.each(RUNS.map((run) => [run.language, run] as const))(
    'cancels a consultation, then consults again and completes it in %s',
    async (language, run) => {
      const ana = await newAgent(`Ana Consulta ${language} ${tag}`, true);
      const bea = await newAgent(`Bea Consulta ${language} ${tag}`, false);
      const anaDesk = await openDesk(ana.email, language);
      const beaDesk = await openDesk(bea.email, language);
      try {
        // The call reaches Ana (the only agent of the line) and is connected to her.
        const call = phoneCall();
        await call.post(
          { type: 'call.started', trunkId: randomUUID(), from: run.from, to: '+34910000998', ivrId: null },
          { type: 'call.queued', attentionLineId: lineId, path: [] },
        );
        await eventually(async () => expect((await callRow(call.callId))?.conversation_id).toBeTruthy(), { timeoutMs: 20_000 });
        const conversationId = (await callRow(call.callId))!.conversation_id!;
        await eventually(
          async () =>
            expect((await db.query(`SELECT agent_id FROM conversations WHERE id = $1`, [conversationId])).rows[0]?.agent_id).toBe(ana.id),
          { timeoutMs: 20_000 },
        );
        await call.post({ type: 'call.connected', agentId: ana.id });
        const item = (page: Page) => page.getByTestId('conversation-item').filter({ hasText: run.from });
        await item(anaDesk).first().click({ timeout: 20_000 });
        const bar = anaDesk.getByTestId('call-consult');
        await eventually(async () => expect(await anaDesk.getByTestId('call-consult-start').textContent()).toContain(run.consult), {
          timeoutMs: 20_000,
        });
        // The bar is styled on the agent desk too (its rules once lived in the supervisor's sheet only).
        expect(await bar.evaluate((element) => [getComputedStyle(element).paddingLeft, getComputedStyle(element).display])).toEqual([
          '12px',
          'flex',
        ]);
        /** "Consult transfer", Bea in the dialog, "Call": the bar says her phone rings and Complete waits for her answer. */
        const consultBea = async () => {
          await anaDesk.getByTestId('call-consult-start').click();
          await anaDesk.locator(`[data-testid=transfer-agent][data-target-id="${bea.id}"] input`).check({ timeout: 15_000 });
          expect(await anaDesk.getByTestId('transfer-confirm').textContent()).toBe(run.call);
          await anaDesk.getByTestId('transfer-confirm').click();
          await eventually(async () => expect(await bar.getAttribute('data-state')).toBe('ringing'), { timeoutMs: 10_000 });
          expect(await anaDesk.getByTestId('call-consult-status').textContent()).toContain(`${run.ringing} ${bea.name}`);
          expect(await anaDesk.getByTestId('call-consult-complete').isDisabled()).toBe(true);
          expect(await anaDesk.getByTestId('call-consult-hint').textContent()).toBeTruthy();
          expect((await callRow(call.callId))!.consult_state).toBe('ringing');
          await call.post({ type: 'call.consultRinging', agentId: bea.id, fromAgentId: ana.id });
        };

        // Cancelled while it rings: the worker reports it, the bar offers a new consultation, the call is still Ana's.
        await consultBea();
        await anaDesk.getByTestId('call-consult-cancel').click();
        await eventually(async () => expect((await callRow(call.callId))!.consult_state).toBe('cancelling'));
        await call.post({ type: 'call.consultCancelled', agentId: bea.id, fromAgentId: ana.id, reason: 'cancelled' });
        await eventually(async () => expect(await bar.getAttribute('data-state')).toBe('none'), { timeoutMs: 10_000 });
        expect((await callRow(call.callId))!.agent_id).toBe(ana.id);
        expect(await anaDesk.getByText('Unexpected Application Error').count()).toBe(0);

        // Again, answered: the two talk, Complete is enabled and hands the call over.
        await consultBea();
        await call.post({ type: 'call.consultConnected', agentId: bea.id, fromAgentId: ana.id });
        await eventually(async () => expect(await bar.getAttribute('data-state')).toBe('active'), { timeoutMs: 10_000 });
        expect(await anaDesk.getByTestId('call-consult-status').textContent()).toContain(`${run.active} ${bea.name}`);
        await anaDesk.getByTestId('call-consult-complete').click();
        await eventually(async () => expect((await callRow(call.callId))!.consult_state).toBe('completing'));
        expect(await anaDesk.locator('.p-toast-message-error').count()).toBe(0);

        // The worker bridged the caller to Bea: the conversation is hers, on her desk, and gone from Ana's.
        await call.post({ type: 'call.consultCompleted', agentId: bea.id, fromAgentId: ana.id });
        await eventually(async () => expect((await callRow(call.callId))!.agent_id).toBe(bea.id), { timeoutMs: 10_000 });
        await eventually(async () => expect(await item(beaDesk).count()).toBe(1), { timeoutMs: 15_000 });
        await call.post({ type: 'call.ended', by: 'caller', reason: 'hangUp' });
      } finally {
        await anaDesk.context().close();
        await beaDesk.context().close();
      }
    },
  );
});
