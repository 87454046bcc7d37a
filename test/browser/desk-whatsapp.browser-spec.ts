import { randomBytes, randomInt } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import type { ChannelAccountView } from '@centralita/contracts';
import { Client } from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startWhatsAppFake, type FakeTemplate, type WhatsAppFake } from '../fakes/whatsapp-cloud';
import { eventually } from '../support/eventually';
import { api, createDemoAgent, DEMO, DEMO_PASSWORD, launchBrowser } from '../support/browser';
import { browserDatabaseUrl, startSuiteApi, type SuiteApi } from '../support/suite-api';

/**
 * WhatsApp in the agent's desk, end to end: a customer of the local WhatsApp Cloud API writes, the
 * conversation reaches the agent's browser with the WhatsApp icon and the customer's WhatsApp name,
 * the agent answers with text and a picture that the provider receives (sent by the worker's
 * channel-send processor), the provider's receipts turn the marks to read; and once the customer's
 * last message is older than 24 hours, only an approved template can go, filled in the picker.
 *
 * The tier's shared API has no META_GRAPH_URL and no worker, so this suite starts an API and a
 * worker of its own, both pointed at the fake, on the tier's database and queue prefix (one cluster
 * with the shared API: either may deliver the other's outbox rows and socket pushes), never at the
 * same time as another suite's worker (test/support/suite-api.ts).
 */
jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '..', '..');
// DESK_SCREENSHOTS=1 refreshes the docs' pictures; otherwise they go to the temp folder.
const SCREENSHOTS = process.env.DESK_SCREENSHOTS === '1' ? join(ROOT, 'docs', 'screenshots') : join(tmpdir(), 'centralita-desk-whatsapp');

/** CRC-32 of PNG chunks (the PNG spec's polynomial). */
function crc32(bytes: Buffer): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit += 1) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

/** A real PNG (a colour gradient): the API's content check, Meta's (the fake's) upload check and the browser all accept it. */
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
    for (let x = 0; x < width; x += 1) rows.set([40, Math.round((x / width) * 255), Math.round((y / height) * 255)], row + 1 + x * 3);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const PICTURE = { name: 'factura-marzo.png', mimeType: 'image/png', buffer: gradientPng(180, 120) };

/** An approved template whose parameters are all in the body (what the picker fills). */
const APPOINTMENT: FakeTemplate = {
  name: 'appointment_reminder',
  language: 'es',
  category: 'UTILITY',
  status: 'APPROVED',
  body: 'Hola {{1}}, le recordamos su cita del {{2}}. Responda a este mensaje si necesita cambiarla.',
};

/** A NAMED template with an image header: the picker asks for first_name and order_id by name and for the picture. */
const ORDER_PHOTO: FakeTemplate = {
  name: 'order_ready_photo',
  language: 'es',
  category: 'UTILITY',
  status: 'APPROVED',
  mediaHeader: 'IMAGE',
  parameterFormat: 'NAMED',
  body: 'Hola {{first_name}}, su pedido {{order_id}} está listo para recoger.',
  examples: { first_name: 'Ana', order_id: 'A-17' },
};

