import { randomUUID } from 'node:crypto';
import { CHANNEL_KINDS, LIMITS, type ChannelKind, type MessageView } from '@centralita/contracts';
import { OPEN_CONVERSATION_STATUSES } from '@centralita/domain';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { NaturalBatcher } from '../../common/natural-batcher';
import { isUniqueViolation } from '../admin/rule-check';
import { MachineHostService } from '../machine-host/machine-host.service';
import type { ConversationRow } from '../machine-host/views';
import { MessagesService, type NewAttachment } from '../conversations/messages.service';

/** The states in which a contact's conversation takes their next message (uq_conversations_open_contact), as a query parameter. */
const OPEN_STATUSES = [...OPEN_CONVERSATION_STATUSES];
/** How often a message is tried: again when the conversation it was given to closed meanwhile, or its provider id was stored meanwhile. */
const APPEND_ATTEMPTS = 3;
const ID_LIMITS = { channelAccountId: 200, externalId: 512, name: 120, email: 254 } as const;
/** Contact lookups in flight at once; those that come meanwhile share the next statement (NaturalBatcher). */
const LOOKUPS_IN_FLIGHT = 2;
const LOOKUPS_PER_STATEMENT = 128;

/** Contacts whose open conversation this process remembers (a bound on memory, not a cache to tune). */
const OPEN_CONVERSATIONS_KEPT = 20_000;

/** What findOpen asks of the database for one message. */
interface ContactLookup {
  tenantId: string;
  channel: string;
  channelAccountId: string;
  contactExternalId: string;
  messageExternalId: string | null;
}

interface ContactFound {
  open: IntakeConversation | null;
  messageStored: boolean;
}

/** A customer as one channel account knows them: the provider's id for them and their profile. */
export interface IntakeContact {
  externalId: string;
  name: string;
  email?: string | null;
}

/** Where a customer writes from: a channel account of a tenant. */
export interface IntakeChannel {
  tenantId: string;
  channel: ChannelKind;
  /** The account on the channel (a WhatsApp number id, a bot, a page; web chat: the attention line). */
  channelAccountId: string;
}

/** Channels that open conversations without messages: the phone (issue 22: a caller is a contact on the phone channel). */
export const VOICE_INTAKE_CHANNELS = ['phone'] as const;

export interface OpenOrFindInput extends Omit<IntakeChannel, 'channel'> {
  channel: ChannelKind | (typeof VOICE_INTAKE_CHANNELS)[number];
  contact: IntakeContact;
  /** The attention line a new conversation enters by. */
  lineId: string;
  /** Web chat only: the visitor its token names. */
  visitorId?: string;
}

export interface IntakeConversation {
  conversation: ConversationRow;
  contactId: string;
  /** true when this call opened it. */
  opened: boolean;
}

/**
 * A customer's message. The conversation is the one `conversationId` names (a channel that holds it
 * itself: web chat's visitor token) or the contact's open one, opened when there is none.
 */
export type CustomerMessageInput = Omit<IntakeChannel, 'channelAccountId'> & {
  text: string;
  /** The provider's id for the message: a repeated delivery is stored once. */
  externalId?: string | null;
  /** A client-chosen id, unique in its conversation (web chat's composer). */
  clientMessageId?: string;
  /** When the customer sent it, as the channel reports it. */
  at?: Date;
  /** Files the customer sent, already in the file store: stored with the message, which may then have no text. */
  attachments?: NewAttachment[];
} & (
    | {
        conversationId: string;
        senderId: string;
        guard: (row: ConversationRow) => void;
        /** Needed only with an externalId (its key). */
        channelAccountId?: string;
      }
    | { conversationId?: undefined; channelAccountId: string; contact: IntakeContact; lineId: string }
  );

export interface IntakeMessage {
  conversationId: string;
  message: MessageView;
  /** The conversation's version once the message was stored (a retried one: when it was found); null when it is in another conversation. */
  conversationVersion: number | null;
}

/**
 * The one way customers' conversations and messages enter, whatever the channel: a contact keyed
 * by (tenant, channel, channel account, provider id) has at most one open conversation, found or
 * opened here, and each message is appended once. Concurrent first messages of a new contact open
 * one conversation: the opener holds the contact's row lock and the database refuses a second open
 * one (uq_conversations_open_contact). A provider's retried delivery (same external id) is stored
 * once (uq_messages_external_id), even after the conversation that took it has closed.
 */
