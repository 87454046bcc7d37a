import { randomUUID } from 'node:crypto';
import { QUEUES, outboxJob, roomName, type AttachmentKind, type ChannelKind, type MessageView, type NoteView } from '@centralita/contracts';
import { isOpenConversationStatus, type Actor } from '@centralita/domain';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { jobEffect } from '@centralita/contracts/server';
import { AppException } from '../../common/app.exception';
import { NaturalBatcher } from '../../common/natural-batcher';
import { isUniqueViolation } from '../admin/rule-check';
import { isIllegalTransition, MachineHostService } from '../machine-host/machine-host.service';
import { writeOutbox, type OutboxEffect, type SocketEmit } from '../machine-host/outbox';
import { RealtimeService } from '../realtime/realtime.service';
import { hasVisitor } from './visitor';
import { sentimentRequest } from '../dashboards/sentiment-request';
import { emitEphemeral } from '../machine-host/ephemeral';
import type { CompanionInsert } from '../machine-host/versioned-write';
import { MESSAGE_ATTACHMENTS_SQL, messageView, noteView, type ConversationRow, type MessageRow } from '../machine-host/views';

export interface NewMessage {
  conversationId: string;
  tenantId: string;
  sender: Actor & { kind: MessageView['senderKind'] };
  text: string;
  clientMessageId?: string;
  /** The provider's id for the message (channels entering through the intake): a second delivery is stored once. */
  external?: ExternalMessageId;
  /** When the customer sent it, as the channel reports it; never later than now (default now). */
  at?: Date;
  /**
   * Files already in the file store (AttachmentsService), recorded with the message in its
   * transaction. With attachments the text may be empty (a photo without caption): B1's
   * media-only inbound messages call `send({ ..., text: '', attachments: [...] })`.
   */
  attachments?: NewAttachment[];
  /** A template message (outside a reply window): what the worker sends instead of the text, which is its rendered body. */
  template?: StoredTemplate;
  /** Reply buttons the worker sends with the text where the channel has them (the bot's menu, issue 23): messages.buttons. */
  buttons?: { payload: string; title: string }[];
  /**
   * Checks run under the conversation's row lock, after `guard`, before anything is stored (an
   * agent's message to a messaging channel: opt-out and reply window). Throwing stores nothing.
   * They are about sending through a channel: a web chat conversation has none to run, and its
   * message may be stored without the lock (sendAlone).
   */
  beforeStore?: (manager: EntityManager, conversation: ConversationRow) => Promise<void>;
}

/** A complete file of the file store, to record as one attachment of the message. */
export interface NewAttachment {
  fileId: string;
  kind: AttachmentKind;
  fileName: string;
  mimeType: string;
  size: number;
}

/** messages.template: the approved template and its parameters, as OutboundMessage.template takes them. */
export interface StoredTemplate {
  name: string;
  language: string;
  bodyParameters: string[];
  /** The text header's parameters, when the template's header has placeholders. */
  headerParameters?: string[];
  /** A NAMED template's parameter names, in the order of the values (sent as `parameter_name`). */
  parameterNames?: { header?: string[]; body?: string[] };
  /**
   * A media header: a public https link, or `attachment` when the agent uploaded the file (it is the
   * message's attachment in the file store; the worker uploads it to the provider at send time).
   */
  headerMedia?: { kind: 'image' | 'video' | 'document'; link?: string; attachment?: true; fileName?: string };
}

/** A provider's message id, unique per tenant, channel and channel account (uq_messages_external_id). */
/** A stored message and its conversation's version once it was stored (or, for one stored before, when it was found). */
export interface SentMessage {
  message: MessageView;
  conversationVersion: number;
}

export interface ExternalMessageId {
  channel: ChannelKind;
  channelAccountId: string;
  externalId: string;
}

/** How often a message on the unlocked path is read and written again when the conversation moved meanwhile. */
const MESSAGE_ATTEMPTS = 6;
/** Conversations whose last written row this process keeps for the next customer message (~3 KB each). */
const CONVERSATIONS_KEPT = 10_000;

/** A conversation as a customer's message needs it: the row, its last message number, a message already stored under the client id. */
interface KeptConversation {
  row: ConversationRow;
  lastSequence: number;
  storedMessageId: string | null;
}

