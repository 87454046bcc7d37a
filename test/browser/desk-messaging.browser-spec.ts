import { randomBytes, randomInt } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import type { ChannelAccountView, ConversationView, MessageView } from '@centralita/contracts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startMetaMessengerFake, type MetaFakeAccount, type MetaMessengerFake } from '../fakes/meta-messenger';
import { startTelegramFake, type TelegramFake } from '../fakes/telegram';
import { startXFake, type XFake } from '../fakes/x';
import { eventually } from '../support/eventually';
import { api, createDemoAgent, DEMO, DEMO_PASSWORD, launchBrowser } from '../support/browser';
import { startSuiteApi, type SuiteApi } from '../support/suite-api';

/**
 * Issue #19's must-show for Facebook Messenger, Instagram, Telegram and X, in the agent's browser
 * desk: a customer writes through the provider's fake (a signed webhook, as the provider sends it),
 * the conversation queues on the account's line and reaches the available agent with the channel's
 * icon and the name the customer has at the provider; the agent answers with text and a picture
 * chosen with the attach button, the worker's channel-send processor hands both to the fake in the
 * provider's wire format, the provider's receipts turn the marks to read (Telegram has none) and
 * the agent closes the conversation. What the agent sees (DOM), what the fake received and what is
 * stored (REST) are all checked.
 *
 * The tier's shared API has no provider URLs, no X switch and no worker, so this suite starts an API
 * and a worker of its own pointed at the three fakes (test/support/suite-api.ts: on the tier's
 * database, never at the same time as another suite's worker), on a queue prefix of its own: the
 * API processes of one prefix share the webhook events' processing, and the shared API would take
 * some of these with no provider URLs (Meta's profile read fails, the customer goes unnamed) and X
 * switched off (the event is dropped as from a disconnected account).
 */
jest.setTimeout(120_000);

type Kind = 'facebook' | 'instagram' | 'telegram' | 'twitter';

/** CRC-32 of PNG chunks (the PNG spec's polynomial). */
function crc32(bytes: Buffer): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit += 1) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

/** A real PNG (a colour gradient): the API's content check, every provider's upload check and the browser accept it. */
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
    for (let x = 0; x < width; x += 1) rows.set([200, Math.round((x / width) * 255), Math.round((y / height) * 255)], row + 1 + x * 3);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const PICTURE = { name: 'talla-m.png', mimeType: 'image/png', buffer: gradientPng(160, 100) };
const digits = () => String(randomInt(100_000_000_000, 999_999_999_999));

/** What one channel's flow needs to know about its provider. */
interface Channel {
  kind: Kind;
  /** The line's channel (ATTENTION_LINE_CHANNELS) and the desk's label for it. */
  label: string;
  /** The customer's name at the provider, as the desk must show it. */
  customerName: string;
  /** Providers with a reply window (Meta's 24 hours) show the desk's banner; the others none. */
  replyWindow: boolean;
  customerWrites(text: string): Promise<void>;
  /** The provider's ids of the text and the picture the agent sent, once the fake has both (checked in its wire format). */
  received(reply: string): { textId: string; imageId: string } | string;
  /** The provider's receipts for both, in the order the provider sends them, each with the mark it brings; empty: none. */
  receipts: Array<{ mark: 'delivered' | 'read'; push: (ids: { textId: string; imageId: string }) => Promise<void> }>;
}