describe('WhatsApp in the agent desk (browser)', () => {
  let fake: WhatsAppFake;
  let suite: SuiteApi | undefined;
  let url: string;
  let db: Client;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let adminToken: string;
  let lineId: string;
  let agentEmail: string;
  let account: ChannelAccountView;
  let agent: Page;
  const tag = randomBytes(3).toString('hex');
  // Customers of our own: contacts are keyed by account and phone number, the account by our phone-number id.
  const firstCustomer = { from: `34611${randomInt(100_000, 999_999)}`, name: `Lucía Fernández ${tag}` };
  const lateCustomer = { from: `34622${randomInt(100_000, 999_999)}`, name: `Marcos Gil ${tag}` };

  /** A call to this suite's API, answered with the envelope's data. */
  const call = <T>(method: string, route: string, body?: unknown): Promise<T> => suite!.call<T>(method, route, adminToken, body);

  const conversationItem = (name: string) => agent.getByTestId('conversation-item').filter({ has: agent.getByText(name, { exact: true }) });

  /** The desk again in `language` (the choice is kept in localStorage), with the conversation of `name` open. */
  async function reopenIn(language: 'es' | 'en', name: string): Promise<void> {
    await agent.evaluate((lng) => window.localStorage.setItem('language', lng), language);
    await agent.reload();
    await agent.locator('[data-testid=connection-status][data-status=online]').waitFor();
    await conversationItem(name).click();
    await agent.getByTestId('chat-customer-name').filter({ hasText: name }).waitFor();
  }

  /** The message list shows its newest message whole, once every picture in it is decoded. */
  async function listAtEnd(): Promise<void> {
    await eventually(async () =>
      expect(
        await agent.getByTestId('message-list').evaluate((list) => {
          if ([...list.querySelectorAll('img')].some((img) => !img.complete)) return 'pictures still loading';
          const newest = [...list.querySelectorAll('[data-testid=message]')].at(-1);
          if (!newest) return 'no message';
          const hidden = newest.getBoundingClientRect().bottom - list.getBoundingClientRect().bottom;
          return hidden <= 1 ? 'newest in view' : `newest ${Math.round(hidden)} px below the fold`;
        }),
      ).toBe('newest in view'),
    );
  }

  /** Closes the notifications (a new conversation's toast) so the pictures show the desk itself. */
  async function dismissToasts(): Promise<void> {
    const close = agent.locator('.p-toast .p-toast-icon-close');
    // A toast may expire on its own between finding and clicking it: then there is nothing to close.
    for (let open = await close.count(); open > 0; open = await close.count())
      await close
        .first()
        .click({ timeout: 2000 })
        .catch(() => undefined);
    await eventually(async () => expect(await agent.locator('.p-toast-message').count()).toBe(0));
  }

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    // The tier's database (browser-setup.ts), shared with its API: this suite only reads and moves its own rows.
    db = new Client({ connectionString: browserDatabaseUrl() });
    await db.connect();

    // The line and its agent through the tier's shared API (the agent's invitation is read from its mail queue).
    const session = await api<{ accessToken: string }>('POST', '/api/auth/login', null, { email: DEMO.admin, password: DEMO_PASSWORD });
    adminToken = session.accessToken;
    lineId = (
      await api<{ id: string }>('POST', '/api/attention-lines', adminToken, {
        name: `WhatsApp line ${tag}`,
        type: 'inbound',
        channel: 'WhatsApp',
        businessHours: [],
      })
    ).id;
    agentEmail = `desk-whatsapp-${tag}@demo.centralita.io`;
    const { id: agentId } = await createDemoAgent(adminToken, { name: `Nora WhatsApp ${tag}`, email: agentEmail });
    const detail = await api<Record<string, unknown>>('GET', `/api/users/${agentId}`, adminToken);
    await api('PUT', `/api/users/${agentId}`, adminToken, {
      name: detail.name,
      email: detail.email,
      roleId: detail.roleId,
      active: true,
      attentionLineIds: [lineId],
      campaignIds: detail.campaignIds ?? [],
      pauseReasonCodes: detail.pauseReasonCodes ?? [],
    });

    // A phone-number id of our own: accounts are unique per (kind, provider id) across tenants.
    fake = await startWhatsAppFake({
      phoneNumberId: String(randomInt(100_000_000, 999_999_999)) + '77',
      verifiedName: 'Centralita Atención',
      templates: [
        { name: 'hello_world', language: 'en_US', category: 'UTILITY', status: 'APPROVED', body: 'Hello World' },
        // Offered with a field for its header's parameter.
        {
          name: 'order_update',
          language: 'es',
          category: 'UTILITY',
          status: 'APPROVED',
          header: 'Pedido {{1}}',
          body: 'Hola {{1}}, tu pedido {{2}} está listo.',
        },
        // Not offered: not approved yet.
        { name: 'draft_notice', language: 'es', category: 'UTILITY', status: 'PENDING', body: 'Aviso {{1}}' },
        // Offered with a field per named parameter and a link or a file for its image header.
        ORDER_PHOTO,
        APPOINTMENT,
      ],
    });
    suite = await startSuiteApi({
      worker: true,
      env: { META_GRAPH_URL: fake.url, META_GRAPH_VERSION: fake.graphVersion },
    });
    url = suite.url;
    adminToken = (await call<{ accessToken: string }>('POST', '/api/auth/login', { email: DEMO.admin, password: DEMO_PASSWORD }))
      .accessToken;

    // The administrator connects the WhatsApp account on the agent's line; Meta is told its webhook URL.
    account = await call<ChannelAccountView>('POST', '/api/channel-accounts', {
      kind: 'whatsapp',
      name: `WhatsApp atención ${tag}`,
      externalAccountId: fake.phoneNumberId,
      attentionLineId: lineId,
      settings: { wabaId: fake.wabaId },
      secrets: { accessToken: fake.accessToken, appSecret: fake.appSecret },
    });
    expect(account.webhookUrl.startsWith(`${url}/`)).toBe(true);
    fake.setWebhookUrl(account.webhookUrl);

    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1366, height: 800 }, baseURL: url });
    contexts.push(context);
    await context.addInitScript(() => {
      if (!window.localStorage.getItem('language')) window.localStorage.setItem('language', 'es');
    });
    agent = await context.newPage();
    await agent.goto('/session/signin');
    await agent.getByTestId('signin-email').fill(agentEmail);
    await agent.getByTestId('signin-password').fill(DEMO_PASSWORD);
    await agent.getByTestId('signin-submit').click();
    await agent.waitForURL((where) => !where.pathname.startsWith('/session'));
    await agent.goto('/conversations/agentConversations');
    await agent.locator('[data-testid=connection-status][data-status=online]').waitFor();
    await agent.getByTestId('presence-available').click();
    // Up to 200 s waiting for another suite's worker to finish (suite-api.ts), then the start itself.
  }, 360_000);

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    if (account) await call('DELETE', `/api/channel-accounts/${account.id}`).catch(() => undefined);
    if (adminToken && lineId) await call('DELETE', `/api/attention-lines/${lineId}`).catch(() => undefined);
    await suite?.stop();
    await fake?.close();
    await db?.end();
  });

  it('brings the customer’s WhatsApp message to the desk, sends text and a picture, shows the read marks and closes', async () => {
    await fake.customerWrites({ ...firstCustomer, text: 'Hola' });

    // The conversation arrives with the WhatsApp icon and the name the customer has on WhatsApp.
    const item = conversationItem(firstCustomer.name);
    await item.waitFor();
    expect(await item.getByTestId('channel-badge').getAttribute('data-channel')).toBe('whatsapp');
    await item.click();
    await agent.getByTestId('chat-customer-name').filter({ hasText: firstCustomer.name }).waitFor();
    await agent.getByTestId('chat-window').locator('[data-testid=channel-badge][data-channel=whatsapp]').waitFor();
    await agent.locator('[data-testid=message][data-sender=customer]').getByText('Hola', { exact: true }).waitFor();
    const conversationId = (await item.getAttribute('data-conversation-id'))!;
    // The customer never saw a menu: the panel names the channel they wrote from, not internal codes.
    await agent.getByTestId('customer-menu').getByText('WhatsApp', { exact: true }).waitFor();
    await agent.getByTestId('customer-name').getByText(firstCustomer.name, { exact: true }).waitFor();
    // Inside the 24-hour window: free text goes, and the banner says until when.
    await agent.locator('[data-testid=reply-window][data-window=open]').waitFor();

    const reply = 'Hola Lucía, le adjunto la factura de marzo.';
    await agent.getByTestId('chat-input').fill(reply);
    await agent.getByTestId('chat-input').press('Enter');
    await agent.getByTestId('message-text').filter({ hasText: reply }).waitFor();
    await agent.getByTestId('chat-file').setInputFiles(PICTURE);

    // The provider received both, addressed to the customer's number, the picture uploaded first.
    const [text, image] = await eventually(
      async () => {
        const text = fake.sent.find((sent) => sent.type === 'text' && sent.text === reply);
        const image = fake.sent.find((sent) => sent.type === 'image');
        suite!.assertRunning();
        if (!text || !image) {
          const { rows } = await db.query(
            `SELECT m.text, m.delivery_status, m.delivery_error, (SELECT count(*) FROM message_attachments a WHERE a.message_id = m.id) AS files
               FROM messages m WHERE m.conversation_id = $1 AND m.sender_kind = 'agent' ORDER BY m.sequence`,
            [conversationId],
          );
          const refused = await agent.getByTestId('chat-file-error').allTextContents();
          throw new Error(
            `refused: ${refused.join(' ')}; the fake got ${fake.sent.map((sent) => sent.type).join(', ') || 'nothing'}; stored ${JSON.stringify(rows)}; requests ${JSON.stringify(fake.requests.map((r) => `${r.method} ${r.path}`))}`,
          );
        }
        return [text, image];
      },
      { timeoutMs: 30_000 },
    );
    expect(text.to).toBe(firstCustomer.from);
    expect(image.to).toBe(firstCustomer.from);
    expect(image.media!.upload.mimeType).toBe('image/png');
    expect(image.media!.upload.bytes.equals(PICTURE.buffer)).toBe(true);

    // The agent's own picture shows inline, decoded.
    await agent.waitForFunction((name) => {
      const img = document.querySelector(
        `[data-testid=message][data-sender=agent] [data-testid=attachment-image][data-file-name="${name}"] img`,
      ) as HTMLImageElement | null;
      return img !== null && img.complete && img.naturalWidth === 180;
    }, PICTURE.name);

    // Both went out (the worker's status update, delivered by an API's outbox poller): one tick each.
    const marks = agent.locator('[data-testid=message][data-sender=agent] [data-testid=message-mark]');
    const markStates = () => marks.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-mark')));
    await eventually(async () => expect(await markStates()).toEqual(['sent', 'sent']), { timeoutMs: 30_000 });

    await fake.pushReceipts([text.id, image.id], { statuses: ['delivered'] });
    await eventually(async () => expect(await markStates()).toEqual(['delivered', 'delivered']), { timeoutMs: 15_000 });
    const deliveredColour = await marks.first().evaluate((node) => getComputedStyle(node).color);
    await fake.pushReceipts([text.id, image.id], { statuses: ['read'] });
    await eventually(async () => expect(await markStates()).toEqual(['read', 'read']), { timeoutMs: 15_000 });
    // Read: two ticks, coloured unlike delivered (as WhatsApp shows them).
    expect(await marks.first().locator('i').count()).toBe(2);
    expect(await marks.first().evaluate((node) => getComputedStyle(node).color)).not.toBe(deliveredColour);
    const stored = await db.query<{ delivery_status: string; provider_message_id: string }>(
      `SELECT delivery_status, provider_message_id FROM messages WHERE conversation_id = $1 AND sender_kind = 'agent' ORDER BY sequence`,
      [conversationId],
    );
    expect(stored.rows).toEqual([
      { delivery_status: 'read', provider_message_id: text.id },
      { delivery_status: 'read', provider_message_id: image.id },
    ]);

    await listAtEnd();
    await dismissToasts();
    await agent.screenshot({ path: join(SCREENSHOTS, 'desk-whatsapp-es.png') });
    await reopenIn('en', firstCustomer.name);
    await agent.locator(`[data-testid=attachment-image][data-file-name="${PICTURE.name}"] img`).waitFor();
    await agent.locator('[data-testid=message-mark][data-mark=read]').nth(1).waitFor();
    // Reopened, the list ends at the newest message even though the picture grew it after the first scroll.
    await listAtEnd();
    await agent
      .getByTestId('reply-window')
      .getByText(/until|Free text/i)
      .waitFor();
    await agent.screenshot({ path: join(SCREENSHOTS, 'desk-whatsapp-en.png') });

    await agent.getByTestId('chat-close').click();
    await agent.selectOption('[data-testid=close-disposition]', 'resolved');
    await agent.getByTestId('close-confirm').click();
    await eventually(async () => {
      const { rows } = await db.query<{ status: string }>(`SELECT status FROM conversations WHERE id = $1`, [conversationId]);
      expect(rows[0]!.status).not.toBe('Active');
    });
    await agent.getByTestId('chat-close').waitFor({ state: 'detached' });
  });

  it('offers only templates once the 24-hour window closed, previews the filled template and sends it', async () => {
    await fake.customerWrites({ ...lateCustomer, text: 'Hola, ¿tienen cita libre?' });
    const item = conversationItem(lateCustomer.name);
    await item.waitFor();
    const conversationId = (await item.getAttribute('data-conversation-id'))!;
    // The customer wrote 25 hours ago: only this conversation's rows are moved back.
    await db.query(
      `UPDATE messages SET created_at = created_at - interval '25 hours' WHERE conversation_id = $1 AND sender_kind = 'customer'`,
      [conversationId],
    );

    await reopenIn('es', lateCustomer.name);
    const banner = agent.locator('[data-testid=reply-window][data-window=closed]');
    await banner.waitFor();
    const picker = agent.locator('[data-testid=template-picker][data-state=ready]');
    await picker.waitFor();
    // Free text cannot go: the composer gives way to the picker.
    expect(await agent.getByTestId('chat-input').count()).toBe(0);
    // Only the account's approved templates that the picker can fill are offered.
    const offered = await picker.getByTestId('template-select').locator('option').allTextContents();
    expect(offered).toEqual(['hello_world · en_US', 'order_update · es', 'order_ready_photo · es', 'appointment_reminder · es']);

    // A text header with a parameter gets its own field, previewed above the body; the category is named in Spanish.
    await picker.getByTestId('template-select').selectOption('order_update|es');
    await eventually(async () => expect(await picker.getByTestId('template-header-parameter').count()).toBe(1));
    expect(await picker.getByTestId('template-parameter').count()).toBe(2);
    await picker.getByTestId('template-header-parameter').fill('A-17');
    await eventually(async () => expect(await picker.getByTestId('template-preview-header').textContent()).toBe('Pedido A-17'));
    expect(await picker.getByTestId('template-category').textContent()).toBe('Utilidad');

    await picker.getByTestId('template-select').selectOption(`${APPOINTMENT.name}|${APPOINTMENT.language}`);
    expect(await picker.getByTestId('template-header-parameter').count()).toBe(0);
    const parameters = picker.getByTestId('template-parameter');
    await eventually(async () => expect(await parameters.count()).toBe(2));
    const send = picker.getByTestId('template-send');
    expect(await send.isDisabled()).toBe(true);
    await parameters.nth(0).fill('Marcos');
    const preview = picker.getByTestId('template-preview');
    await eventually(async () =>
      expect(await preview.textContent()).toBe(
        'Hola Marcos, le recordamos su cita del {{2}}. Responda a este mensaje si necesita cambiarla.',
      ),
    );
    // A blank parameter is marked in the preview, and the template cannot go yet.
    expect(await preview.locator('.desk-templates__gap').count()).toBe(1);
    expect(await send.isDisabled()).toBe(true);
    await parameters.nth(1).fill('martes 3 a las 10:00');
    await eventually(async () =>
      expect(await preview.textContent()).toBe(
        'Hola Marcos, le recordamos su cita del martes 3 a las 10:00. Responda a este mensaje si necesita cambiarla.',
      ),
    );
    await dismissToasts();
    await agent.screenshot({ path: join(SCREENSHOTS, 'desk-whatsapp-template-es.png') });

    await send.click();
    const sent = await eventually(
      () => {
        const found = fake.sent.find((message) => message.type === 'template' && message.to === lateCustomer.from);
        if (!found) throw new Error('no template reached the provider yet');
        return found;
      },
      { timeoutMs: 30_000 },
    );
    expect(sent.template).toEqual({
      name: APPOINTMENT.name,
      language: APPOINTMENT.language,
      headerParameters: [],
      bodyParameters: ['Marcos', 'martes 3 a las 10:00'],
    });
    // The wire format Meta expects: one body component with the parameters as text, in order.
    expect(sent.body.template).toEqual({
      name: APPOINTMENT.name,
      language: { code: APPOINTMENT.language },
      components: [
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'Marcos' },
            { type: 'text', text: 'martes 3 a las 10:00' },
          ],
        },
      ],
    });
    // The desk shows what went, as the customer reads it, and the window is still closed to free text.
    await agent
      .locator('[data-testid=message][data-sender=agent]')
      .getByText('Hola Marcos, le recordamos su cita del martes 3 a las 10:00', { exact: false })
      .waitFor();
    await eventually(async () =>
      expect(await agent.locator('[data-testid=message][data-sender=agent] [data-testid=message-mark]').getAttribute('data-mark')).toBe(
        'sent',
      ),
    );
    expect(await agent.getByTestId('chat-input').count()).toBe(0);

    await reopenIn('en', lateCustomer.name);
    await agent.locator('[data-testid=template-picker][data-state=ready]').waitFor();
    await agent.getByTestId('template-select').selectOption(`${APPOINTMENT.name}|${APPOINTMENT.language}`);
    await agent.getByTestId('template-parameter').nth(0).fill('Marcos');
    await agent
      .getByTestId('reply-window')
      .getByText(/template/i)
      .waitFor();
    await agent.screenshot({ path: join(SCREENSHOTS, 'desk-whatsapp-template-en.png') });
  });

  it('fills a NAMED template by name, takes its image header as a checked file and sends it by the uploaded media id', async () => {
    await reopenIn('es', lateCustomer.name);
    const picker = agent.locator('[data-testid=template-picker][data-state=ready]');
    await picker.waitFor();
    await picker.getByTestId('template-select').selectOption(`${ORDER_PHOTO.name}|${ORDER_PHOTO.language}`);
    const parameters = picker.getByTestId('template-parameter');
    await eventually(async () => expect(await parameters.count()).toBe(2));
    // Each field is labelled with its parameter's name and shows Meta's approved example.
    expect(await picker.locator('.desk-templates__param span').allTextContents()).toEqual(
      expect.arrayContaining(['first_name', 'order_id']),
    );
    expect(await parameters.nth(0).getAttribute('placeholder')).toBe('Ana');
    expect(await parameters.nth(1).getAttribute('placeholder')).toBe('A-17');
    const media = picker.getByTestId('template-media');
    expect(await media.getAttribute('data-format')).toBe('IMAGE');

    await parameters.nth(0).fill('Marcos');
    await parameters.nth(1).fill('B-42');
    const preview = picker.getByTestId('template-preview');
    await eventually(async () => expect(await preview.textContent()).toContain('Hola Marcos, su pedido B-42 está listo para recoger.'));
    const send = picker.getByTestId('template-send');
    // No picture yet: the template cannot go.
    expect(await send.isDisabled()).toBe(true);

    // A file WhatsApp does not take as an image header is refused in place.
    await picker
      .getByTestId('template-media-file')
      .setInputFiles({ name: 'notas.txt', mimeType: 'text/plain', buffer: Buffer.from('hola') });
    await picker.getByTestId('template-media-problem').waitFor();
    expect(await picker.getByTestId('template-media-problem').textContent()).toBe('El archivo debe ser jpg, jpeg, png.');
    expect(await send.isDisabled()).toBe(true);

    await picker.getByTestId('template-media-file').setInputFiles(PICTURE);
    await eventually(async () => expect(await picker.getByTestId('template-media-problem').count()).toBe(0));
    expect(await picker.getByTestId('template-preview-media').textContent()).toContain(PICTURE.name);
    await eventually(async () => expect(await send.isDisabled()).toBe(false));
    await dismissToasts();
    await agent.screenshot({ path: join(SCREENSHOTS, 'desk-whatsapp-template-media-es.png') });
    await send.click();

    const sent = await eventually(
      () => {
        const found = fake.sent.find((message) => message.type === 'template' && message.template?.name === ORDER_PHOTO.name);
        if (!found) throw new Error('the named template did not reach the provider yet');
        return found;
      },
      { timeoutMs: 30_000 },
    );
    expect(sent.to).toBe(lateCustomer.from);
    expect(sent.template).toMatchObject({
      namedParameters: { first_name: 'Marcos', order_id: 'B-42' },
      headerMedia: { type: 'image' },
    });
    // The picture went up to Meta as the header's medium, byte for byte.
    const uploaded = fake.uploads.find((one) => one.id === sent.template!.headerMedia!.id);
    expect(uploaded?.mimeType).toBe('image/png');
    expect(uploaded!.bytes.equals(PICTURE.buffer)).toBe(true);
    await agent
      .locator('[data-testid=message][data-sender=agent]')
      .getByText('Hola Marcos, su pedido B-42 está listo para recoger.', { exact: false })
      .waitFor();

    await reopenIn('en', lateCustomer.name);
    await agent.locator('[data-testid=template-picker][data-state=ready]').waitFor();
    await agent.getByTestId('template-select').selectOption(`${ORDER_PHOTO.name}|${ORDER_PHOTO.language}`);
    await agent.getByTestId('template-parameter').nth(0).fill('Marcos');
    await agent.getByTestId('template-media-link').fill('https://cdn.example.com/pedidos/B-42.png');
    await dismissToasts();
    await agent.screenshot({ path: join(SCREENSHOTS, 'desk-whatsapp-template-media-en.png') });
  });
});