interface ReadForMessage {
  conversationId: string;
  clientMessageId: string | null;
  external: ExternalMessageId | null;
}

/** A repeated message: a resend under the same client id, or a provider's retried delivery. */
const isRepeatedMessage = (error: unknown) =>
  isUniqueViolation(error, 'uq_messages_client_id') || isUniqueViolation(error, 'uq_messages_external_id');

/**
 * Messages are stored once (a repeated client message id, or provider id, returns the stored one), numbered per
 * conversation (unique (conversation, sequence)), and pushed through the outbox of the statement
 * or transaction that stores them. A customer's message is also `conversation.messageReceived`
 * for the machine.
 */
@Injectable()
export class MessagesService {
  /**
   * The row each customer message written by this process left, by conversation, with the number
   * it took: the conversation's next customer message steps from it instead of reading (one round
   * trip instead of two). Only a guess: every change of a conversation moves its version, so the
   * write refuses a stale row, and a number taken meanwhile by an agent's message or a resend's
   * client id is refused by the unique keys; either way nothing is written and it reads again.
   */
  private readonly lastWritten = new Map<string, KeptConversation>();

  /**
   * The reads of customers' messages, batched: one goes at once while a slot is free; those that
   * come while both are busy (hundreds of chats at once) share the next query.
   */
  private readonly reads = new NaturalBatcher<ReadForMessage, KeptConversation | undefined>({
    maxInFlight: 2,
    maxBatch: 128,
    run: (asked) => this.readManyForMessages(asked),
  });

  constructor(
    private readonly dataSource: DataSource,
    private readonly host: MachineHostService,
    private readonly realtime: RealtimeService,
  ) {}

  async send(input: NewMessage, guard: (row: ConversationRow) => void): Promise<SentMessage> {
    const text = input.text.trim();
    if (!text && !input.attachments?.length) {
      throw new AppException('validation', { message: 'text must not be empty', data: { fields: { text: ['text must not be empty'] } } });
    }
    // A customer's message also asks the worker to score it, in the same outbox write (messageEffects).
    // Attachments are rows of their own: only the transaction of the locked path writes them with the message.
    // Checks before storing (beforeStore) send it there too, unless the conversation is web chat's (sendAlone).
    const alone = !input.attachments?.length && !input.buttons?.length && !input.template;
    return (alone ? await this.sendAlone(input, guard) : null) ?? (await this.sendLocked(input, guard));
  }