@Injectable()
export class ConversationIntakeService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly host: MachineHostService,
    private readonly messages: MessagesService,
  ) {}

  /**
   * The open conversation each contact's last message went to in this process, by contact key: the
   * next message goes straight to it, with no lookup (C1: one statement per message less). Only a
   * guess: a conversation that closed meanwhile refuses the message, a repeated provider id is
   * refused by its unique key, and either way the message is tried again with the lookup.
   */
  private readonly openByContact = new Map<string, { conversationId: string; contactId: string }>();

  /** findOpen's read for many messages (of any contacts) in one statement: at C1's rates one per message was a round trip each. */
  private readonly lookups = new NaturalBatcher<ContactLookup, ContactFound>({
    maxInFlight: LOOKUPS_IN_FLIGHT,
    maxBatch: LOOKUPS_PER_STATEMENT,
    run: (asked) => this.lookUpMany(asked),
  });

  /** The contact's open conversation, or a new one (Transitory, on `lineId`) when they have none. */
  async openOrFind(input: OpenOrFindInput): Promise<IntakeConversation> {
    checkChannel(input, true);
    const contact = checkContact(input.contact);
    const { open } = await this.findOpen(input, contact, null);
    return open ?? this.open(input, contact);
  }

  /**
   * The hot path, one read: a known contact's open conversation, and with a provider's message id
   * whether that message is stored already (in any of the contact's conversations). A message of
   * a messaging channel paid two reads for these (C1).
   */
  private findOpen(input: OpenOrFindInput, contact: Required<IntakeContact>, messageExternalId: string | null): Promise<ContactFound> {
    return this.lookups.submit({
      tenantId: input.tenantId,
      channel: input.channel,
      channelAccountId: input.channelAccountId,
      contactExternalId: contact.externalId,
      messageExternalId,
    });
  }

  private async lookUpMany(asked: ContactLookup[]): Promise<ContactFound[]> {
    // One row per lookup, in the order asked: a contact has at most one open conversation (uq_conversations_open_contact).
    const rows = (await this.dataSource.query(
      `SELECT q.n AS intake_asked, c.*, k.id AS intake_contact_id,
         EXISTS (SELECT 1 FROM messages m
           WHERE m.tenant_id = q.tenant_id AND m.channel = q.channel AND m.channel_account_id = q.account_id
             AND m.external_id = q.message_external_id) AS intake_message_stored
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[])
         WITH ORDINALITY AS q(tenant_id, channel, account_id, contact_external_id, message_external_id, n)
       LEFT JOIN (contacts k JOIN conversations c ON c.contact_id = k.id AND c.status = ANY($6))
         ON k.tenant_id = q.tenant_id AND k.channel = q.channel AND k.channel_account_id = q.account_id
           AND k.external_id = q.contact_external_id
       ORDER BY q.n`,
      [
        asked.map((one) => one.tenantId),
        asked.map((one) => one.channel),
        asked.map((one) => one.channelAccountId),
        asked.map((one) => one.contactExternalId),
        asked.map((one) => one.messageExternalId),
        OPEN_STATUSES,
      ],
    )) as (ConversationRow & { intake_asked: string; intake_contact_id: string | null; intake_message_stored: boolean })[];
    return rows.map((found) => {
      const { intake_asked: _asked, intake_contact_id: contactId, intake_message_stored: messageStored, ...conversation } = found;
      return { open: contactId === null ? null : { conversation, contactId, opened: false }, messageStored };
    });
  }

  /** Opens the contact's conversation (upserting the contact), or answers the one a concurrent first message opened. */
  private open(input: OpenOrFindInput, contact: Required<IntakeContact>): Promise<IntakeConversation> {
    return this.host.transaction(
      async (manager, outbox) => {
        // Upserted and so row-locked until commit: a concurrent first message waits here, then finds
        // the conversation this one opened. The profile is the channel's latest.
        const [{ id: contactId }] = (await manager.query(
          `INSERT INTO contacts (tenant_id, channel, channel_account_id, external_id, name, email)
           VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (tenant_id, channel, channel_account_id, external_id)
           DO UPDATE SET name = EXCLUDED.name, email = COALESCE(EXCLUDED.email, contacts.email), updated_at = now()
           RETURNING id`,
          [input.tenantId, input.channel, input.channelAccountId, contact.externalId, contact.name, contact.email],
        )) as { id: string }[];
        const [open] = (await manager.query(`SELECT * FROM conversations WHERE contact_id = $1 AND status = ANY($2)`, [
          contactId,
          OPEN_STATUSES,
        ])) as ConversationRow[];
        if (open) return { conversation: open, contactId, opened: false };
        await this.liveLine(manager, input.tenantId, input.lineId);
        const created = await this.host.createConversation(
          manager,
          {
            id: randomUUID(),
            tenantId: input.tenantId,
            channel: input.channel,
            entryLineId: input.lineId,
            customerName: contact.name,
            customerEmail: contact.email,
            visitorId: input.visitorId ?? null,
          },
          { kind: 'customer', id: input.visitorId ?? contactId },
        );
        outbox.push(...created.outboxIds);
        // Who and where, set in the creating transaction: no one has seen the row without them.
        // (An UPDATE answers [rows, count].)
        const [[conversation]] = (await manager.query(
          `UPDATE conversations SET contact_id = $2, channel_account_id = $3 WHERE id = $1 RETURNING *`,
          [created.row.id, contactId, input.channelAccountId],
        )) as [ConversationRow[], number];
        return { conversation, contactId, opened: true };
      },
      { retry: true },
    );
  }

  /**
   * Appends a customer's message: stored once per provider id (or client id), in the conversation
   * named or the contact's open one. A found conversation that closes before the message lands
   * (an inactivity timeout, an agent's close) hands it to the contact's next conversation.
   */
  async appendCustomerMessage(input: CustomerMessageInput): Promise<IntakeMessage> {
    const account = input.channelAccountId ?? null;
    if (input.conversationId === undefined || account !== null || input.externalId) checkChannel({ ...input, channelAccountId: account! });
    else checkKind(input.channel);
    const external = input.externalId ? { channel: input.channel, channelAccountId: account!, externalId: input.externalId } : null;
    if (external && (external.externalId.length > ID_LIMITS.externalId || !external.externalId.trim())) {
      throw invalid('externalId', `externalId must have 1 to ${ID_LIMITS.externalId} characters`);
    }
    const text = input.text.trim();
    const minLength = input.attachments?.length ? 0 : 1;
    if (text.length < minLength || text.length > LIMITS.maxMessageLength) {
      throw invalid('text', `text must have ${minLength} to ${LIMITS.maxMessageLength} characters`);
    }
    // Checked once: the contact the message comes from (a channel that names the conversation has none here).
    const contact = input.conversationId === undefined ? checkContact(input.contact) : null;
    const contactKey = contact ? JSON.stringify([input.tenantId, input.channel, account, contact.externalId]) : null;
    for (let attempt = 1; ; attempt++) {
      let target: { conversationId: string; senderId: string; guard: (row: ConversationRow) => void };
      if (input.conversationId !== undefined) {
        // A provider's retry of a message already stored: answered with it.
        const stored = external ? await this.messages.storedExternal(input.tenantId, external) : null;
        if (stored) return { conversationId: stored.conversationId, message: stored, conversationVersion: null };
        target = { conversationId: input.conversationId, senderId: input.senderId, guard: input.guard };
      } else {
        const remembered = attempt === 1 ? this.openByContact.get(contactKey!) : undefined;
        if (remembered) {
          target = { conversationId: remembered.conversationId, senderId: remembered.contactId, guard: MessagesService.requireOpen };
        } else {
          const { open, messageStored } = await this.findOpen(input, contact!, external?.externalId ?? null);
          // A provider's retry of a message already stored: answered with it, nothing opened.
          const stored = messageStored ? await this.messages.storedExternal(input.tenantId, external!) : null;
          if (stored) return { conversationId: stored.conversationId, message: stored, conversationVersion: null };
          const { conversation, contactId } = open ?? (await this.open(input, contact!));
          target = { conversationId: conversation.id, senderId: contactId, guard: MessagesService.requireOpen };
        }
      }
      try {
        const { message, conversationVersion } = await this.messages.send(
          {
            conversationId: target.conversationId,
            tenantId: input.tenantId,
            sender: { kind: 'customer', id: target.senderId },
            text,
            clientMessageId: input.clientMessageId,
            external: external ?? undefined,
            at: input.at,
            attachments: input.attachments,
          },
          target.guard,
        );
        if (contactKey) this.rememberOpen(contactKey, target.conversationId, target.senderId);
        // A provider's retry found stored (going straight to a remembered conversation skips the lookup that says so) may be in another conversation.
        if (message.conversationId !== target.conversationId)
          return { conversationId: message.conversationId, message, conversationVersion: null };
        return { conversationId: target.conversationId, message, conversationVersion };
      } catch (error) {
        if (contactKey) this.openByContact.delete(contactKey);
        // The same provider id stored meanwhile by a concurrent delivery: the loop answers with it.
        if (external && isUniqueViolation(error, 'uq_messages_external_id') && attempt < APPEND_ATTEMPTS) continue;
        // A remembered conversation may have closed, or be gone: looked up again.
        const closedMeanwhile = input.conversationId === undefined && (isRefusedAsClosed(error) || (attempt === 1 && isNotFound(error)));
        if (!closedMeanwhile || attempt >= APPEND_ATTEMPTS) throw error;
      }
    }
  }

  private rememberOpen(contactKey: string, conversationId: string, contactId: string): void {
    this.openByContact.delete(contactKey);
    this.openByContact.set(contactKey, { conversationId, contactId });
    if (this.openByContact.size > OPEN_CONVERSATIONS_KEPT) this.openByContact.delete(this.openByContact.keys().next().value!);
  }

  /** The entry line must be the tenant's and live: a channel account pointing at a deleted line opens nothing. */
  private async liveLine(manager: EntityManager, tenantId: string, lineId: string): Promise<void> {
    const [line] = (await manager.query(`SELECT 1 FROM attention_lines WHERE id = $1 AND client_id = $2 AND deleted_at IS NULL`, [
      lineId,
      tenantId,
    ])) as unknown[];
    if (!line) throw AppException.notFound();
  }
}