describe('Messenger, Instagram, Telegram and X in the agent desk (browser)', () => {
  const tag = randomBytes(3).toString('hex');
  const appSecret = randomBytes(16).toString('hex');
  const metaAccounts: Record<'facebook' | 'instagram', MetaFakeAccount> = {
    facebook: { kind: 'facebook', accountId: '', pageId: '', accessToken: `EAAP${randomBytes(20).toString('hex')}`, name: 'Tienda Acme' },
    instagram: {
      kind: 'instagram',
      accountId: `1784${digits()}`,
      pageId: digits(),
      accessToken: `EAAI${randomBytes(20).toString('hex')}`,
      name: 'Tienda Acme IG',
      username: 'tienda.acme',
    },
  };
  metaAccounts.facebook.accountId = metaAccounts.facebook.pageId = digits();
  // Provider ids of this run's own: accounts are unique by (kind, provider id) across the tier's database.
  const botToken = `${randomInt(1_000_000_000, 9_000_000_000)}:AAH${randomBytes(24).toString('base64url')}`;
  const xUserId = String(randomInt(1_000_000_000, 9_000_000_000));
  const xCredentials = {
    consumerKey: `ck-${randomBytes(8).toString('hex')}`,
    consumerSecret: `cs-${randomBytes(16).toString('hex')}`,
    accessToken: `${xUserId}-${randomBytes(12).toString('hex')}`,
    accessTokenSecret: `ats-${randomBytes(16).toString('hex')}`,
  };
  const customers = {
    facebook: { id: `2${digits()}`, firstName: 'Ana', lastName: `Pérez ${tag}` },
    instagram: { id: `17${digits()}`, name: `Bruno Díaz ${tag}`, username: `bruno.${tag}` },
    telegram: { chatId: randomInt(100_000_000, 900_000_000), firstName: 'Carla', lastName: `Ruiz ${tag}` },
    twitter: { senderId: String(randomInt(100_000_000, 900_000_000)), name: `Diego Gil ${tag}`, screenName: `diego_${tag}` },
  };

  let meta: MetaMessengerFake;
  let telegram: TelegramFake;
  let x: XFake;
  let suite: SuiteApi | undefined;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let agent: Page;
  let adminToken: string;
  let sharedAdminToken: string;
  const lineIds = {} as Record<Kind, string>;
  const accounts = {} as Record<Kind, ChannelAccountView>;

  const call = <T>(method: string, route: string, token: string, body?: unknown): Promise<T> => suite!.call<T>(method, route, token, body);
  /** The agent's own access token, as the console keeps it: REST reads see what the agent may see. */
  const agentToken = () => agent.evaluate(() => window.localStorage.getItem('accessToken') ?? '');
  const conversationItem = (name: string) => agent.getByTestId('conversation-item').filter({ has: agent.getByText(name, { exact: true }) });
  const agentMarks = () =>
    agent
      .locator('[data-testid=message][data-sender=agent] [data-testid=message-mark]')
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-mark')));

  /** The Send API calls that carried a message (not a sender action) from one Meta account to one customer. */
  const metaSends = (kind: 'facebook' | 'instagram', customer: string) =>
    meta.sent.filter((sent) => sent.accountId === metaAccounts[kind].accountId && sent.recipientId === customer && !sent.senderAction);

  function metaChannel(kind: 'facebook' | 'instagram', label: string, customerName: string, customer: string): Channel {
    const account = metaAccounts[kind];
    // Messenger sends as the Page (`me`); Instagram through its linked Page.
    const node = kind === 'facebook' ? 'me' : account.pageId;
    return {
      kind,
      label,
      customerName,
      replyWindow: true,
      async customerWrites(text) {
        const { statuses } = await meta.customerWrites(account.accountId, [{ from: customer, text }]);
        expect(statuses).toEqual([200]);
      },
      received(reply) {
        const sends = metaSends(kind, customer);
        const text = sends.find((sent) => sent.text === reply);
        const image = sends.find((sent) => sent.attachment);
        if (!text || !image) return `the Meta fake got ${JSON.stringify(sends)}`;
        expect(text).toMatchObject({ node, messagingType: 'RESPONSE' });
        // The picture went up once with the Attachment Upload API (Instagram's with platform=instagram), then by its id.
        const upload = meta.uploads.find((one) => one.attachmentId === image.attachment!.attachmentId);
        expect(upload).toMatchObject({ accountId: account.accountId, type: 'image', isReusable: true, mimeType: PICTURE.mimeType });
        expect(upload!.platform).toBe(kind === 'instagram' ? 'instagram' : undefined);
        expect(upload!.bytes.equals(PICTURE.buffer)).toBe(true);
        expect(image).toMatchObject({ node, messagingType: 'RESPONSE', attachment: { type: 'image', attachmentId: upload!.attachmentId } });
        return { textId: text.messageId!, imageId: image.messageId! };
      },
      receipts:
        kind === 'facebook'
          ? [
              // Messenger: delivery receipts by mid, then one read watermark (the picture's time) that covers the text sent before it.
              {
                mark: 'delivered',
                push: async ({ textId, imageId }) => {
                  const delivered = await meta.pushReceipts(account.accountId, [
                    { messageId: textId, status: 'delivered' },
                    { messageId: imageId, status: 'delivered' },
                  ]);
                  expect(delivered).toEqual([200, 200]);
                },
              },
              {
                mark: 'read',
                push: async ({ imageId }) => {
                  expect(await meta.pushReceipts(account.accountId, [{ messageId: imageId, status: 'read' }])).toEqual([200]);
                },
              },
            ]
          : [
              // Instagram sends no delivery receipts, only messaging_seen (by mid).
              {
                mark: 'read',
                push: async ({ textId, imageId }) => {
                  const seen = await meta.pushReceipts(account.accountId, [
                    { messageId: textId, status: 'read' },
                    { messageId: imageId, status: 'read' },
                  ]);
                  expect(seen).toEqual([200, 200]);
                },
              },
            ],
    };
  }

  function channels(): Channel[] {
    const { facebook, instagram } = customers;
    return [
      metaChannel('facebook', 'FaceBook', `${facebook.firstName} ${facebook.lastName}`, facebook.id),
      metaChannel('instagram', 'Instagram', instagram.name, instagram.id),
      {
        kind: 'telegram',
        label: 'Telegram',
        customerName: `${customers.telegram.firstName} ${customers.telegram.lastName}`,
        replyWindow: false,
        async customerWrites(text) {
          const { delivery } = await telegram.customerWrites({ ...customers.telegram, text });
          expect(delivery!.attempts).toEqual([200]);
        },
        received(reply) {
          const sent = telegram.sent.filter((one) => one.chatId === String(customers.telegram.chatId));
          const text = sent.find((one) => one.method === 'sendMessage' && one.text === reply);
          const photo = sent.find((one) => one.method === 'sendPhoto');
          if (!text || !photo) return `the Telegram fake got ${JSON.stringify(sent.map((one) => one.method))}`;
          // sendPhoto as a multipart upload of the picture itself.
          expect(photo.file).toMatchObject({ field: 'photo', fileName: PICTURE.name, mimeType: PICTURE.mimeType });
          expect(photo.file!.bytes.equals(PICTURE.buffer)).toBe(true);
          const upload = telegram.calls.find((one) => one.method === 'sendPhoto' && one.status === 200);
          expect(upload?.contentType.startsWith('multipart/form-data')).toBe(true);
          return { textId: String(text.messageId), imageId: String(photo.messageId) };
        },
        // Bots get no delivery or read receipts from Telegram: the marks stay at "sent".
        receipts: [],
      },
      {
        kind: 'twitter',
        label: 'Twitter',
        customerName: customers.twitter.name,
        replyWindow: false,
        async customerWrites(text) {
          const { deliveries } = await x.customerWrites({ ...customers.twitter, text });
          expect(deliveries.map((delivery) => delivery.statuses)).toEqual([[200]]);
        },
        received(reply) {
          const sent = x.sent.filter((one) => one.participantId === customers.twitter.senderId);
          const text = sent.find((one) => one.text === reply);
          const image = sent.find((one) => one.media);
          if (!text || !image) return `the X fake got ${JSON.stringify(sent.map((one) => one.text ?? one.mediaId))}`;
          // Both signed with the account's OAuth 1.0a credentials (the fake recomputes the signature); the
          // picture uploaded for Direct Messages first, then sent by its media id.
          expect(text.auth).toBe('oauth1');
          expect(image.auth).toBe('oauth1');
          expect(image.media).toMatchObject({ category: 'dm_image', mediaType: PICTURE.mimeType, finalized: true });
          expect(image.media!.bytes.equals(PICTURE.buffer)).toBe(true);
          return { textId: text.dmEventId, imageId: image.dmEventId };
        },
        // X has read receipts only (direct_message_mark_read_events).
        receipts: [
          {
            mark: 'read',
            push: async ({ textId, imageId }) => {
              const receipts = await x.pushReceipts([textId, imageId]);
              expect(receipts.map((receipt) => receipt.statuses)).toEqual([[200], [200]]);
            },
          },
        ],
      },
    ];
  }

  beforeAll(async () => {
    // The lines and their agent through the tier's shared API (the agent's invitation is read from its mail queue).
    sharedAdminToken = (await api<{ accessToken: string }>('POST', '/api/auth/login', null, { email: DEMO.admin, password: DEMO_PASSWORD }))
      .accessToken;
    for (const { kind, label } of channels()) {
      lineIds[kind] = (
        await api<{ id: string }>('POST', '/api/attention-lines', sharedAdminToken, {
          name: `${label} line ${tag}`,
          type: 'inbound',
          channel: label,
          businessHours: [],
        })
      ).id;
    }
    const agentEmail = `desk-messaging-${tag}@demo.centralita.io`;
    const { id: agentId } = await createDemoAgent(sharedAdminToken, { name: `Olga Mensajes ${tag}`, email: agentEmail });
    const detail = await api<Record<string, unknown>>('GET', `/api/users/${agentId}`, sharedAdminToken);
    await api('PUT', `/api/users/${agentId}`, sharedAdminToken, {
      name: detail.name,
      email: detail.email,
      roleId: detail.roleId,
      active: true,
      attentionLineIds: Object.values(lineIds),
      campaignIds: detail.campaignIds ?? [],
      pauseReasonCodes: detail.pauseReasonCodes ?? [],
    });

    meta = await startMetaMessengerFake({ appSecret, accounts: Object.values(metaAccounts) });
    for (const kind of ['facebook', 'instagram'] as const) {
      const { id, ...profile } = customers[kind];
      meta.customer(metaAccounts[kind].accountId, { id, ...profile });
    }
    telegram = await startTelegramFake({ token: botToken, bot: { firstName: 'Tienda Acme', username: `tienda_${tag}_bot` } });
    x = await startXFake({ accountUserId: xUserId, accountName: 'Tienda Acme', accountUsername: `tienda_${tag}`, ...xCredentials });
    suite = await startSuiteApi({
      worker: true,
      queuePrefixSuffix: '-messaging',
      env: {
        META_GRAPH_URL: meta.url,
        META_GRAPH_VERSION: meta.graphVersion,
        TELEGRAM_API_URL: telegram.url,
        X_API_URL: x.url,
        CHANNEL_X_ENABLED: 'on',
      },
    });
    adminToken = (await call<{ accessToken: string }>('POST', '/api/auth/login', '', { email: DEMO.admin, password: DEMO_PASSWORD }))
      .accessToken;

    // The administrator connects one account per channel, each on its line; each provider is told the webhook URL.
    const connect = (kind: Kind, name: string, externalAccountId: string, secrets: Record<string, string>, settings = {}) =>
      call<ChannelAccountView>('POST', '/api/channel-accounts', adminToken, {
        kind,
        name: `${name} ${tag}`,
        externalAccountId,
        attentionLineId: lineIds[kind],
        settings,
        secrets,
      });
    for (const kind of ['facebook', 'instagram'] as const) {
      const account = metaAccounts[kind];
      accounts[kind] = await connect(
        kind,
        account.name,
        account.accountId,
        { accessToken: account.accessToken, appSecret },
        kind === 'instagram' ? { pageId: account.pageId } : {},
      );
      meta.setWebhookUrl(account.accountId, accounts[kind].webhookUrl);
    }
    accounts.telegram = await connect('telegram', 'Telegram', String(telegram.bot.id), { botToken });
    telegram.setWebhook({ url: accounts.telegram.webhookUrl, secretToken: accounts.telegram.verifyToken });
    accounts.twitter = await connect('twitter', 'X', xUserId, xCredentials);
    x.setWebhookUrl(accounts.twitter.webhookUrl);
    for (const account of Object.values(accounts)) expect(account.webhookUrl.startsWith(`${suite.url}/`)).toBe(true);

    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1366, height: 800 }, baseURL: suite.url });
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
    await agent.locator('[data-testid=presence-state] [data-testid=agent-status][data-status=available]').waitFor();
    // Up to 200 s waiting for another suite's worker to finish (suite-api.ts), then the start itself.
  }, 360_000);

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    if (adminToken)
      for (const account of Object.values(accounts))
        await call('DELETE', `/api/channel-accounts/${account.id}`, adminToken).catch(() => undefined);
    if (sharedAdminToken)
      for (const lineId of Object.values(lineIds))
        await api('DELETE', `/api/attention-lines/${lineId}`, sharedAdminToken).catch(() => undefined);
    await suite?.stop();
    await Promise.all([meta?.close(), telegram?.close(), x?.close()]);
  });

  // A failed flow leaves its conversation open: closed here, so the next channel's starts from an empty desk.
  afterEach(async () => {
    if (!agent) return;
    const token = await agentToken().catch(() => '');
    if (!token) return;
    const active = await call<ConversationView[]>('GET', '/api/agent/conversations', token).catch(() => []);
    for (const left of active)
      await call('POST', `/api/agent/conversations/${left.id}/close`, token, { disposition: 'resolved' }).catch(() => undefined);
  });

  describe.each(['facebook', 'instagram', 'telegram', 'twitter'] as const)('%s', (kind) => {
    it('brings the customer’s message to the desk, sends text and a picture, shows the receipts and closes', async () => {
      const channel = channels().find((one) => one.kind === kind)!;
      const firstWords = `Hola, ¿tienen talla M? (${kind})`;
      await channel.customerWrites(firstWords);

      // The conversation arrives with the channel's icon and the name the customer has at the provider.
      const item = conversationItem(channel.customerName);
      await item.waitFor();
      expect(await item.getByTestId('channel-badge').getAttribute('data-channel')).toBe(kind);
      const conversationId = (await item.getAttribute('data-conversation-id'))!;
      await item.click();
      await agent.getByTestId('chat-customer-name').filter({ hasText: channel.customerName }).waitFor();
      await agent.getByTestId('chat-window').locator(`[data-testid=channel-badge][data-channel=${kind}]`).waitFor();
      await agent.locator('[data-testid=message][data-sender=customer]').getByText(firstWords, { exact: true }).waitFor();
      await agent.getByTestId('customer-menu').getByText(channel.label, { exact: true }).waitFor();
      await agent.getByTestId('customer-name').getByText(channel.customerName, { exact: true }).waitFor();
      // Meta's channels answer freely for 24 hours after the customer wrote (the banner says so); Telegram and X have no window.
      if (channel.replyWindow) await agent.locator('[data-testid=reply-window][data-window=open]').waitFor();
      else expect(await agent.getByTestId('reply-window').count()).toBe(0);

      // Stored: queued on the account's line, then handed to this agent.
      const token = await agentToken();
      const held = (await call<ConversationView[]>('GET', '/api/agent/conversations', token)).find((one) => one.id === conversationId);
      expect(held).toMatchObject({ status: 'Active', attentionLineId: lineIds[kind], customerName: channel.customerName });
      const transitions = async () =>
        (
          await call<{ transitions: Array<{ to: string }> }>(
            'GET',
            `/api/supervisor/conversations/${conversationId}/transitions`,
            adminToken,
          )
        ).transitions.map((step) => step.to);
      const states = await transitions();
      expect(states.slice(states.indexOf('LiningUp'))).toEqual(['LiningUp', 'Active']);

      // The agent answers with text, then a picture chosen with the attach button.
      const reply = `Sí, nos queda una talla M (${kind}).`;
      await agent.getByTestId('chat-input').fill(reply);
      await agent.getByTestId('chat-input').press('Enter');
      await agent.getByTestId('message-text').filter({ hasText: reply }).waitFor();
      const [chooser] = await Promise.all([agent.waitForEvent('filechooser'), agent.getByTestId('chat-attach').click()]);
      await chooser.setFiles(PICTURE);

      // The provider received both, in its wire format (checked by channel.received).
      const ids = await eventually(
        async () => {
          suite!.assertRunning();
          const got = channel.received(reply);
          if (typeof got !== 'string') return got;
          const refused = await agent.getByTestId('chat-file-error').allTextContents();
          const stored = await call<MessageView[]>('GET', `/api/agent/conversations/${conversationId}/messages`, token);
          throw new Error(
            `${got}; the desk refused ${JSON.stringify(refused)}; stored ${JSON.stringify(
              stored.filter((one) => one.senderKind === 'agent').map((one) => [one.text, one.deliveryStatus, one.deliveryError]),
            )}`,
          );
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );

      // The agent's own picture shows inline, decoded.
      await agent.waitForFunction((name) => {
        const img = document.querySelector(
          `[data-testid=message][data-sender=agent] [data-testid=attachment-image][data-file-name="${name}"] img`,
        ) as HTMLImageElement | null;
        return img !== null && img.complete && img.naturalWidth === 160;
      }, PICTURE.name);

      // Both went out (the worker's status update, delivered by the API's outbox poller): one tick each.
      await eventually(async () => expect(await agentMarks()).toEqual(['sent', 'sent']), { timeoutMs: 30_000 });
      const stored = async () =>
        (await call<MessageView[]>('GET', `/api/agent/conversations/${conversationId}/messages`, token))
          .filter((one) => one.senderKind === 'agent')
          .map((one) => ({ text: one.text || null, files: one.attachments.map((file) => file.fileName), status: one.deliveryStatus }));
      expect(await stored()).toEqual([
        { text: reply, files: [], status: 'sent' },
        { text: null, files: [PICTURE.name], status: 'sent' },
      ]);

      if (channel.receipts.length) {
        // Each receipt moves both marks on screen before the next one is sent.
        for (const receipt of channel.receipts) {
          await receipt.push(ids);
          await eventually(async () => expect(await agentMarks()).toEqual([receipt.mark, receipt.mark]), { timeoutMs: 15_000 });
        }
        expect(channel.receipts.at(-1)!.mark).toBe('read');
        // Read: two ticks.
        expect(
          await agent.locator('[data-testid=message][data-sender=agent] [data-testid=message-mark] >> nth=0').locator('i').count(),
        ).toBe(2);
        expect((await stored()).map((one) => one.status)).toEqual(['read', 'read']);
      } else {
        // Telegram tells bots nothing about delivery or reading. Once the customer's next message is on
        // screen (the inbound path has run since), both marks are still one tick, stored as "sent".
        await channel.customerWrites('¡Gracias!');
        await agent.locator('[data-testid=message][data-sender=customer]').getByText('¡Gracias!', { exact: true }).waitFor();
        expect(await agentMarks()).toEqual(['sent', 'sent']);
        expect((await stored()).map((one) => one.status)).toEqual(['sent', 'sent']);
      }

      // The agent closes it: gone from the desk and from the agent's active conversations, closed in the log.
      await agent.getByTestId('chat-close').click();
      await agent.selectOption('[data-testid=close-disposition]', 'resolved');
      await agent.getByTestId('close-confirm').click();
      await agent.locator(`[data-testid=conversation-item][data-conversation-id="${conversationId}"]`).waitFor({ state: 'detached' });
      await agent.getByTestId('chat-close').waitFor({ state: 'detached' });
      await eventually(async () => {
        const active = await call<ConversationView[]>('GET', '/api/agent/conversations', token);
        expect(active.some((one) => one.id === conversationId)).toBe(false);
      });
      // The line has no poll: closed at once, no survey.
      const closed = await transitions();
      expect(closed.slice(closed.indexOf('LiningUp'), closed.indexOf('LiningUp') + 2)).toEqual(['LiningUp', 'Active']);
      expect(closed.at(-1)).toBe('Closed');
    });
  });
});
