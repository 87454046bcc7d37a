import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { deflateSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { api, createDemoAgent, DEMO, DEMO_PASSWORD, launchBrowser, newPage, signIn } from '../support/browser';

/**
 * Attachments both ways on a web chat (issue 19): the visitor attaches a picture, the agent sees it
 * inline and answers with a document the visitor downloads; a file the channel does not take is
 * refused before any upload. The suite has its own line and agent so no other suite's chats reach
 * them; the steps share one conversation, so they run in order.
 */
const SCREENSHOTS =
  process.env.DESK_SCREENSHOTS === '1' ? join(__dirname, '..', '..', 'docs', 'screenshots') : join(tmpdir(), 'centralita-desk-channels');

jest.setTimeout(90_000);

/** CRC-32 of PNG chunks (the PNG spec's polynomial). */
function crc32(bytes: Buffer): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit += 1) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

/** A real PNG (a colour gradient), so the API's content check and the browser's decoder both accept it. */
function gradientPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y += 1) {
    const row = y * (width * 3 + 1);
    for (let x = 0; x < width; x += 1) rows.set([Math.round((x / width) * 255), Math.round((y / height) * 255), 200], row + 1 + x * 3);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const PICTURE = { name: 'router-lights.png', mimeType: 'image/png', buffer: gradientPng(160, 100) };
const MANUAL = {
  name: 'reset-guide.pdf',
  mimeType: 'application/pdf',
  buffer: Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n', 'latin1'),
};

describe('Attachments in the desk and the web-chat widget', () => {
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let adminToken: string;
  let lineId: string;
  let tenant: string;
  let agent: Page;
  let customer: Page;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    browser = await launchBrowser();
    const session = await api<{ accessToken: string; user: { clientId: string } }>('POST', '/api/auth/login', null, {
      email: DEMO.admin,
      password: DEMO_PASSWORD,
    });
    adminToken = session.accessToken;
    tenant = session.user.clientId;
    const tag = randomBytes(3).toString('hex');
    lineId = (
      await api<{ id: string }>('POST', '/api/attention-lines', adminToken, {
        name: `Attachments line ${tag}`,
        type: 'inbound',
        channel: 'WebChat',
        businessHours: [],
      })
    ).id;
    const email = `desk-channels-${tag}@demo.centralita.io`;
    const { id } = await createDemoAgent(adminToken, { name: `Clara Files ${tag}`, email });
    const detail = await api<Record<string, unknown>>('GET', `/api/users/${id}`, adminToken);
    await api('PUT', `/api/users/${id}`, adminToken, {
      name: detail.name,
      email: detail.email,
      roleId: detail.roleId,
      active: true,
      attentionLineIds: [lineId],
      campaignIds: detail.campaignIds ?? [],
      pauseReasonCodes: detail.pauseReasonCodes ?? [],
    });
    const staff = await newPage(browser, { language: 'es' });
    contexts.push(staff.context);
    agent = staff.page;
    await agent.setViewportSize({ width: 1366, height: 768 });
    await signIn(agent, email);
    await agent.waitForURL('**/dashboard/**');
    await agent.goto('/conversations/agentConversations');
    await agent.locator('[data-testid=connection-status][data-status=online]').waitFor();
    const visitor = await newPage(browser, { language: 'en' });
    contexts.push(visitor.context);
    customer = visitor.page;
    await customer.setViewportSize({ width: 400, height: 720 });
  }, 90_000);

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    if (adminToken && lineId) await api('DELETE', `/api/attention-lines/${lineId}`, adminToken).catch(() => undefined);
  });

  it('lets the visitor attach a picture that the agent sees inline', async () => {
    await agent.getByTestId('presence-available').click();
    await customer.goto(`/WindowChat/windowChat/?tenant=${tenant}&line=${lineId}&lang=en`);
    await customer.getByTestId('webchat-name').fill('Iris Upload');
    await customer.getByTestId('webchat-email').fill('iris@example.com');
    await customer.getByTestId('webchat-start').click();
    await customer.getByTestId('webchat-menu').waitFor();
    await customer.selectOption('[data-testid=webchat-query-type]', 'support');
    await customer.selectOption('[data-testid=webchat-submenu]', 'technical');
    await customer.getByTestId('webchat-menu-submit').click();
    await customer.locator('[data-testid=webchat][data-status=Active]').waitFor();
    await agent.getByTestId('chat-customer-name').filter({ hasText: 'Iris Upload' }).waitFor();

    // A type web chat does not take is refused in the visitor's language, before any upload.
    await customer
      .getByTestId('webchat-file')
      .setInputFiles({ name: 'setup.exe', mimeType: 'application/x-msdownload', buffer: Buffer.from('MZ') });
    await customer.getByTestId('webchat-file-error').getByText('Cannot send setup.exe').waitFor();
    expect(await customer.getByTestId('message').count()).toBe(0);

    await customer.getByTestId('webchat-file').setInputFiles(PICTURE);
    // The visitor sees their own picture (fetched with the visitor token), the agent theirs with the bearer.
    await customer.locator(`[data-testid=attachment-image][data-file-name="${PICTURE.name}"] img`).waitFor();
    const image = agent.locator(
      `[data-testid=message][data-sender=customer] [data-testid=attachment-image][data-file-name="${PICTURE.name}"] img`,
    );
    await image.waitFor();
    // Shown from a blob URL (downloads need the bearer) and really decoded, not a broken image.
    expect(await image.getAttribute('src')).toMatch(/^blob:/);
    await agent.waitForFunction((name) => {
      const img = document.querySelector(`[data-testid=attachment-image][data-file-name="${name}"] img`) as HTMLImageElement | null;
      return img !== null && img.complete && img.naturalWidth === 160;
    }, PICTURE.name);
    // A click opens it full size.
    await image.click();
    await agent.getByTestId('attachment-viewer').locator('img').waitFor();
    await agent.keyboard.press('Escape');
    await agent.getByTestId('attachment-viewer').waitFor({ state: 'detached' });
  });

  it('lets the agent answer with a document the visitor downloads, with status marks, in Spanish and English', async () => {
    await agent.getByTestId('chat-input').fill('Aquí tiene la guía de reinicio');
    await agent.getByTestId('chat-input').press('Enter');
    await agent.getByTestId('chat-file').setInputFiles(MANUAL);

    const chip = customer.locator(
      `[data-testid=message][data-sender=agent] [data-testid=attachment-file][data-file-name="${MANUAL.name}"]`,
    );
    await chip.waitFor();
    await customer.getByTestId('message-text').filter({ hasText: 'guía de reinicio' }).waitFor();
    const [download] = await Promise.all([customer.waitForEvent('download'), chip.click()]);
    expect(download.suggestedFilename()).toBe(MANUAL.name);
    const saved = await download.path();
    expect(saved).toBeTruthy();

    // The visitor read both replies: the agent's marks turn to "read".
    const agentMessages = agent.locator('[data-testid=message][data-sender=agent]');
    await agent.waitForFunction(
      () =>
        [...document.querySelectorAll('[data-testid=message][data-sender=agent] [data-testid=message-mark]')].filter(
          (mark) => mark.getAttribute('data-mark') === 'read',
        ).length === 2,
    );
    expect(await agentMessages.locator(`[data-testid=attachment-file][data-file-name="${MANUAL.name}"]`).count()).toBe(1);
    // The agent's own chip names the file and its size.
    expect(await agentMessages.getByTestId('attachment-file').textContent()).toContain(MANUAL.name);

    await agent.screenshot({ path: join(SCREENSHOTS, 'desk-attachments-es.png') });
    await agent.evaluate(() => window.localStorage.setItem('language', 'en'));
    await agent.reload();
    await agent.locator(`[data-testid=attachment-image][data-file-name="${PICTURE.name}"] img`).waitFor();
    await agent.getByTestId('attachment-file').getByText(MANUAL.name).waitFor();
    await agent.getByTestId('chat-attach').waitFor();
    await agent.screenshot({ path: join(SCREENSHOTS, 'desk-attachments-en.png') });
    await customer.screenshot({ path: join(SCREENSHOTS, 'widget-attachments-en.png') });
  });
});
