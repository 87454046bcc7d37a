import { randomInt, randomBytes } from 'node:crypto';
import type { ChannelAccountView, ConversationView, MessageView } from '@centralita/contracts';
import { eventually as eventuallyWithin } from '../../../../test/support/eventually';
import { startMetaMessengerFake, type MetaFakeAccount, type MetaMessengerFake } from '../../../../test/fakes/meta-messenger';
import type { ChildWorker } from '../support/processes';
import { data, type Received, type StaffSocket } from '../support/realtime';
import type { TestApp } from '../support/test-app';
import {
  TINY_PNG,
  accountConversations,
  accountCounts,
  agentCloses,
  agentOnline,
  agentSends,
  channelDesk,
  channelSuite,
  connectChannelAccount,
  conversationMessages,
  conversationStates,
  conversationUpdates,
  downloadAttachment,
  messageById,
  messageUpdates,
  startChannelApi,
  startChannelSendWorker,
  stopChild,
  uploadAttachment,
  webhookUrlOf,
  type AccountConversation,
  type ChannelDesk,
} from './support/channel-e2e';

/**
 * Facebook Messenger and Instagram end to end, one Meta app (test/fakes/meta-messenger.ts) with a
 * Page and an Instagram account linked to another Page: customers write through signed webhooks
 * to two real API processes; conversations queue on each account's line and an agent gets them;
 * replies go through the real worker's channel-send processor to the Send API (text; images
 * uploaded with the Attachment Upload API, then sent by attachment id); receipts; rate limits and
 * permanent errors. Every count is filtered by this suite's accounts (other suites share the database).
 */
jest.setTimeout(60_000);
// Two API processes and the worker child (which compiles its sources) start together; on a loaded
// machine that alone can take most of a minute.
const STARTUP_TIMEOUT_MS = 120_000;
const eventually = <T>(assertion: () => T | Promise<T>, timeoutMs = 20_000) => eventuallyWithin(assertion, { timeoutMs, intervalMs: 50 });

type Kind = 'facebook' | 'instagram';
const digits = () => String(randomInt(100_000_000_000, 999_999_999_999));

