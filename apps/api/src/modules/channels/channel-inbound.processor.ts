import {
  ChannelError,
  WebhookPayloadError,
  type ChannelAccount,
  type ChannelAdapter,
  type InboundEvent,
  type InboundMediaRef,
} from '@centralita/channels';
import { DELIVERY_STATUS_RANK, QUEUES, roomName, type ChannelInboundJob, type MessageDeliveryStatus } from '@centralita/contracts';
import { MESSAGE_ATTACHMENTS_SQL, messageView, type MessageRow } from '@centralita/contracts/server';
import { OPEN_CONVERSATION_STATUSES } from '@centralita/domain';
import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { Job } from 'bullmq';
import { DataSource, type EntityManager } from 'typeorm';
import { BotService } from '../bot/bot.service';
import { ConversationIntakeService } from '../intake/conversation-intake.service';
import { MessagesService, type NewAttachment } from '../conversations/messages.service';
import { isIllegalTransition, MachineHostService } from '../machine-host/machine-host.service';
import { writeOutbox } from '../machine-host/outbox';
import { QueueRegistry } from '../machine-host/queue-registry.service';
import type { ConversationRow } from '../machine-host/views';
import type { ChannelAccountRow } from './channel-account.row';
import { ChannelAdaptersService } from './channel-adapters.service';
import { EmailInboundService } from './email-inbound.service';
import { FreshChannelEvents } from './fresh-channel-events';
import { INBOUND_MEDIA_STORE, type InboundMediaStore } from './inbound-media-store';
import { isOptOutText } from './opt-out-words';
import {
  applyCampaignReceipt,
  applyQualityUpdate,
  applyTemplateStatus,
  campaignReplyParams,
  campaignReplyPhone,
  campaignRepliesLinked,
  linkCampaignRepliesCte,
  type CampaignReply,
} from '../message-campaigns/campaign-inbound';
import { NaturalBatcher } from '../../common/natural-batcher';

// The media store's token and interface live in their own file so the email branch shares them without an import cycle.
export { INBOUND_MEDIA_STORE, type InboundMediaStore } from './inbound-media-store';

/** Largest customer file fetched (the provider's own limit is usually lower): ATTACHMENT_MAX_BYTES, default 16 MB. */
export function inboundMediaMaxBytes(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.ATTACHMENT_MAX_BYTES);
  return Number.isInteger(value) && value > 0 ? value : 16 * 1024 * 1024;
}

/**
 * A messaging conversation skips the widget's menu: the customer cannot pick a query type in a
 * provider's app, so the first message queues it on the account's line at once, under this query
 * type and the channel kind as submenu (the desk shows both). No post-conversation survey either:
 * its questions are answered in the widget, which a messaging customer never sees.
 */
export const MESSAGING_QUERY_TYPE = 'messaging';

/** Conversations remembered as past the menu (a bound on memory, not a cache to tune). */
const PAST_MENU_KEPT = 20_000;

/** Thrown to have BullMQ run the event again later: a receipt named a message whose provider id is not stored yet. */
class ReceiptsNotYetKnown extends Error {
  override name = 'ReceiptsNotYetKnown';
}

interface StoredEvent {
  id: string;
  tenant_id: string;
  account_id: string;
  raw_body: Buffer;
  processed_at: Date | null;
}

/** A stored event with its account as one read takes them (the account row is never deleted, only marked). */
type StoredEventWithAccount = StoredEvent & { account: ChannelAccountRow | null; account_version: string | null };

/** An event's run is over: marked processed (with why, when something was left) and the campaign replies its messages were. */
interface FinishedEvent {
  eventId: string;
  note: string | null;
  replies: CampaignReply[];
}

/**
 * Statements of the event reads and finishes in flight at once; those that come meanwhile share the
 * next one (NaturalBatcher). At C1's rates (hundreds of webhooks a second) these two statements per
 * event were a third of the intake's round trips, and the pg client's socket write per statement
 * is the API's largest CPU cost.
 */
const EVENT_STATEMENTS_IN_FLIGHT = 2;
const EVENTS_PER_STATEMENT = 128;
/**
 * How long a finish waits for others to share its statement. Off the latency path: the message is
 * on the agent's screen before its event is marked processed; a process that dies meanwhile leaves
 * the job's outbox row undelivered, and the event runs again (idempotent).
 */