const invalid = (field: string, message: string) => new AppException('validation', { message, data: { fields: { [field]: [message] } } });

function checkKind(channel: string, voice = false): void {
  if (Object.hasOwn(CHANNEL_KINDS, channel) || (voice && (VOICE_INTAKE_CHANNELS as readonly string[]).includes(channel))) return;
  throw invalid('channel', `channel must be one of ${Object.keys(CHANNEL_KINDS).join(', ')}`);
}

/** `voice`: the phone is accepted too (openOrFind only: a call carries no message to append). */
function checkChannel(input: Omit<IntakeChannel, 'channel'> & { channel: string }, voice = false): void {
  checkKind(input.channel, voice);
  const account = input.channelAccountId;
  if (typeof account !== 'string' || !account.trim() || account.length > ID_LIMITS.channelAccountId) {
    throw invalid('channelAccountId', `channelAccountId must have 1 to ${ID_LIMITS.channelAccountId} characters`);
  }
}

function checkContact(contact: IntakeContact): Required<IntakeContact> {
  const externalId = contact.externalId;
  if (typeof externalId !== 'string' || !externalId.trim() || externalId.length > ID_LIMITS.externalId) {
    throw invalid('contact.externalId', `contact.externalId must have 1 to ${ID_LIMITS.externalId} characters`);
  }
  // A provider may send no display name or a long one: the contact still writes, under its id if need be.
  const name = characters((contact.name ?? '').trim(), ID_LIMITS.name) || characters(externalId, ID_LIMITS.name);
  const email = contact.email?.trim() || null;
  if (email && email.length > ID_LIMITS.email)
    throw invalid('contact.email', `contact.email must have at most ${ID_LIMITS.email} characters`);
  return { externalId, name, email };
}

/** The first `count` characters (code points, as varchar counts them: a pair of surrogates is never split). */
function characters(text: string, count: number): string {
  return Array.from(text).slice(0, count).join('');
}

/** A conversation that is not there (any more): MessagesService answers 404. */
function isNotFound(error: unknown): boolean {
  return error instanceof AppException && error.code === 'not_found';
}

/** The refusal MessagesService.requireOpen (or the machine) gives a conversation that is no longer open. */
function isRefusedAsClosed(error: unknown): boolean {
  return error instanceof AppException && error.code === 'illegal_transition';
}
