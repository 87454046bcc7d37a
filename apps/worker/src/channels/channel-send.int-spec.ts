import { randomUUID } from 'node:crypto';
import {
  ChannelError,
  type ChannelAdapter,
  type ChannelCapabilities,
  type ChannelRegistry,
  type OutboundMessage,
  type SendContext,
} from '@centralita/channels';
import { ConfigCrypto, PostgresFileStore } from '@centralita/contracts/server';
import { Queue, Worker } from 'bullmq';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../../api/src/database/data-source';
import { createTenant } from '../../../api/test/support/factories';
import { createLine } from '../../../api/test/support/realtime';
import { eventually } from '../../../../test/support/eventually';
import {
  CHANNEL_SEND_ORDER_HOLD_MAX_MS,
  channelSendBackoff,
  sendChannelJob,
  sendChannelMessage,
  waitsForEarlierSend,
  type ChannelSendDeps,
} from './channel-send';

const CAPABILITIES: ChannelCapabilities = {
  textLimit: 4096,
  attachments: { image: { maxBytes: 5_000_000, mimeTypes: ['image/png'] } },
  receipts: { delivered: true, read: true },
  typing: false,
  markRead: true,
  replyWindowHours: 24,
  humanAgentTagHours: null,
  templates: true,
};

/** A provider that records what it was asked and answers what the test scripts (the first answers, then ids). */
class ScriptedAdapter implements Partial<ChannelAdapter> {
  readonly kind = 'whatsapp' as const;
  readonly capabilities = CAPABILITIES;
  readonly calls: { message: OutboundMessage; context: SendContext; at: number; token: string }[] = [];
  script: ((call: number) => Promise<void> | void)[] = [];

  readonly uploads: NonNullable<OutboundMessage['media']>[] = [];

  async uploadMedia(_account: unknown, media: NonNullable<OutboundMessage['media']>) {
    this.uploads.push(media);
    return `77${this.uploads.length}`;
  }

  async send(account: { secrets: Record<string, string> }, message: OutboundMessage, context: SendContext) {
    this.calls.push({ message, context, at: Date.now(), token: account.secrets.accessToken! });
    await this.script[this.calls.length - 1]?.(this.calls.length);
    return { providerMessageId: `wamid.${context.idempotencyKey}` };
  }
}