  /**
   * A message in one or two round trips, the hot path of every chat: the conversation as this
   * process last wrote it (see lastWritten), or else read (with its last sequence and any message
   * already stored under this client id); then one statement. A customer's message steps the
   * machine: the statement writes the conversation (version-checked), its log row, the message
   * and the pushes (MachineHostService.writeConversationAlone). An agent's (or the bot's) leaves
   * the conversation as it is: the message and its pushes are inserted only if the conversation
   * still has the version `guard` passed (MachineHostService.insertAtConversationVersion), so a
   * reply overtaken by a close or a transfer is read again and refused as before. No transaction,
   * no row lock: if the version moved, or the number or client id was taken (unique), nothing was
   * written and it is read and tried again. Answers null to leave it to the locked path (a step
   * with intents, checks to run under the lock, or attempts used up).
   */
  private async sendAlone(input: NewMessage, guard: (row: ConversationRow) => void): Promise<SentMessage | null> {
    const customer = input.sender.kind === 'customer';
    for (let attempt = 1; attempt <= MESSAGE_ATTEMPTS; attempt++) {
      const kept = attempt === 1 ? this.keptConversation(input.conversationId) : undefined;
      const current = kept ?? (await this.readForMessage(input));
      if (!current || current.row.tenant_id !== input.tenantId) throw AppException.notFound();
      if (current.storedMessageId) {
        return { message: await this.storedMessage(current.storedMessageId), conversationVersion: current.row.version };
      }
      const conversation = current.row;
      if (input.beforeStore && conversation.channel !== 'webchat') return null;
      try {
        guard(conversation);
      } catch (error) {
        if (!kept) throw error;
        // Refused on the kept row: it may be stale, so the answer comes from the table.
        this.lastWritten.delete(input.conversationId);
        continue;
      }
      const outbound = isOutbound(input, conversation);
      const message: MessageRow = {
        id: randomUUID(),
        conversation_id: conversation.id,
        sequence: current.lastSequence + 1,
        sender_kind: input.sender.kind,
        sender_id: input.sender.id ?? null,
        // Staff text is stored trimmed, as the locked path stores it.
        text: customer ? input.text : input.text.trim(),
        client_message_id: input.clientMessageId ?? null,
        created_at: sentAt(input.at),
        delivered_at: null,
        read_at: null,
        delivery_status: outbound ? 'pending' : null,
      };
      const view = messageView(message);
      const companion: CompanionInsert = {
        table: 'messages',
        values: {
          id: [message.id, 'uuid'],
          sequence: [message.sequence, 'int'],
          sender_kind: [message.sender_kind, 'text'],
          sender_id: [message.sender_id, 'text'],
          text: [message.text, 'text'],
          client_message_id: [message.client_message_id, 'text'],
          // Always the same columns, null for web chat: batched writes need one companion shape.
          channel: [input.external?.channel ?? (outbound ? conversation.channel : null), 'text'],
          channel_account_id: [input.external?.channelAccountId ?? (outbound ? conversation.channel_account_id : null), 'text'],
          external_id: [input.external?.externalId ?? null, 'text'],
          created_at: [message.created_at, 'timestamptz'],
          delivery_status: [message.delivery_status, 'text'],
          delivery_updated_at: [outbound ? message.created_at : null, 'timestamptz'],
        },
        fromRow: { conversation_id: 'id', tenant_id: 'tenant_id' },
      };
      const effects = this.messageEffects(conversation, view);
      if (outbound) effects.push(channelSendEffect(conversation.tenant_id, message.id));
      try {
        const written = customer
          ? await this.host.writeConversationAlone(conversation, { type: 'conversation.messageReceived' }, input.sender, {
              effects,
              companion,
            })
          : await this.host.insertAtConversationVersion(conversation, { effects, companion });
        if (written === 'needs-transaction') return null;
        if (written) {
          this.keepConversation(written.row, message.sequence);
          return { message: view, conversationVersion: written.row.version };
        }
      } catch (error) {
        // Another message took the number, or the same client or provider id was stored meanwhile (by
        // this write's batch or by another), or the machine refused the step on a kept (maybe stale) row: read again.
        const retry =
          isUniqueViolation(error, 'uq_messages_sequence') ||
          isRepeatedMessage(error) ||
          (kept !== undefined && isIllegalTransition(error));
        if (!retry) throw error;
      }
      this.lastWritten.delete(input.conversationId);
    }
    return null;
  }

  /** The conversation, its last message number and any message already stored under this client or provider id, in one read. */
  private readForMessage(input: NewMessage): Promise<KeptConversation | undefined> {
    return this.reads.submit({
      conversationId: input.conversationId,
      clientMessageId: input.clientMessageId ?? null,
      external: input.external ?? null,
    });
  }

  /** readForMessage for many messages (of any conversations) in one query, each answer in the order asked. */
  private async readManyForMessages(asked: ReadForMessage[]): Promise<(KeptConversation | undefined)[]> {
    const found = (await this.dataSource.query(
      `SELECT q.n AS asked, c.*, (SELECT max(m.sequence) FROM messages m WHERE m.conversation_id = c.id) AS last_sequence,
              COALESCE(
                (SELECT m.id FROM messages m WHERE m.conversation_id = c.id AND m.client_message_id = q.client_message_id),
                (SELECT m.id FROM messages m WHERE m.tenant_id = c.tenant_id AND m.channel = q.channel
                   AND m.channel_account_id = q.channel_account_id AND m.external_id = q.external_id)
              ) AS stored_message_id
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[])
         WITH ORDINALITY AS q(conversation_id, client_message_id, channel, channel_account_id, external_id, n)
       JOIN conversations c ON c.id = q.conversation_id`,
      [
        asked.map((one) => one.conversationId),
        asked.map((one) => one.clientMessageId),
        asked.map((one) => one.external?.channel ?? null),
        asked.map((one) => one.external?.channelAccountId ?? null),
        asked.map((one) => one.external?.externalId ?? null),
      ],
    )) as (ConversationRow & { asked: string; last_sequence: number | null; stored_message_id: string | null })[];
    const answers: (KeptConversation | undefined)[] = asked.map(() => undefined);
    for (const { asked: n, last_sequence: lastSequence, stored_message_id: storedMessageId, ...row } of found) {
      answers[Number(n) - 1] = { row, lastSequence: lastSequence ?? 0, storedMessageId };
    }
    return answers;
  }