describe('Messenger and Instagram end to end (fake Meta, real API, worker, PostgreSQL, Redis)', () => {
  const appSecret = randomBytes(16).toString('hex');
  // Random ids: the (kind, external account id) pair is unique across the run's database.
  const fakeAccounts: Record<Kind, MetaFakeAccount> = {
    facebook: { kind: 'facebook', accountId: '', pageId: '', accessToken: `EAAP${randomBytes(20).toString('hex')}`, name: 'Acme' },
    instagram: {
      kind: 'instagram',
      accountId: '',
      pageId: '',
      accessToken: `EAAI${randomBytes(20).toString('hex')}`,
      name: 'Acme IG',
      username: 'acme.tienda',
    },
  };
  fakeAccounts.facebook.accountId = fakeAccounts.facebook.pageId = digits();
  fakeAccounts.instagram.accountId = `1784${digits()}`;
  fakeAccounts.instagram.pageId = digits();

  let meta: MetaMessengerFake;
  let a: TestApp;
  let b: TestApp;
  let worker: ChildWorker | undefined;
  let desk: ChannelDesk;
  const accounts = {} as Record<Kind, ChannelAccountView>;
  let desktop: { socket: StaffSocket; received: Received[] } | undefined;

  beforeAll(async () => {
    meta = await startMetaMessengerFake({ appSecret, accounts: Object.values(fakeAccounts) });
    const suite = channelSuite('meta', { META_GRAPH_URL: meta.url, META_GRAPH_VERSION: meta.graphVersion });
    // The worker child compiles its sources for a while: started alongside the two API processes;
    // each assigned as it comes up, so afterAll closes whatever started if another one failed.
    await Promise.all([
      startChannelApi(suite).then((started) => (a = started)),
      startChannelApi(suite).then((started) => (b = started)),
      startChannelSendWorker(suite).then((started) => (worker = started)),
    ]);
    desk = await channelDesk(a);
    for (const kind of ['facebook', 'instagram'] as const) {
      const fake = fakeAccounts[kind];
      accounts[kind] = await connectChannelAccount(a, desk, {
        kind,
        name: fake.name,
        externalAccountId: fake.accountId,
        settings: kind === 'instagram' ? { pageId: fake.pageId } : {},
        secrets: { accessToken: fake.accessToken, appSecret },
      });
      meta.setWebhookUrl(fake.accountId, webhookUrlOf(a, accounts[kind]));
    }
    // The desk is open from the start here: queuing before an agent logs in is shown by the WhatsApp suite.
    desktop = await agentOnline(a, desk);
  }, STARTUP_TIMEOUT_MS);

  afterAll(async () => {
    desktop?.socket.close();
    await stopChild(worker);
    await Promise.all([a?.close(), b?.close()]);
    await meta?.close();
  });

  const agentToken = () => desk.agent.token;
  const newCustomer = (kind: Kind) => (kind === 'facebook' ? `2${digits()}` : `17${digits()}`);

  const heldByAgent = (kind: Kind, customer: string) =>
    eventually(async () => {
      const conversation = (await accountConversations(a.dataSource, accounts[kind].id)).find((one) => one.contact === customer);
      expect(conversation).toMatchObject<Partial<AccountConversation>>({
        status: 'Active',
        channel: kind,
        agent_id: desk.agent.userId,
        attention_line_id: desk.lineId,
      });
      return conversation!;
    });
  const sentTo = (kind: Kind, customer: string) =>
    meta.sent.filter((send) => send.accountId === fakeAccounts[kind].accountId && send.recipientId === customer && !send.senderAction);
  const statusOf = (conversationId: string, messageId: string) => messageById(a, agentToken(), conversationId, messageId);

  describe.each(['facebook', 'instagram'] as const)('%s', (kind) => {
    const sender = () => (kind === 'facebook' ? 'me' : fakeAccounts.instagram.pageId);

    it('takes the customer in and routes the conversation, sends text and an image by upload, applies receipts read-first, keeps customer media, closes', async () => {
      const online = desktop!;
      const customer = newCustomer(kind);
      meta.customer(fakeAccounts[kind].accountId, {
        id: customer,
        firstName: 'Ana',
        lastName: 'Pérez',
        name: 'Ana Pérez',
        username: 'ana.p',
      });
      const written = await meta.customerWrites(fakeAccounts[kind].accountId, [{ from: customer, text: 'Hola, ¿tienen talla M? ñ' }]);
      expect(written.statuses).toEqual([200]);
      const conversation = await heldByAgent(kind, customer);
      await eventually(() =>
        expect(conversationUpdates(online.received, conversation.id).at(-1)).toMatchObject<Partial<ConversationView>>({
          status: 'Active',
          agentId: desk.agent.userId,
        }),
      );
      // The webhook carries only the customer's id: their name comes from the provider's profile.
      expect(conversationUpdates(online.received, conversation.id).at(-1)?.customerName).toBe('Ana Pérez');
      // Queued on the account's line first, then handed to the available agent.
      const states = await conversationStates(a.dataSource, conversation.id);
      expect(states.slice(states.indexOf('LiningUp'))).toEqual(['LiningUp', 'Active']);
      expect(await conversationMessages(a, agentToken(), conversation.id)).toEqual([
        expect.objectContaining({ senderKind: 'customer', text: 'Hola, ¿tienen talla M? ñ' }),
      ]);

      const text = await agentSends(a, agentToken(), conversation.id, 'Sí, nos queda una.');
      expect(text).toMatchObject({ deliveryStatus: 'pending' });
      await eventually(() => expect(sentTo(kind, customer)).toHaveLength(1));
      expect(sentTo(kind, customer)[0]).toMatchObject({
        node: sender(),
        messagingType: 'RESPONSE',
        text: 'Sí, nos queda una.',
      });
      expect(sentTo(kind, customer)[0]!.tag).toBeUndefined();
      await eventually(async () => expect((await statusOf(conversation.id, text.id)).deliveryStatus).toBe('sent'));

      // The image: uploaded once (reusable; Instagram's with platform=instagram), then the caption as
      // its own text (Messenger attachments carry none) and the attachment by its id.
      const image = data<MessageView>(
        await uploadAttachment(a, agentToken(), conversation.id, {
          bytes: TINY_PNG,
          fileName: 'talla-m.png',
          mimeType: 'image/png',
          caption: 'Esta',
        }),
      );
      await eventually(() => expect(sentTo(kind, customer)).toHaveLength(3));
      const upload = meta.uploads.filter((one) => one.accountId === fakeAccounts[kind].accountId).at(-1)!;
      expect(upload).toMatchObject({ type: 'image', isReusable: true, mimeType: 'image/png', fileName: 'talla-m.png' });
      expect(upload.platform).toBe(kind === 'instagram' ? 'instagram' : undefined);
      expect(Buffer.compare(upload.bytes, TINY_PNG)).toBe(0);
      const [, caption, attachment] = sentTo(kind, customer);
      expect(caption).toMatchObject({ node: sender(), text: 'Esta' });
      expect(attachment).toMatchObject({
        node: sender(),
        messagingType: 'RESPONSE',
        attachment: { type: 'image', attachmentId: upload.attachmentId },
      });
      const paths = meta.requests.filter((request) => request.method === 'POST').map((request) => request.path);
      const uploadCall = paths.lastIndexOf(`/${meta.graphVersion}/${sender()}/message_attachments`);
      expect(uploadCall).toBeGreaterThanOrEqual(0);
      expect(paths.slice(uploadCall + 1)).toContain(`/${meta.graphVersion}/${sender()}/messages`);
      await eventually(async () => expect((await statusOf(conversation.id, image.id)).deliveryStatus).toBe('sent'));

      // Receipts: read first (Messenger by watermark, Instagram's messaging_seen by mid; Instagram sends no delivery receipts).
      const imageMid = attachment!.messageId!;
      const receipts =
        kind === 'facebook'
          ? await meta.pushReceipts(
              fakeAccounts[kind].accountId,
              [
                { messageId: imageMid, status: 'delivered' },
                { messageId: imageMid, status: 'read' },
              ],
              { shuffle: true },
            )
          : await meta.pushReceipts(fakeAccounts[kind].accountId, [{ messageId: imageMid, status: 'read' }]);
      expect(new Set(receipts)).toEqual(new Set([200]));
      await eventually(async () => expect((await statusOf(conversation.id, image.id)).deliveryStatus).toBe('read'));
      // Messenger's read watermark covers every message sent up to it: the earlier text too.
      if (kind === 'facebook') await eventually(async () => expect((await statusOf(conversation.id, text.id)).deliveryStatus).toBe('read'));
      await eventually(() => expect(messageUpdates(online.received, image.id).map((update) => update.deliveryStatus)).toContain('read'));
      await eventually(async () =>
        expect(
          (
            (await a.dataSource.query(`SELECT count(*)::int AS n FROM channel_events WHERE account_id = $1 AND processed_at IS NULL`, [
              accounts[kind].id,
            ])) as { n: number }[]
          )[0]!.n,
        ).toBe(0),
      );
      expect((await statusOf(conversation.id, image.id)).deliveryStatus).toBe('read');

      // The customer's photo: fetched from Meta's CDN URL at once, stored, downloadable by staff.
      const photo = Buffer.concat([TINY_PNG, Buffer.from(`photo from ${kind}`)]);
      await meta.customerWrites(fakeAccounts[kind].accountId, [
        { from: customer, media: [{ type: 'image', bytes: photo, mimeType: 'image/png', fileName: 'caja.png' }] },
      ]);
      const withPhoto = await eventually(async () => {
        const message = (await conversationMessages(a, agentToken(), conversation.id)).find(
          (one) => one.senderKind === 'customer' && one.attachments.length > 0,
        );
        expect(message).toBeDefined();
        return message!;
      });
      expect(withPhoto.attachments).toEqual([expect.objectContaining({ kind: 'image', mimeType: 'image/png', size: photo.length })]);
      const downloaded = await downloadAttachment(a, agentToken(), withPhoto.attachments[0]!.url);
      expect(downloaded.status).toBe(200);
      expect(Buffer.compare(downloaded.body as Buffer, photo)).toBe(0);

      const closed = await agentCloses(a, agentToken(), conversation.id);
      expect(closed.status).not.toBe('Active');
    });

    it('stores a delivery once when it reaches two API processes at once and again 5 times; refuses forged and unsigned ones (401) storing nothing', async () => {
      const account = accounts[kind];
      const customer = newCustomer(kind);
      const before = await accountCounts(a.dataSource, account.id);
      const { mids, statuses } = await meta.customerWrites(fakeAccounts[kind].accountId, [{ from: customer, text: 'Mensaje repetido' }], {
        urls: [webhookUrlOf(a, account), webhookUrlOf(b, account)],
        times: 6,
      });
      expect(statuses).toEqual(new Array(12).fill(200));
      const conversation = await heldByAgent(kind, customer);
      await eventually(async () => {
        const stored = (await a.dataSource.query(`SELECT text FROM messages WHERE channel_account_id = $1 AND external_id = $2`, [
          account.id,
          mids[0],
        ])) as { text: string }[];
        expect(stored).toEqual([{ text: 'Mensaje repetido' }]);
        expect(await accountCounts(a.dataSource, account.id)).toEqual({
          events: before.events + 1,
          messages: before.messages + 1,
          conversations: before.conversations + 1,
        });
      });

      const settled = await accountCounts(a.dataSource, account.id);
      const forged = meta.customerPayload(fakeAccounts[kind].accountId, [{ from: newCustomer(kind), text: 'firma falsa' }]);
      const forgedStatuses = await meta.deliverRaw(fakeAccounts[kind].accountId, forged.body, {
        signature: `sha256=${'0'.repeat(64)}`,
      });
      const unsigned = await meta.deliverRaw(fakeAccounts[kind].accountId, forged.body, { signature: null });
      expect([...forgedStatuses, ...unsigned]).toEqual([401, 401]);
      // Meta retried each refused delivery: every attempt was answered 401.
      const attempts = meta.webhooks.filter((attempt) => attempt.body === forged.body);
      expect(attempts.length).toBeGreaterThan(2);
      expect(new Set(attempts.map((attempt) => attempt.status))).toEqual(new Set([401]));
      expect(await accountCounts(a.dataSource, account.id)).toEqual(settled);
      await agentCloses(a, agentToken(), conversation.id);
    });

    it('retries a rate-limited send until it is sent, and fails a permanent error (190) with the provider’s reason', async () => {
      const customer = newCustomer(kind);
      await meta.customerWrites(fakeAccounts[kind].accountId, [{ from: customer, text: 'Hola' }]);
      const conversation = await heldByAgent(kind, customer);

      const refusedBefore = meta.requests.filter((request) => request.status === 400 && request.errorCode !== 190).length;
      // Meta's business-use-case limit (80006 Messenger, 80002 Instagram) with no wait announced: BullMQ's backoff.
      meta.failNext(1, 'rate-limit', { regainMinutes: 0 });
      const limited = await agentSends(a, agentToken(), conversation.id, 'Un momento');
      await eventually(async () => expect((await statusOf(conversation.id, limited.id)).deliveryStatus).toBe('sent'));
      expect(meta.requests.filter((request) => request.status === 400 && request.errorCode !== 190).length - refusedBefore).toBe(1);
      expect(sentTo(kind, customer).map((send) => send.text)).toEqual(['Un momento']);
      expect((await statusOf(conversation.id, limited.id)).deliveryError).toBeNull();
      await meta.pushReceipts(fakeAccounts[kind].accountId, [{ messageId: sentTo(kind, customer)[0]!.messageId!, status: 'read' }]);
      await eventually(async () => expect((await statusOf(conversation.id, limited.id)).deliveryStatus).toBe('read'));

      meta.failNext(1, 'invalid-token');
      const refused = await agentSends(a, agentToken(), conversation.id, 'Esto no llegará');
      const failed = await eventually(async () => {
        const view = await statusOf(conversation.id, refused.id);
        expect(view.deliveryStatus).toBe('failed');
        return view;
      });
      expect(failed.deliveryError).toMatch(/Error validating access token: Session has expired/);
      expect(sentTo(kind, customer)).toHaveLength(1);
      await agentCloses(a, agentToken(), conversation.id);
    });
  });
});