const FINISH_LINGER_MS = 25;

/**
 * Takes in the raw events the webhook stored (QUEUES.channelInbound, consumed by the API like the
 * machine queues): the adapter parses the body, and every event of it is handled in payload order.
 * A body that cannot be read is marked failed for good (last_error); anything else that fails
 * (the database, a provider's media server) throws, and BullMQ runs the event again with backoff.
 * Processing is idempotent: a processed event is skipped, messages are stored once by provider
 * id, statuses only move forward, opt-outs are facts set again.
 */
@Injectable()
export class ChannelInboundProcessor implements OnModuleInit {
  private readonly logger = new Logger(ChannelInboundProcessor.name);
  /** Conversations this process queued or found past the menu, oldest first (bounded). */
  private readonly pastMenu = new Set<string>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly host: MachineHostService,
    private readonly intake: ConversationIntakeService,
    private readonly messages: MessagesService,
    private readonly adapters: ChannelAdaptersService,
    private readonly queues: QueueRegistry,
    @Inject(INBOUND_MEDIA_STORE) private readonly media: InboundMediaStore,
    private readonly email: EmailInboundService,
    private readonly bot: BotService,
    private readonly fresh: FreshChannelEvents,
  ) {}

  /** The event and its account, read for many jobs in one statement (each answered in the order asked). */
  private readonly eventReads = new NaturalBatcher<ChannelInboundJob, StoredEventWithAccount | undefined>({
    maxInFlight: EVENT_STATEMENTS_IN_FLIGHT,
    maxBatch: EVENTS_PER_STATEMENT,
    run: (jobs) => this.readEvents(jobs),
  });

  /** Events marked processed, with their campaign replies linked, many in one statement. */
  private readonly finishes = new NaturalBatcher<FinishedEvent, void>({
    maxInFlight: EVENT_STATEMENTS_IN_FLIGHT,
    maxBatch: EVENTS_PER_STATEMENT,
    lingerMs: FINISH_LINGER_MS,
    run: (finished) => this.finishMany(finished),
  });

  onModuleInit(): void {
    this.queues.handle(QUEUES.channelInbound, (job) => this.process(job.data, isLastAttempt(job)));
  }

  /** Runs one stored event; `lastAttempt` gives up on receipts still unknown instead of asking for another run. */
  async process({ tenantId, eventId }: ChannelInboundJob, lastAttempt = true): Promise<void> {
    // The event and its account in one read (an account row is never deleted, only marked), with
    // the account's version: its decrypted view is made once per version (adapterAccountAt).
    // Stored by this process moments ago: taken from memory (see FreshChannelEvents); else read.
    const found = this.fresh.take(eventId, tenantId) ?? (await this.eventReads.submit({ tenantId, eventId }));
    if (!found || found.processed_at) return;
    const { account: row, account_version: accountVersion, ...event } = found;
    const adapter = row && !row.deleted_at ? this.adapters.usable(row.kind) : null;
    if (!row || !adapter) return this.finish(event.id, 'The channel account was disconnected before this event was processed');
    if (row.kind === 'email') return this.takeEmail(event, row);
    const account = this.adapters.adapterAccountAt(row, accountVersion!);
    let events: InboundEvent[];
    try {
      events = adapter.parseWebhook(event.raw_body, account);
    } catch (error) {
      if (error instanceof WebhookPayloadError) return this.finish(event.id, `Unreadable webhook body: ${error.message}`);
      throw await this.failedAttempt(event.id, error);
    }
    const unknownReceipts: string[] = [];
    const replies: CampaignReply[] = [];
    try {
      for (const inbound of events) {
        switch (inbound.type) {
          case 'message': {
            await this.takeMessage(row, adapter, account, inbound);
            const phone = campaignReplyPhone(inbound.contact.externalId);
            if (phone) replies.push({ tenantId: row.tenant_id, accountId: row.id, phone });
            break;
          }
          case 'receipt':
            if (!(await this.applyReceipt(row, inbound))) unknownReceipts.push(inbound.providerMessageId);
            break;
          case 'typing':
            await this.pushTyping(row, inbound.contactExternalId);
            break;
          case 'opt-out':
          case 'opt-in':
            await this.recordOptOut(row, inbound.contactExternalId, inbound.type === 'opt-out' ? inbound.reason : null, inbound.at);
            break;
          case 'template-status':
            await applyTemplateStatus(this.dataSource, row, inbound);
            break;
          case 'quality-update':
            await applyQualityUpdate(this.dataSource, row, inbound);
            break;
        }
      }
    } catch (error) {
      throw await this.failedAttempt(event.id, error);
    }
    if (unknownReceipts.length && !lastAttempt) {
      throw await this.failedAttempt(
        event.id,
        new ReceiptsNotYetKnown(`receipts for messages not stored yet: ${unknownReceipts.join(', ')}`),
      );
    }
    try {
      await this.finish(
        event.id,
        unknownReceipts.length ? `Receipts kept until their messages are stored: ${unknownReceipts.join(', ')}` : null,
        replies,
      );
    } catch (error) {
      // Not marked processed: the event runs again (its messages are stored once, the links are facts set again).
      throw await this.failedAttempt(event.id, error);
    }
  }

  /** A mail the worker's mailbox reader stored (raw RFC 5322): threaded and taken in by EmailInboundService, then queued. */
  private async takeEmail(event: StoredEvent, row: ChannelAccountRow): Promise<void> {
    let note: string | null = null;
    try {
      const taken = await this.email.take(row, event.raw_body);
      if ('conversationId' in taken) await this.queueFromMenu(taken.conversationId, row);
      else note = `Ignored: ${taken.ignored}`;
    } catch (error) {
      if (error instanceof WebhookPayloadError) return this.finish(event.id, `Unreadable email: ${error.message}`);
      throw await this.failedAttempt(event.id, error);
    }
    await this.finish(event.id, note);
  }

  /** Marks the event processed (a repeat of a processed one changes nothing) and links the campaign replies its messages were. */
  private finish(eventId: string, note: string | null, replies: CampaignReply[] = []): Promise<void> {
    return this.finishes.submit({ eventId, note, replies });
  }

  private async readEvents(jobs: ChannelInboundJob[]): Promise<(StoredEventWithAccount | undefined)[]> {
    const rows = (await this.dataSource.query(
      `SELECT to_jsonb(a) AS account, a.xmin::text AS account_version, e.id, e.tenant_id, e.account_id, e.raw_body, e.processed_at
       FROM channel_events e LEFT JOIN channel_accounts a ON a.id = e.account_id
       WHERE e.id = ANY($1::uuid[])`,
      [jobs.map((job) => job.eventId)],
    )) as StoredEventWithAccount[];
    const byId = new Map(rows.map((row) => [row.id, row]));
    // A job names its tenant: an event of another tenant is not its event.
    return jobs.map((job) => {
      const found = byId.get(job.eventId);
      return found?.tenant_id === job.tenantId ? found : undefined;
    });
  }

  private async finishMany(finished: FinishedEvent[]): Promise<void[]> {
    const replies = finished.flatMap((one) => one.replies);
    const linked = (await this.dataSource.query(
      `WITH done AS (
         UPDATE channel_events e SET processed_at = now(), attempts = e.attempts + 1, last_error = f.note
         FROM unnest($1::uuid[], $2::text[]) AS f(id, note)
         WHERE e.id = f.id AND e.processed_at IS NULL
         RETURNING e.id
       ), ${linkCampaignRepliesCte(3)}
       SELECT campaign_id FROM linked`,
      [finished.map((one) => one.eventId), finished.map((one) => one.note), ...campaignReplyParams(replies)],
    )) as { campaign_id: string }[];
    campaignRepliesLinked(linked.map((row) => row.campaign_id));
    return finished.map(() => undefined);
  }

  /** Keeps why a run failed (the operator's view of stuck events) and answers the error to throw. */
  private async failedAttempt(eventId: string, error: unknown): Promise<unknown> {
    const message = error instanceof Error ? error.message : String(error);
    if (!(error instanceof ReceiptsNotYetKnown)) this.logger.warn(`channel event ${eventId}: ${message}`);
    await this.dataSource
      .query(`UPDATE channel_events SET attempts = attempts + 1, last_error = $2 WHERE id = $1`, [eventId, message.slice(0, 2000)])
      .catch(() => undefined);
    return error;
  }

  /**
   * A customer's message: its files fetched at once (provider URLs expire) into the file store,
   * then the message through the intake (one contact per provider user, one open conversation per
   * contact), then the conversation queued on the account's line. A message already stored (a
   * re-run) is only queued if it was left in the menu.
   */
  private async takeMessage(
    row: ChannelAccountRow,
    adapter: ChannelAdapter,
    account: ChannelAccount,
    inbound: Extract<InboundEvent, { type: 'message' }>,
  ): Promise<void> {
    // Looked up first only where a repeat would cost more than a read: files to fetch, a tap to
    // acknowledge, a profile to ask for. A plain text goes to the intake, whose own first read
    // answers a repeat with the stored message (one read per message instead of two, C1).
    const costly = Boolean(inbound.media?.length || inbound.button || !(inbound.contact.name ?? inbound.contact.username));
    const stored = costly
      ? await this.messages.storedExternal(row.tenant_id, {
          channel: row.kind,
          channelAccountId: row.id,
          externalId: inbound.providerMessageId,
        })
      : null;
    let conversationId = stored?.conversationId;
    let message = stored;
    if (inbound.button?.ack && adapter.acknowledgeButton) {
      // The provider wants the tap answered at once (Telegram's spinner); a failure costs nothing but the spinner.
      await adapter.acknowledgeButton(account, inbound.button.ack).catch((error: Error) => {
        this.logger.warn(`button tap of a ${row.kind} contact not acknowledged: ${error.message}`);
      });
    }
    if (!stored) {
      const { attachments, notes } = await this.fetchMedia(row, adapter, account, inbound.media ?? []);
      const captions = (inbound.media ?? []).map((media) => media.caption?.trim()).filter(Boolean);
      const text = [inbound.text?.trim() || captions.join('\n'), ...notes].filter(Boolean).join('\n');
      try {
        const taken = await this.intake.appendCustomerMessage({
          tenantId: row.tenant_id,
          channel: row.kind,
          channelAccountId: row.id,
          contact: { externalId: inbound.contact.externalId, name: await this.contactName(row, adapter, account, inbound.contact) },
          lineId: row.attention_line_id,
          text,
          externalId: inbound.providerMessageId,
          at: inbound.at,
          attachments,
        });
        conversationId = taken.conversationId;
        message = taken.message;
      } finally {
        await this.discardUnrecorded(attachments);
      }
    }
    // The line's bot answers first when it has one (issue 23); it queues the conversation itself when it hands off.
    const withBot = await this.bot.takeTurn(row.tenant_id, conversationId!, {
      id: message!.id,
      text: message!.text,
      ...(inbound.button ? { payload: inbound.button.payload } : {}),
    });
    if (withBot === 'no-bot') await this.queueFromMenu(conversationId!, row);
    if (isOptOutText(inbound.text)) await this.recordOptOut(row, inbound.contact.externalId, 'stop', inbound.at);
  }

  /**
   * The name a contact is shown by: the payload's, else the one stored for them, else (a new contact
   * on a provider whose webhooks carry only ids: Messenger, Instagram) the provider's profile, asked
   * once. The intake stores whatever name it is given, so a known contact keeps theirs.
   */
  private async contactName(
    row: ChannelAccountRow,
    adapter: ChannelAdapter,
    account: ChannelAccount,
    contact: { externalId: string; name?: string; username?: string },
  ): Promise<string> {
    const given = contact.name ?? contact.username;
    if (given || !adapter.profile) return given ?? '';
    const [known] = (await this.dataSource.query(
      `SELECT name FROM contacts WHERE tenant_id = $1 AND channel = $2 AND channel_account_id = $3 AND external_id = $4`,
      [row.tenant_id, row.kind, row.id, contact.externalId],
    )) as { name: string }[];
    if (known && known.name !== contact.externalId) return known.name;
    const profile = await adapter.profile(account, contact.externalId).catch((error: Error) => {
      this.logger.warn(`profile of a ${row.kind} contact not read: ${error.message}`);
      return null;
    });
    return profile?.name ?? profile?.username ?? '';
  }

  /**
   * Downloads every medium within the platform's limit. A permanent refusal (too large, gone) does
   * not lose the message: it lands with a note naming the file instead; a retryable one throws so
   * the event runs again.
   */
  private async fetchMedia(
    row: ChannelAccountRow,
    adapter: ChannelAdapter,
    account: ChannelAccount,
    media: InboundMediaRef[],
  ): Promise<{ attachments: NewAttachment[]; notes: string[] }> {
    const attachments: NewAttachment[] = [];
    const notes: string[] = [];
    for (const ref of media) {
      const label = ref.fileName ?? ref.kind;
      try {
        const fetched = await adapter.fetchMedia(account, ref, inboundMediaMaxBytes());
        attachments.push(
          await this.media.storeInboundFile({
            tenantId: row.tenant_id,
            kind: ref.kind,
            fileName: fetched.fileName ?? ref.fileName ?? `${ref.kind}`,
            mimeType: fetched.mimeType || ref.mimeType || 'application/octet-stream',
            bytes: fetched.bytes,
          }),
        );
      } catch (error) {
        if (error instanceof ChannelError && error.details.retryable) {
          // The event runs again and fetches every file afresh: none of this run's copies is kept.
          await this.media.discard(attachments.map((one) => one.fileId)).catch(() => undefined);
          throw error;
        }
        const reason = error instanceof Error ? error.message : String(error);
        notes.push(`[${label} not received: ${reason}]`);
      }
    }
    return { attachments, notes };
  }

  /**
   * Files this run fetched that no message recorded: another delivery of the same provider message
   * (a re-serialised retry, a second API process) stored it first with its own copies, or the
   * intake failed and the event runs again, fetching afresh. Each attachment is then kept once.
   */
  private async discardUnrecorded(attachments: NewAttachment[]): Promise<void> {
    if (!attachments.length) return;
    const fileIds = attachments.map((one) => one.fileId);
    try {
      const recorded = (await this.dataSource.query(`SELECT file_id FROM message_attachments WHERE file_id = ANY($1::uuid[])`, [
        fileIds,
      ])) as { file_id: string }[];
      const kept = new Set(recorded.map((one) => one.file_id));
      await this.media.discard(fileIds.filter((id) => !kept.has(id)));
    } catch (error) {
      // Never masks the message's own outcome; an orphan file costs space, not correctness.
      this.logger.warn(`unrecorded inbound files not removed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /**
   * A conversation still in the menu (Transitory) goes straight to LiningUp on the account's line.
   * A conversation never goes back to the menu, so one this process saw past it is not read again
   * (every later message of a chat paid that read for nothing, C1).
   */
  private async queueFromMenu(conversationId: string, row: ChannelAccountRow): Promise<void> {
    if (this.pastMenu.has(conversationId)) return;
    await this.queueIfInMenu(conversationId, row);
    this.pastMenu.add(conversationId);
    if (this.pastMenu.size > PAST_MENU_KEPT) this.pastMenu.delete(this.pastMenu.values().next().value!);
  }

  private async queueIfInMenu(conversationId: string, row: ChannelAccountRow): Promise<void> {
    const [found] = (await this.dataSource.query(
      `SELECT c.*, COALESCE(r.priority, 0) AS line_priority FROM conversations c
       LEFT JOIN attention_line_routing r ON r.attention_line_id = c.entry_line_id
       WHERE c.id = $1 AND c.tenant_id = $2 AND c.status = 'Transitory'`,
      [conversationId, row.tenant_id],
    )) as (ConversationRow & { line_priority: number })[];
    if (!found) return;
    const { line_priority: priority, ...conversation } = found;
    try {
      await this.host.dispatchConversationAlone(
        conversation.id,
        {
          type: 'conversation.menuCompleted',
          queryTypeId: MESSAGING_QUERY_TYPE,
          submenuId: row.kind,
          attentionLineId: conversation.entry_line_id!,
          pollId: null,
          priority,
        },
        { kind: 'customer', id: conversation.contact_id ?? undefined },
        row.tenant_id,
        conversation,
      );
    } catch (error) {
      // Another delivery of the same contact queued it first.
      if (!isIllegalTransition(error)) throw error;
    }
  }

  /**
   * Moves the status of the platform's message the receipt names, only forward (sent < delivered
   * < read; failed is terminal and never follows read), and pushes the message. Answers false when
   * no message has that provider id yet (the send's answer not stored): the receipt is kept for
   * that message (keepReceipt) and the caller retries later too (a message campaign's send, which
   * the kept receipt does not reach, may store its id meanwhile).
   * A `watermark:<ms>` id (Messenger) covers every message sent to the contact up to that time.
   */
  private async applyReceipt(row: ChannelAccountRow, receipt: Extract<InboundEvent, { type: 'receipt' }>): Promise<boolean> {
    const watermark = /^watermark:(\d{1,15})$/.exec(receipt.providerMessageId);
    if (watermark && !receipt.contactExternalId) return true;
    return this.host.transaction(async (manager, outbox) => {
      // The lock the message's write takes when it gets this provider id (messages_apply_pending_receipts):
      // either this sees the message, or the message's write sees the receipt kept below.
      if (!watermark) {
        await manager.query(`SELECT pg_advisory_xact_lock(hashtext('channel-receipt:' || $1::text))`, [receipt.providerMessageId]);
      }
      const target = watermark
        ? {
            where: `m.id IN (SELECT m2.id FROM messages m2 JOIN conversations c ON c.id = m2.conversation_id JOIN contacts k ON k.id = c.contact_id
                     WHERE k.tenant_id = $1 AND k.channel = $2 AND k.channel_account_id = $3 AND k.external_id = $4
                       AND m2.sender_kind <> 'customer' AND m2.provider_message_id IS NOT NULL
                       AND m2.created_at <= to_timestamp($5::bigint / 1000.0))`,
            params: [row.tenant_id, row.kind, row.id, receipt.contactExternalId, watermark[1]],
          }
        : {
            where: `m.tenant_id = $1 AND m.channel_account_id = $2 AND m.provider_message_id = $3`,
            params: [row.tenant_id, row.id, receipt.providerMessageId],
          };
      // The receipt's own parameters follow the target's: status, error, time, rank.
      const [status, error, at, rank] = [1, 2, 3, 4].map((offset) => `$${target.params.length + offset}`);
      const updated = (await manager.query(
        `WITH moved AS (
           UPDATE messages m SET
             delivery_status = ${status}::text,
             delivery_error = CASE WHEN ${status}::text = 'failed' THEN ${error}::text ELSE m.delivery_error END,
             delivery_updated_at = now(),
             delivered_at = CASE WHEN ${status}::text IN ('delivered', 'read') THEN COALESCE(m.delivered_at, ${at}::timestamptz) ELSE m.delivered_at END,
             read_at = CASE WHEN ${status}::text = 'read' THEN COALESCE(m.read_at, ${at}::timestamptz) ELSE m.read_at END
           WHERE ${target.where}
             AND (m.delivery_status IS NULL OR m.delivery_status = 'pending'
               OR (m.delivery_status <> 'failed' AND (
                 (${status}::text = 'failed' AND m.delivery_status <> 'read')
                 OR (CASE m.delivery_status WHEN 'sent' THEN 1 WHEN 'delivered' THEN 2 WHEN 'read' THEN 3 ELSE 0 END) < ${rank}::int)))
           RETURNING m.*
         )
         SELECT m.*, c.agent_id AS conversation_agent_id, ${MESSAGE_ATTACHMENTS_SQL}
         FROM moved m JOIN conversations c ON c.id = m.conversation_id`,
        [
          ...target.params,
          receipt.status,
          receipt.error?.message ?? null,
          receipt.at,
          // failed moves anything but read and failed (above), never by rank.
          receipt.status === 'failed' ? 0 : DELIVERY_STATUS_RANK[receipt.status as MessageDeliveryStatus],
        ],
      )) as (MessageRow & { conversation_agent_id: string | null })[];
      if (updated.length) {
        outbox.push(
          ...(await writeOutbox(
            manager,
            updated.map((message) => messageUpdatedPush(message)),
          )),
        );
        return true;
      }
      if (watermark) return true;
      // Not a conversation's message: maybe a message campaign's (issue 21), placed by id or callback data.
      if (await applyCampaignReceipt(manager, row, receipt)) return true;
      if (await this.knownMessage(manager, row, receipt.providerMessageId)) return true;
      await this.keepReceipt(manager, row, receipt);
      return false;
    });
  }

  /**
   * A receipt for a provider id no message has yet (the send's answer not stored, or stored by a
   * worker that died first and retries later): kept, and applied by the database when a message
   * takes that id (migration 1763706500000), however late. Kept receipts no message claimed in
   * 30 days are swept here.
   */
  private async keepReceipt(
    manager: EntityManager,
    row: ChannelAccountRow,
    receipt: Extract<InboundEvent, { type: 'receipt' }>,
  ): Promise<void> {
    await manager.query(
      `WITH swept AS (DELETE FROM channel_pending_receipts WHERE received_at < now() - interval '30 days')
       INSERT INTO channel_pending_receipts (tenant_id, account_id, provider_message_id, status, error, at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (account_id, provider_message_id, status) DO NOTHING`,
      [row.tenant_id, row.id, receipt.providerMessageId, receipt.status, receipt.error?.message ?? null, receipt.at],
    );
  }

  private async knownMessage(manager: EntityManager, row: ChannelAccountRow, providerMessageId: string): Promise<boolean> {
    const found = (await manager.query(`SELECT 1 FROM messages WHERE channel_account_id = $1 AND provider_message_id = $2 LIMIT 1`, [
      row.id,
      providerMessageId,
    ])) as unknown[];
    return found.length > 0;
  }

  /** The customer is typing: an ephemeral hint to the staff watching their open conversation. */
  private async pushTyping(row: ChannelAccountRow, contactExternalId: string): Promise<void> {
    const [open] = (await this.dataSource.query(
      `SELECT c.id FROM contacts k JOIN conversations c ON c.contact_id = k.id AND c.status = ANY($5::text[])
       WHERE k.tenant_id = $1 AND k.channel = $2 AND k.channel_account_id = $3 AND k.external_id = $4`,
      [row.tenant_id, row.kind, row.id, contactExternalId, OPEN_CONVERSATION_STATUSES],
    )) as { id: string }[];
    if (open) this.messages.pushTyping(open.id, 'customer', true);
  }

  /**
   * Records (reason) or clears (null) a contact's opt-out. A contact the platform has not met yet
   * is created for it, so a later first send still respects it. An opt-in older than the recorded
   * opt-out changes nothing.
   */
  private async recordOptOut(row: ChannelAccountRow, contactExternalId: string, reason: string | null, at: Date): Promise<void> {
    if (reason) {
      await this.dataSource.query(
        `INSERT INTO contacts (tenant_id, channel, channel_account_id, external_id, name, opted_out_at, opt_out_reason)
         VALUES ($1, $2, $3, $4, left($4, 120), $5, $6)
         ON CONFLICT (tenant_id, channel, channel_account_id, external_id)
         DO UPDATE SET opted_out_at = COALESCE(contacts.opted_out_at, EXCLUDED.opted_out_at), opt_out_reason = EXCLUDED.opt_out_reason, updated_at = now()`,
        [row.tenant_id, row.kind, row.id, contactExternalId, at, reason.slice(0, 20)],
      );
    } else {
      await this.dataSource.query(
        `UPDATE contacts SET opted_out_at = NULL, opt_out_reason = NULL, updated_at = now()
         WHERE tenant_id = $1 AND channel = $2 AND channel_account_id = $3 AND external_id = $4 AND opted_out_at <= $5`,
        [row.tenant_id, row.kind, row.id, contactExternalId, at],
      );
    }
  }
}

/** The staff (and the web-chat visitor's, never used for messaging) push of a message whose delivery status moved. */
function messageUpdatedPush(row: MessageRow & { conversation_agent_id: string | null }) {
  const { conversation_agent_id: agentId, ...message } = row;
  const view = messageView(message);
  const rooms = [roomName({ kind: 'conversation', id: view.conversationId })];
  if (agentId) rooms.push(roomName({ kind: 'agent', id: agentId }));
  return {
    topic: 'socket' as const,
    payload: { emits: [{ namespace: 'staff' as const, rooms, event: 'message.updated' as const, data: view }] },
  };
}

/** BullMQ counts failed runs in attemptsMade: this run is the last when one more failure would use them all. */
function isLastAttempt(job: Job): boolean {
  return job.attemptsMade + 1 >= (job.opts?.attempts ?? 1);
}