  private keptConversation(id: string): KeptConversation | undefined {
    return this.lastWritten.get(id);
  }

  private keepConversation(row: ConversationRow, lastSequence: number): void {
    // Re-inserted so the Map's order is least recently written first: the oldest goes when full.
    this.lastWritten.delete(row.id);
    this.lastWritten.set(row.id, { row, lastSequence, storedMessageId: null });
    if (this.lastWritten.size > CONVERSATIONS_KEPT) this.lastWritten.delete(this.lastWritten.keys().next().value!);
  }

  /** The general path: under the conversation's row lock, in one transaction. */
  private async sendLocked(input: NewMessage, guard: (row: ConversationRow) => void): Promise<SentMessage> {
    const stored = await this.host.transaction(async (manager, outbox) => {
      const conversation = await this.host.lockConversation(manager, input.conversationId, input.tenantId);
      if (input.clientMessageId) {
        const [existing] = (await manager.query(
          `SELECT m.*, ${MESSAGE_ATTACHMENTS_SQL} FROM messages m WHERE m.conversation_id = $1 AND m.client_message_id = $2`,
          [input.conversationId, input.clientMessageId],
        )) as MessageRow[];
        if (existing) return { message: messageView(existing), conversationVersion: conversation.version };
      }
      if (input.external) {
        const existing = await this.storedExternal(input.tenantId, input.external, manager);
        if (existing) return { message: existing, conversationVersion: conversation.version };
      }
      guard(conversation);
      await input.beforeStore?.(manager, conversation);
      // An agent's message leaves the version alone; a customer's steps the machine to a new one.
      let conversationVersion = conversation.version;
      if (input.sender.kind === 'customer') {
        const stepped = await this.host.dispatchConversation(
          manager,
          input.conversationId,
          { type: 'conversation.messageReceived' },
          input.sender,
          input.tenantId,
          conversation,
        );
        outbox.push(...stepped.outboxIds);
        conversationVersion = stepped.row.version;
      }
      const outbound = isOutbound(input, conversation);
      const [row] = (await manager.query(
        `INSERT INTO messages (conversation_id, tenant_id, sequence, sender_kind, sender_id, text, client_message_id,
           channel, channel_account_id, external_id, created_at, delivery_status, delivery_updated_at, template, buttons)
         VALUES ($1, $2, (SELECT COALESCE(max(sequence), 0) + 1 FROM messages WHERE conversation_id = $1), $3, $4, $5, $6, $7, $8, $9, $10,
           $11::text, CASE WHEN $11::text IS NULL THEN NULL ELSE now() END, $12::jsonb, $13::jsonb)
         RETURNING *`,
        [
          input.conversationId,
          input.tenantId,
          input.sender.kind,
          input.sender.id ?? null,
          input.text.trim(),
          input.clientMessageId ?? null,
          input.external?.channel ?? (outbound ? conversation.channel : null),
          input.external?.channelAccountId ?? (outbound ? conversation.channel_account_id : null),
          input.external?.externalId ?? null,
          sentAt(input.at),
          outbound ? 'pending' : null,
          input.template ? JSON.stringify(input.template) : null,
          input.buttons?.length ? JSON.stringify(input.buttons) : null,
        ],
      )) as MessageRow[];
      row.attachments = input.attachments?.length
        ? ((await manager.query(
            `INSERT INTO message_attachments (tenant_id, message_id, file_id, kind, file_name, mime_type, size)
             SELECT $1, $2, a.file_id, a.kind, a.file_name, a.mime_type, a.size
             FROM unnest($3::uuid[], $4::text[], $5::text[], $6::text[], $7::int[]) WITH ORDINALITY AS a(file_id, kind, file_name, mime_type, size, n)
             ORDER BY a.n
             RETURNING id, kind, file_name, mime_type, size`,
            [
              input.tenantId,
              row.id,
              input.attachments.map((one) => one.fileId),
              input.attachments.map((one) => one.kind),
              input.attachments.map((one) => one.fileName),
              input.attachments.map((one) => one.mimeType),
              input.attachments.map((one) => one.size),
            ],
          )) as MessageRow['attachments'])
        : [];
      const view = messageView(row);
      const effects = this.messageEffects(conversation, view);
      // In the same transaction: committed, the message reaches the worker even if this process dies now.
      if (outbound) effects.push(channelSendEffect(input.tenantId, row.id));
      outbox.push(...(await writeOutbox(manager, effects)));
      return { message: view, conversationVersion };
    });
    // Committed. An agent's message leaves the version alone: a kept row only needs the new number.
    // A customer's moved the version, so the kept row would only cost a refused write.
    const kept = this.lastWritten.get(input.conversationId);
    if (kept && input.sender.kind !== 'customer') kept.lastSequence = Math.max(kept.lastSequence, stored.message.sequence);
    else this.lastWritten.delete(input.conversationId);
    return stored;
  }