describe('channel-send processor', () => {
  let db: DataSource;
  let adapter: ScriptedAdapter;
  let deps: ChannelSendDeps;
  const crypto = new ConfigCrypto({ CONFIG_ENCRYPTION_KEY: 'ab'.repeat(32), NODE_ENV: 'test' });
  let tenantId: string;
  let lineId: string;
  let accountId: string;

  beforeAll(async () => {
    db = createDataSource(process.env.DATABASE_URL!);
    await db.initialize();
    const tenant = await createTenant(db);
    tenantId = tenant.client.id;
    lineId = await createLine(db, tenant, `Send ${randomUUID().slice(0, 8)}`);
    const [account] = (await db.query(
      `INSERT INTO channel_accounts (tenant_id, kind, name, external_account_id, attention_line_id, settings, secrets, verify_token)
       VALUES ($1, 'whatsapp', 'WA', $2, $3, '{}', $4, 'verify') RETURNING id`,
      [tenantId, `pn-${randomUUID()}`, lineId, { accessToken: crypto.encrypt('token-123') }],
    )) as { id: string }[];
    accountId = account!.id;
  });
  afterAll(() => db.destroy());

  beforeEach(() => {
    adapter = new ScriptedAdapter();
    const registry = new Map([['whatsapp', adapter as unknown as ChannelAdapter]]) as ChannelRegistry;
    deps = { db, registry, crypto, files: new PostgresFileStore((text, values) => db.query(text, values)) };
  });

  /** A WhatsApp conversation whose customer wrote `customerWroteMinutesAgo`, and one pending agent message in it. */
  async function pendingMessage(customerWroteMinutesAgo = 5, text = 'Hola, ¿en qué puedo ayudarle?') {
    const [contact] = (await db.query(
      `INSERT INTO contacts (tenant_id, channel, channel_account_id, external_id, name) VALUES ($1, 'whatsapp', $2, $3, 'Ana') RETURNING id`,
      [tenantId, accountId, `346${Math.floor(Math.random() * 1e8)}`],
    )) as { id: string }[];
    const conversationId = randomUUID();
    await db.query(
      `INSERT INTO conversations (id, tenant_id, channel, entry_line_id, status, customer_name, snapshot, version, last_event, contact_id, channel_account_id)
       VALUES ($1, $2, 'whatsapp', $3, 'Active', 'Ana', '{"value": "Active", "context": {}, "status": "active"}', 1, 'test', $4, $5)`,
      [conversationId, tenantId, lineId, contact!.id, accountId],
    );
    await db.query(
      `INSERT INTO messages (conversation_id, tenant_id, sequence, sender_kind, text, created_at) VALUES ($1, $2, 1, 'customer', 'hola', now() - make_interval(mins => $3))`,
      [conversationId, tenantId, customerWroteMinutesAgo],
    );
    const [message] = (await db.query(
      `INSERT INTO messages (conversation_id, tenant_id, sequence, sender_kind, text, channel, channel_account_id, delivery_status)
       VALUES ($1, $2, 2, 'agent', $3, 'whatsapp', $4, 'pending') RETURNING id`,
      [conversationId, tenantId, text, accountId],
    )) as { id: string }[];
    return { messageId: message!.id, contactId: contact!.id, conversationId };
  }

  const stored = async (messageId: string) =>
    (
      (await db.query(`SELECT delivery_status, provider_message_id, delivery_error FROM messages WHERE id = $1`, [messageId])) as {
        delivery_status: string;
        provider_message_id: string | null;
        delivery_error: string | null;
      }[]
    )[0]!;

  const pushes = async (messageId: string) =>
    (await db.query(`SELECT payload FROM outbox WHERE payload::text LIKE $1 AND topic = 'socket'`, [
      `%"message.updated"%${messageId}%`,
    ])) as {
      payload: { emits: { event: string; data: { id: string; deliveryStatus: string } }[] };
    }[];

  it('sends once with the message id as idempotency key, stores the provider id, and pushes the update to the desk', async () => {
    const { messageId } = await pendingMessage();
    const first = await sendChannelMessage(deps, { tenantId, messageId }, false);
    // The same job delivered again (a second outbox delivery, a retry after a lost answer): nothing is sent.
    const second = await sendChannelMessage(deps, { tenantId, messageId }, false);

    expect(first).toEqual({ outcome: 'sent', providerMessageId: `wamid.${messageId}` });
    expect(second).toEqual({ outcome: 'skipped' });
    expect(adapter.calls).toHaveLength(1);
    expect(adapter.calls[0]).toMatchObject({
      context: { idempotencyKey: messageId },
      message: { text: 'Hola, ¿en qué puedo ayudarle?' },
      token: 'token-123',
    });
    expect(adapter.calls[0]!.message.to).toMatch(/^346/);
    expect(await stored(messageId)).toEqual({ delivery_status: 'sent', provider_message_id: `wamid.${messageId}`, delivery_error: null });
    const [push] = await pushes(messageId);
    expect(push!.payload.emits.map((emit) => [emit.event, emit.data.deliveryStatus])).toEqual([
      ['message.updated', 'sent'],
      ['message.updated', 'sent'],
    ]);
  });

  it('never moves a status back: a read receipt that arrived during the send stays read', async () => {
    const { messageId } = await pendingMessage();
    adapter.script = [
      async () => {
        await db.query(`UPDATE messages SET delivery_status = 'read' WHERE id = $1`, [messageId]);
      },
    ];
    await sendChannelMessage(deps, { tenantId, messageId }, false);
    expect(await stored(messageId)).toMatchObject({ delivery_status: 'read', provider_message_id: `wamid.${messageId}` });
  });

  it('fails a permanent provider error at once with the provider’s reason for the agent', async () => {
    const { messageId } = await pendingMessage();
    adapter.script = [
      () => {
        throw new ChannelError('(#131026) Message undeliverable: the number is not on WhatsApp', {
          code: '131026',
          retryable: false,
          status: 400,
        });
      },
    ];
    expect(await sendChannelMessage(deps, { tenantId, messageId }, false)).toMatchObject({ outcome: 'failed' });
    expect(await stored(messageId)).toEqual({
      delivery_status: 'failed',
      provider_message_id: null,
      delivery_error: '(#131026) Message undeliverable: the number is not on WhatsApp',
    });
    expect(adapter.calls).toHaveLength(1);
    expect((await pushes(messageId))[0]!.payload.emits[0]!.data.deliveryStatus).toBe('failed');
  });

  it('throws a retryable error back for BullMQ, and fails it on the last attempt', async () => {
    const { messageId } = await pendingMessage();
    const busy = () => {
      throw new ChannelError('Service temporarily unavailable', { code: 'http_503', retryable: true, status: 503 });
    };
    adapter.script = [busy, busy];
    await expect(sendChannelMessage(deps, { tenantId, messageId }, false)).rejects.toBeInstanceOf(ChannelError);
    expect((await stored(messageId)).delivery_status).toBe('pending');
    await sendChannelMessage(deps, { tenantId, messageId }, true);
    expect(await stored(messageId)).toMatchObject({ delivery_status: 'failed', delivery_error: 'Service temporarily unavailable' });
  });

  it('records a customer who blocked the bot as opted out', async () => {
    const { messageId, contactId } = await pendingMessage();
    adapter.script = [
      () => {
        throw new ChannelError('Forbidden: bot was blocked by the user', { code: 'blocked', retryable: false, status: 403 });
      },
    ];
    await sendChannelMessage(deps, { tenantId, messageId }, false);
    const [contact] = (await db.query(`SELECT opted_out_at, opt_out_reason FROM contacts WHERE id = $1`, [contactId])) as {
      opted_out_at: Date | null;
      opt_out_reason: string | null;
    }[];
    expect(contact).toMatchObject({ opt_out_reason: 'blocked' });
    expect(contact!.opted_out_at).toBeInstanceOf(Date);
  });

  it("sends a NAMED template with its parameter names, and an uploaded header file by the provider's media id", async () => {
    const { messageId } = await pendingMessage(60 * 25, 'Hola Ana, su pedido B-42 está listo.');
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const upload = await deps.files.create(tenantId, 'attachment');
    upload.stream.end(png);
    await new Promise((resolve) => upload.stream.once('finish', resolve));
    await db.query(
      `INSERT INTO message_attachments (tenant_id, message_id, file_id, kind, file_name, mime_type, size) VALUES ($1, $2, $3, 'image', 'pedido.png', 'image/png', $4)`,
      [tenantId, messageId, upload.id, png.length],
    );
    const template = {
      name: 'order_ready_photo',
      language: 'es',
      bodyParameters: ['Ana', 'B-42'],
      parameterNames: { header: [], body: ['first_name', 'order_id'] },
      headerMedia: { kind: 'image', attachment: true, fileName: 'pedido.png' },
    };
    await db.query(`UPDATE messages SET template = $2 WHERE id = $1`, [messageId, JSON.stringify(template)]);

    expect(await sendChannelMessage(deps, { tenantId, messageId }, false)).toEqual({
      outcome: 'sent',
      providerMessageId: `wamid.${messageId}`,
    });
    expect(adapter.uploads).toHaveLength(1);
    expect(adapter.uploads[0]).toMatchObject({ kind: 'image', mimeType: 'image/png', fileName: 'pedido.png' });
    expect(adapter.uploads[0]!.bytes.equals(png)).toBe(true);
    // One provider message: the template (its file went up as the header's medium, not as a second message).
    expect(adapter.calls.map((call) => call.message)).toEqual([
      {
        to: expect.stringMatching(/^346/),
        template: {
          name: 'order_ready_photo',
          language: 'es',
          bodyParameters: ['Ana', 'B-42'],
          parameterNames: { header: [], body: ['first_name', 'order_id'] },
          headerMedia: { kind: 'image', id: '771' },
        },
      },
    ]);
  });

  it('sends a media header given by link as it is', async () => {
    const { messageId } = await pendingMessage(60 * 25, 'Su contrato');
    const link = 'https://cdn.example.com/contrato.pdf';
    const template = {
      name: 'contract',
      language: 'es',
      bodyParameters: [],
      headerMedia: { kind: 'document', link, fileName: 'contrato.pdf' },
    };
    await db.query(`UPDATE messages SET template = $2 WHERE id = $1`, [messageId, JSON.stringify(template)]);
    expect((await sendChannelMessage(deps, { tenantId, messageId }, false)).outcome).toBe('sent');
    expect(adapter.uploads).toHaveLength(0);
    expect(adapter.calls[0]!.message.template).toEqual({
      name: 'contract',
      language: 'es',
      bodyParameters: [],
      headerMedia: { kind: 'document', link, fileName: 'contrato.pdf' },
    });
  });

  it('fails free text whose reply window closed while it waited, without calling the provider', async () => {
    const { messageId } = await pendingMessage(25 * 60);
    expect(await sendChannelMessage(deps, { tenantId, messageId }, false)).toMatchObject({ outcome: 'failed' });
    expect(adapter.calls).toHaveLength(0);
    expect((await stored(messageId)).delivery_error).toMatch(/reply window/);
  });

  it('retries a 429 through BullMQ no sooner than the provider’s retry-after', async () => {
    const { messageId } = await pendingMessage();
    adapter.script = [
      () => {
        throw new ChannelError('(#130429) Rate limit hit', { code: '130429', retryable: true, retryAfterMs: 1500, status: 429 });
      },
    ];
    const name = `channel-send-test-${randomUUID()}`;
    const connection = { url: process.env.REDIS_URL! };
    const queue = new Queue(name, { connection, prefix: process.env.QUEUE_PREFIX });
    const worker = new Worker(
      name,
      (job) =>
        sendChannelMessage(deps, job.data as { tenantId: string; messageId: string }, job.attemptsMade + 1 >= (job.opts.attempts ?? 1)),
      { connection, prefix: process.env.QUEUE_PREFIX, settings: { backoffStrategy: channelSendBackoff } },
    );
    try {
      await queue.add(
        'send',
        { tenantId, messageId },
        { jobId: `channel-send.${messageId}`, attempts: 4, backoff: { type: 'custom', delay: 100 } },
      );
      await eventually(async () => expect((await stored(messageId)).delivery_status).toBe('sent'), { timeoutMs: 15_000, intervalMs: 100 });
    } finally {
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
    expect(adapter.calls).toHaveLength(2);
    expect(adapter.calls[1]!.at - adapter.calls[0]!.at).toBeGreaterThanOrEqual(1500);
    expect(adapter.calls.map((call) => call.context.idempotencyKey)).toEqual([messageId, messageId]);
  });

  describe('in the order of the conversation', () => {
    /** A later pending agent message in the conversation of `pendingMessage`. */
    async function laterMessage(conversationId: string, sequence: number, text: string, createdAgoMs = 0) {
      const [message] = (await db.query(
        `INSERT INTO messages (conversation_id, tenant_id, sequence, sender_kind, text, channel, channel_account_id, delivery_status, created_at)
         VALUES ($1, $2, $3, 'bot', $4, 'whatsapp', $5, 'pending', now() - make_interval(secs => $6::float8 / 1000)) RETURNING id`,
        [conversationId, tenantId, sequence, text, accountId, createdAgoMs],
      )) as { id: string }[];
      return message!.id;
    }

    it('holds a message behind an earlier one of its conversation still pending, and only while it is recent', async () => {
      const { messageId: first, conversationId } = await pendingMessage();
      const second = await laterMessage(conversationId, 3, 'second');
      expect(await waitsForEarlierSend(deps, { tenantId, messageId: first })).toBe(false);
      expect(await waitsForEarlierSend(deps, { tenantId, messageId: second })).toBe(true);
      await sendChannelMessage(deps, { tenantId, messageId: first }, false);
      expect(await waitsForEarlierSend(deps, { tenantId, messageId: second })).toBe(false);

      // An earlier message pending for longer than the hold (its job lost): later ones go on.
      const { conversationId: stale } = await pendingMessage();
      await db.query(`UPDATE messages SET created_at = now() - make_interval(secs => $2::float8 / 1000) WHERE conversation_id = $1`, [
        stale,
        CHANNEL_SEND_ORDER_HOLD_MAX_MS + 60_000,
      ]);
      expect(await waitsForEarlierSend(deps, { tenantId, messageId: await laterMessage(stale, 3, 'after a lost one') })).toBe(false);
      // Another tenant's message id answers nothing.
      expect(await waitsForEarlierSend(deps, { tenantId: randomUUID(), messageId: second })).toBe(false);
    });

    it("sends a bot's greeting and its answer in that order though their jobs run at once and the answer's starts first", async () => {
      const { messageId: greeting, conversationId } = await pendingMessage(5, 'greeting');
      const answer = await laterMessage(conversationId, 3, 'answer');
      const name = `channel-send-order-${randomUUID()}`;
      const connection = { url: process.env.REDIS_URL! };
      const queue = new Queue(name, { connection, prefix: process.env.QUEUE_PREFIX });
      // The greeting's send is held at the provider until the answer's job has been seen waiting.
      let releaseGreeting!: () => void;
      const greetingHeld = new Promise<void>((resolve) => (releaseGreeting = resolve));
      adapter.script = [() => greetingHeld];
      const worker = new Worker(
        name,
        (job, token) => sendChannelJob(deps, job, job.data as { tenantId: string; messageId: string }, token),
        { connection, prefix: process.env.QUEUE_PREFIX, concurrency: 8, autorun: false },
      );
      try {
        const options = { attempts: 4, backoff: { type: 'fixed', delay: 100 } };
        await queue.add('send', { tenantId, messageId: answer }, { ...options, jobId: `channel-send.${answer}` });
        await queue.add('send', { tenantId, messageId: greeting }, { ...options, jobId: `channel-send.${greeting}` });
        void worker.run();
        await eventually(async () => expect(await (await queue.getJob(`channel-send.${answer}`))!.getState()).toBe('delayed'), {
          timeoutMs: 15_000,
          intervalMs: 20,
        });
        // The greeting's job may reach the provider after the answer's first wait: the answer never does before it.
        await eventually(() => expect(adapter.calls.map((call) => call.message.text)).toEqual(['greeting']), {
          timeoutMs: 15_000,
          intervalMs: 20,
        });
        releaseGreeting();
        await eventually(async () => expect((await stored(answer)).delivery_status).toBe('sent'), { timeoutMs: 15_000, intervalMs: 50 });
        // However often it waited, the answer used one attempt: the one that sent it.
        expect((await queue.getJob(`channel-send.${answer}`))!.attemptsMade).toBe(1);
      } finally {
        releaseGreeting();
        await worker.close();
        await queue.obliterate({ force: true });
        await queue.close();
      }
      expect(adapter.calls.map((call) => call.message.text)).toEqual(['greeting', 'answer']);
    });
  });
});

describe(channelSendBackoff.name, () => {
  it('waits what the provider asked, else doubles from a second', () => {
    const limited = new ChannelError('slow down', { code: '429', retryable: true, retryAfterMs: 30_000 });
    expect(channelSendBackoff(1, 'custom', limited)).toBe(30_000);
    expect(channelSendBackoff(1, 'custom', new Error('network'))).toBe(1000);
    expect(channelSendBackoff(3, 'custom', new Error('network'))).toBe(4000);
    expect(channelSendBackoff(30, 'custom')).toBe(600_000);
  });
});
