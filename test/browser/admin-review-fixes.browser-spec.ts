import type { Browser, BrowserContext, Page } from 'playwright-core';
import { baseUrl, DEMO, DEMO_PASSWORD, launchBrowser, newPage, signIn } from '../support/browser';

/**
 * Review fixes seen in the console (Spanish, the reference language): a whisper note that fails
 * keeps its text and says why; a stored channel secret can be cleared; predefined-message
 * shortcuts are explained and stored without the slash.
 */
jest.setTimeout(60_000);

async function api<T>(path: string, init: { method?: string; token?: string; body?: unknown } = {}): Promise<T> {
  const response = await fetch(`${baseUrl()}${path}`, {
    method: init.method ?? 'GET',
    headers: { 'Content-Type': 'application/json', ...(init.token ? { Authorization: `Bearer ${init.token}` } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const envelope = (await response.json()) as { data: T };
  if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(envelope)}`);
  return envelope.data;
}

const adminToken = async () =>
  (await api<{ accessToken: string }>('/api/auth/login', { method: 'POST', body: { email: DEMO.admin, password: DEMO_PASSWORD } }))
    .accessToken;

describe('Administration and supervision review fixes (browser)', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
  });

  it('keeps a whisper note that could not be sent and says so in the user language', async () => {
    const token = await adminToken();
    const lines = await api<{ id: string; name: string }[]>('/api/attention-lines/options', { token });
    const line = lines.find((option) => option.name === 'Customer service') ?? lines[0];
    const started = await api<{ conversation: { id: string } }>('/api/webchat/conversations', {
      method: 'POST',
      body: { attentionLineId: line.id, name: 'Whisper test' },
    });

    ({ context, page } = await newPage(browser, { language: 'es' }));
    await signIn(page, DEMO.supervisor);
    await page.waitForURL('**/dashboard/superUser');
    await page.goto('/conversations/conversations');
    await page.locator(`[data-testid=monitor-row][data-conversation-id="${started.conversation.id}"]`).getByTestId('monitor-open').click();
    const input = page.getByTestId('whisper-input');
    await input.waitFor();

    // The network drops the note: the toast says so in Spanish and the text stays for a retry.
    await page.route('**/api/conversations/*/notes', (route) =>
      route.request().method() === 'POST' ? route.abort('connectionreset') : route.continue(),
    );
    await input.fill('Ofrezca el enlace de restablecimiento');
    await input.press('Enter');
    await page.getByTestId('toast-container').getByText('No se pudo enviar la nota; el texto se conserva').waitFor();
    expect(await input.inputValue()).toBe('Ofrezca el enlace de restablecimiento');

    await page.unroute('**/api/conversations/*/notes');
    await input.press('Enter');
    await page.getByTestId('note').getByText('Ofrezca el enlace de restablecimiento').waitFor();
    await page.waitForFunction(() => (document.querySelector('[data-testid=whisper-input]') as HTMLTextAreaElement).value === '');
    await context.close();
  });

  it('explains a shortcut the desk could not match, and saves "/shortcut" without the slash', async () => {
    ({ context, page } = await newPage(browser, { language: 'es' }));
    await signIn(page, DEMO.admin);
    await page.waitForURL((url) => !url.pathname.startsWith('/session'));
    await page.goto('/predefinedMessages/PredefinedMessagesSubmit');
    const shortcut = page.getByTestId('predefined-shortcut');
    await shortcut.fill('hola mundo');
    await shortcut.blur();
    await page.getByText('Solo letras, números, _ y -, sin espacios (la barra inicial se quita sola).').waitFor();

    const name = `saludo${Date.now()}`;
    await shortcut.fill(`/${name}`);
    await page.getByTestId('predefined-message').fill('¡Hola! ¿En qué puedo ayudarle?');
    await page.getByTestId('admin-save').click();
    await page.waitForURL('**/predefinedMessages/PredefinedMessagesList');
    await page.getByTestId('admin-list').getByText(`/${name}`).waitFor();
    expect(await page.getByTestId('admin-list').getByText(`//${name}`).count()).toBe(0);
    const stored = await api<{ items: { shortcut: string }[] }>(`/api/predefined-messages?q=${name}`, { token: await adminToken() });
    expect(stored.items.map((item) => item.shortcut)).toEqual([name]);
  });
});