  /** The message already stored under a provider's id, in whichever of the contact's conversations took it. */
  async storedExternal(tenantId: string, external: ExternalMessageId, manager = this.dataSource.manager): Promise<MessageView | null> {
    const [row] = (await manager.query(
      `SELECT m.*, ${MESSAGE_ATTACHMENTS_SQL} FROM messages m
       WHERE m.tenant_id = $1 AND m.channel = $2 AND m.channel_account_id = $3 AND m.external_id = $4`,
      [tenantId, external.channel, external.channelAccountId, external.externalId],
    )) as MessageRow[];
    return row ? messageView(row) : null;
  }

  private async storedMessage(id: string): Promise<MessageView> {
    const [row] = (await this.dataSource.query(`SELECT m.*, ${MESSAGE_ATTACHMENTS_SQL} FROM messages m WHERE m.id = $1`, [
      id,
    ])) as MessageRow[];
    return messageView(row);
  }

  /** What storing a message sends out: its push, and for a customer's message the worker's sentiment request. */
  private messageEffects(conversation: ConversationRow, view: MessageView): OutboxEffect[] {
    const push = this.messagePush(conversation, view);
    if (view.senderKind !== 'customer') return [push];
    return [push, sentimentRequest({ messageId: view.id, tenantId: conversation.tenant_id, conversationId: conversation.id })];
  }

  private messagePush(conversation: ConversationRow, view: MessageView): OutboxEffect {
    const rooms = [roomName({ kind: 'conversation', id: conversation.id })];
    if (conversation.agent_id) rooms.push(roomName({ kind: 'agent', id: conversation.agent_id }));
    const emits: SocketEmit[] = [{ namespace: 'staff', rooms, event: 'message.created', data: view }];
    if (hasVisitor(conversation.channel)) emits.push({ namespace: 'visitor', rooms: [rooms[0]!], event: 'message.created', data: view });
    return { topic: 'socket', payload: { emits } };
  }

  /** Messages in order; the reader's fetch marks the other side's messages delivered. */
  async list(conversationId: string, after = 0, readerKind: 'customer' | 'staff'): Promise<MessageView[]> {
    const otherSide = readerKind === 'customer' ? `sender_kind <> 'customer'` : `sender_kind = 'customer'`;
    await this.dataSource.query(
      `UPDATE messages SET delivered_at = now() WHERE conversation_id = $1 AND sequence > $2 AND delivered_at IS NULL AND ${otherSide}`,
      [conversationId, after],
    );
    const rows: MessageRow[] = await this.dataSource.query(
      `SELECT m.*, ${MESSAGE_ATTACHMENTS_SQL} FROM messages m WHERE m.conversation_id = $1 AND m.sequence > $2 ORDER BY m.sequence`,
      [conversationId, after],
    );
    return rows.map(messageView);
  }

  async markRead(conversationId: string, readerKind: 'customer' | 'agent', upToSequence: number): Promise<{ read: number }> {
    const otherSide = readerKind === 'customer' ? `sender_kind <> 'customer'` : `sender_kind = 'customer'`;
    // The conversation's channel comes with the same statement: it says whether a visitor can be listening.
    const [{ read, channel }] = (await this.dataSource.query(
      `WITH marked AS (
         UPDATE messages SET read_at = now(), delivered_at = COALESCE(delivered_at, now())
         WHERE conversation_id = $1 AND sequence <= $2 AND read_at IS NULL AND ${otherSide} RETURNING 1)
       SELECT (SELECT count(*)::int FROM marked) AS read, (SELECT channel FROM conversations WHERE id = $1) AS channel`,
      [conversationId, upToSequence],
    )) as { read: number; channel: string | null }[];
    const view = { conversationId, readerKind, upToSequence };
    return this.host.transaction(async (manager, outbox) => {
      const room = roomName({ kind: 'conversation', id: conversationId });
      const emits: SocketEmit[] = [{ namespace: 'staff', rooms: [room], event: 'message.read', data: view }];
      if (hasVisitor(channel)) emits.push({ namespace: 'visitor', rooms: [room], event: 'message.read', data: view });
      outbox.push(...(await writeOutbox(manager, [{ topic: 'socket', payload: { emits } }])));
      return { read };
    });
  }

  /** Typing marks are ephemeral: pushed straight to the other side, never stored. */
  pushTyping(conversationId: string, senderKind: 'customer' | 'agent', typing: boolean): void {
    const room = roomName({ kind: 'conversation', id: conversationId });
    const view = { conversationId, senderKind, typing };
    if (senderKind === 'customer') emitEphemeral(this.realtime, { namespace: 'staff', rooms: [room], event: 'typing', data: view });
    else emitEphemeral(this.realtime, { namespace: 'visitor', rooms: [room], event: 'typing', data: view });
  }

  async addNote(conversation: ConversationRow, authorId: string, text: string): Promise<NoteView> {
    return this.host.transaction(async (manager, outbox) => {
      const [row] = await manager.query(
        `INSERT INTO conversation_notes (conversation_id, tenant_id, author_id, text) VALUES ($1, $2, $3, $4) RETURNING *`,
        [conversation.id, conversation.tenant_id, authorId, text],
      );
      const view = noteView(row);
      // Staff namespace only: visitors never receive notes.
      const rooms = [roomName({ kind: 'conversation', id: conversation.id }), roomName({ kind: 'tenant', id: conversation.tenant_id })];
      if (conversation.agent_id) rooms.push(roomName({ kind: 'agent', id: conversation.agent_id }));
      outbox.push(
        ...(await writeOutbox(manager, [
          { topic: 'socket', payload: { emits: [{ namespace: 'staff', rooms, event: 'note.created', data: view }] } },
        ])),
      );
      return view;
    });
  }

  async notes(conversationId: string): Promise<NoteView[]> {
    const rows = await this.dataSource.query(`SELECT * FROM conversation_notes WHERE conversation_id = $1 ORDER BY created_at, id`, [
      conversationId,
    ]);
    return rows.map(noteView);
  }

  static requireOpen(row: ConversationRow): void {
    if (!isOpenConversationStatus(row.status)) {
      throw new AppException('illegal_transition', {
        message: `Messages are not accepted while the conversation is ${row.status}`,
        data: { event: 'message.send', state: row.status },
      });
    }
  }
}

/**
 * Staff writing to a messaging channel: the worker sends it through the channel's adapter. It is
 * stored under the conversation's account (receipts find it by the provider's id per account) and
 * `pending` until the worker's answer; web chat's own messages need no delivery.
 */
function isOutbound(input: NewMessage, conversation: ConversationRow): boolean {
  return input.sender.kind !== 'customer' && conversation.channel !== 'webchat' && Boolean(conversation.channel_account_id);
}

/** The worker's job that sends a stored outbound message, written with it (committed, it is sent even if this process dies). */
function channelSendEffect(tenantId: string, messageId: string): OutboxEffect {
  return jobEffect(outboxJob(QUEUES.channelSend, { name: 'send', data: { tenantId, messageId } }, { jobId: `channel-send.${messageId}` }));
}

/** A message's time: the channel's, but never in the future (a provider's clock may run ahead). */
function sentAt(at: Date | undefined): Date {
  const now = new Date();
  return at && at.getTime() < now.getTime() ? at : now;
}
