import {
  ChannelError,
  type ChannelAccount,
  type ChannelRegistry,
  type MessagingChannelKind,
  type OutboundMessage,
} from '@centralita/channels';
import type { AttachmentKind } from '@centralita/contracts';
import {
  MESSAGE_ATTACHMENTS_SQL,
  insertOutbox,
  isSettingOn,
  messageUpdatedEffect,
  messageView,
  replyWindowState,
  type ConfigCrypto,
  type FileStore,
  type MessageRow,
} from '@centralita/contracts/server';
import { DelayedError, type Job } from 'bullmq';
import type { DataSource, EntityManager } from 'typeorm';
import { sendEmailMessage } from '../email/email-send';

/** Where the worker sends from: its database, adapters, key and files. */
export interface ChannelSendDeps {
  db: DataSource;
  registry: ChannelRegistry;
  crypto: ConfigCrypto;
  files: FileStore;
  now?: () => Date;
}

/** What became of one run: sent, failed for good, or nothing to do (already sent, failed or gone). */
export type ChannelSendOutcome =
  { outcome: 'sent'; providerMessageId: string } | { outcome: 'failed'; reason: string } | { outcome: 'skipped' };

const UUID_SQL = `'^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'`;

interface PendingMessage {
  id: string;
  tenant_id: string;
  conversation_id: string;
  text: string;
  delivery_status: string | null;
  /** As the API stores it (StoredTemplate): NAMED parameter names, a media header by link or as the message's attachment. */
  template: {
    name: string;
    language: string;
    bodyParameters: string[];
    headerParameters?: string[];
    parameterNames?: { header?: string[]; body?: string[] };
    headerMedia?: { kind: 'image' | 'video' | 'document'; link?: string; attachment?: true; fileName?: string };
  } | null;
  /** Reply buttons (the bot's menu): sent with the text where the channel has them. */
  buttons: { payload: string; title: string }[] | null;
  agent_id: string | null;
  contact_id: string | null;
  contact_external_id: string | null;
  opted_out_at: Date | null;
  account_id: string | null;
  kind: MessagingChannelKind | null;
  external_account_id: string | null;
  settings: Record<string, string> | null;
  secrets: Record<string, string> | null;
  verify_token: string | null;
  usable: boolean | null;
  last_customer_at: Date | null;
}

/**
 * Sends one agent message (QUEUES.channelSend) through its conversation's channel account, once:
 * only a `pending` message is sent (a job delivered twice, or run again after it succeeded, finds
 * it `sent` and does nothing) and the provider gets the message id as idempotency key, so a retry
 * after a lost answer is not a second message. The result moves the status forward only
 * (pending → sent never overwrites the delivered/read a fast receipt set) and is pushed to the
 * desk through the outbox (`message.updated`).
 *
 * Retryable provider errors (network, 5xx, 429) are thrown back to BullMQ, which tries again after
 * the provider's Retry-After (channelSendBackoff) until the last attempt; then, and at once for
 * permanent errors, the message is `failed` with the provider's reason for the agent.
 */
export async function sendChannelMessage(
  deps: ChannelSendDeps,
  job: { tenantId: string; messageId: string },
  lastAttempt: boolean,
): Promise<ChannelSendOutcome> {
  const [message] = (await deps.db.query(
    `SELECT m.id, m.tenant_id, m.conversation_id, m.text, m.delivery_status, m.template, m.buttons, c.agent_id,
       k.id AS contact_id, k.external_id AS contact_external_id, k.opted_out_at,
       a.id AS account_id, a.kind, a.external_account_id, a.settings, a.secrets, a.verify_token,
       (a.enabled AND a.deleted_at IS NULL) AS usable,
       (SELECT max(x.created_at) FROM messages x WHERE x.conversation_id = m.conversation_id AND x.sender_kind = 'customer') AS last_customer_at
     FROM messages m
     JOIN conversations c ON c.id = m.conversation_id
     LEFT JOIN contacts k ON k.id = c.contact_id
     LEFT JOIN channel_accounts a ON a.tenant_id = m.tenant_id
       AND a.id = CASE WHEN m.channel_account_id ~ ${UUID_SQL} THEN m.channel_account_id::uuid END
     WHERE m.id = $1 AND m.tenant_id = $2`,
    [job.messageId, job.tenantId],
  )) as PendingMessage[];
  if (!message || message.delivery_status !== 'pending') return { outcome: 'skipped' };
  // Email has threading headers, cc/bcc and an at-most-once SMTP transaction of its own (issue 20).
  if (message.kind === 'email') {
    const sent = await sendEmailMessage(deps, job, lastAttempt);
    return sent.outcome === 'sent' ? { outcome: 'sent', providerMessageId: sent.providerMessageId } : sent;
  }

  const adapter = message.kind ? deps.registry.get(message.kind) : undefined;
  if (!message.account_id || !message.usable || !adapter) return fail(deps, message, "The conversation's channel account is disconnected");
  if (!message.contact_external_id) return fail(deps, message, 'The conversation has no customer to send to');
  if (message.opted_out_at) return fail(deps, message, 'The customer has blocked or opted out of messages');
  // The API checked the window when storing; a retry may run after it closed (or into the tag's time).
  const window = replyWindowState(
    adapter.capabilities,
    message.last_customer_at ? new Date(message.last_customer_at) : null,
    isSettingOn(message.settings?.humanAgentTag),
    deps.now?.() ?? new Date(),
  );
  if (!message.template && window.freeText === 'closed')
    return fail(deps, message, "The customer's reply window closed before it could be sent");

  let account: ChannelAccount;
  try {
    account = {
      id: message.account_id,
      kind: message.kind!,
      externalAccountId: message.external_account_id!,
      settings: { ...message.settings },
      secrets: Object.fromEntries(Object.entries(message.secrets ?? {}).map(([name, value]) => [name, deps.crypto.decrypt(value)])),
      verifyToken: message.verify_token ?? '',
    };
  } catch {
    return fail(deps, message, "The channel account's credentials cannot be read (CONFIG_ENCRYPTION_KEY)");
  }

  try {
    const outbound = await outboundMessages(deps, message, window.freeText === 'humanAgentTag', Boolean(adapter.capabilities.buttons));
    // An uploaded template header goes up to the provider first (its media id; Meta keeps it 30 days), then the template names it.
    const media = message.template?.headerMedia;
    const template = outbound[0]?.template;
    if (media?.attachment && template) {
      if (!adapter.uploadMedia)
        throw new ChannelError(`${message.kind} takes no uploaded header media`, { code: 'invalid_message', retryable: false });
      const file = await attachmentMedia(deps, message, media.kind);
      const id = await adapter.uploadMedia(account, file);
      template.headerMedia = { kind: media.kind, id, ...(media.kind === 'document' ? { fileName: file.fileName } : {}) };
    }
    let providerMessageId = '';
    for (const [index, one] of outbound.entries()) {
      // Several files are several provider messages: each its own stable key; the first names the message.
      const sent = await adapter.send(account, one, { idempotencyKey: index === 0 ? message.id : `${message.id}.${index}` });
      if (index === 0) providerMessageId = sent.providerMessageId;
    }
    await markSent(deps, message, providerMessageId);
    return { outcome: 'sent', providerMessageId };
  } catch (error) {
    if (!(error instanceof ChannelError)) {
      // Ours (database, file store): worth another try, and a clear reason at the end.
      if (!lastAttempt) throw error;
      return fail(deps, message, `It could not be sent: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (error.details.code === 'blocked' && message.contact_id) {
      // Telegram's 403 "bot was blocked by the user": recorded, so every later send is refused at once.
      await deps.db.query(
        `UPDATE contacts SET opted_out_at = COALESCE(opted_out_at, now()), opt_out_reason = COALESCE(opt_out_reason, 'blocked') WHERE id = $1`,
        [message.contact_id],
      );
    }
    if (error.details.retryable && !lastAttempt) throw error;
    return fail(deps, message, error.message);
  }
}

/**
 * How long a send waits behind an earlier message of its conversation that is still pending. A
 * provider shows messages in the order it receives them; jobs run several at once, so a bot's
 * greeting and its answer (or an agent's two quick replies) could otherwise arrive swapped.
 */
export const CHANNEL_SEND_ORDER_WAIT_MS = 250;
/** An earlier message pending for longer than this no longer holds later ones (its job was lost or is stuck). */
export const CHANNEL_SEND_ORDER_HOLD_MAX_MS = 10 * 60_000;

/**
 * Whether an earlier message of the same conversation is still waiting for its own send (pending,
 * stored less than CHANNEL_SEND_ORDER_HOLD_MAX_MS ago): this one must go after it. Email keeps no
 * such order (each mail is its own thread entry, and its send is at-most-once on its own terms).
 */
export async function waitsForEarlierSend(
  deps: Pick<ChannelSendDeps, 'db'>,
  job: { tenantId: string; messageId: string },
): Promise<boolean> {
  const [row] = (await deps.db.query(
    `SELECT EXISTS (
       SELECT 1 FROM messages earlier
        WHERE earlier.conversation_id = m.conversation_id AND earlier.sequence < m.sequence
          AND earlier.delivery_status = 'pending' AND earlier.created_at > now() - make_interval(secs => $3::float8 / 1000)
     ) AS waits
     FROM messages m WHERE m.id = $1 AND m.tenant_id = $2 AND m.delivery_status = 'pending' AND m.channel IS DISTINCT FROM 'email'`,
    [job.messageId, job.tenantId, CHANNEL_SEND_ORDER_HOLD_MAX_MS],
  )) as { waits: boolean }[];
  return row?.waits === true;
}

/**
 * One job of QUEUES.channelSend: in the conversation's order — behind an earlier message still on
 * its way this one waits (a delay, not a failed attempt: BullMQ's DelayedError keeps the attempt
 * count) — then sendChannelMessage, the last attempt judged from the job's options.
 */
export async function sendChannelJob(
  deps: ChannelSendDeps,
  job: Pick<Job, 'attemptsMade' | 'opts' | 'moveToDelayed'>,
  message: { tenantId: string; messageId: string },
  token: string | undefined,
): Promise<ChannelSendOutcome> {
  if (token && (await waitsForEarlierSend(deps, message))) {
    await job.moveToDelayed(Date.now() + CHANNEL_SEND_ORDER_WAIT_MS, token);
    throw new DelayedError();
  }
  return sendChannelMessage(deps, message, job.attemptsMade + 1 >= (job.opts.attempts ?? 1));
}

/** Exactly one of text, media or template per provider message: a template; else each file (the text as the first one's caption); else the text. */
async function outboundMessages(
  deps: ChannelSendDeps,
  message: PendingMessage,
  humanAgentTag: boolean,
  withButtons: boolean,
): Promise<OutboundMessage[]> {
  const to = message.contact_external_id!;
  const tag = humanAgentTag ? { humanAgentTag: true } : {};
  if (message.template) {
    return [
      {
        to,
        template: {
          name: message.template.name,
          language: message.template.language,
          bodyParameters: message.template.bodyParameters,
          ...(message.template.headerParameters?.length && !message.template.headerMedia
            ? { headerParameters: message.template.headerParameters }
            : {}),
          ...(message.template.parameterNames ? { parameterNames: message.template.parameterNames } : {}),
          // A link goes as it is; an uploaded file is put in (by media id) just before the send.
          ...(message.template.headerMedia?.link
            ? {
                headerMedia: {
                  kind: message.template.headerMedia.kind,
                  link: message.template.headerMedia.link,
                  ...(message.template.headerMedia.fileName ? { fileName: message.template.headerMedia.fileName } : {}),
                },
              }
            : {}),
        },
      },
    ];
  }
  const attachments = (await deps.db.query(
    `SELECT file_id, kind, file_name, mime_type FROM message_attachments WHERE message_id = $1 ORDER BY created_at, id`,
    [message.id],
  )) as { file_id: string; kind: AttachmentKind; file_name: string; mime_type: string }[];
  const buttons = withButtons && message.buttons?.length ? { buttons: message.buttons } : {};
  if (attachments.length === 0) return [{ to, text: message.text, ...tag, ...buttons }];
  const media: OutboundMessage[] = [];
  for (const [index, attachment] of attachments.entries()) {
    const file = await deps.files.open(message.tenant_id, attachment.file_id);
    if (!file) throw new Error(`attachment ${attachment.file_name} is missing from the file store`);
    const chunks: Buffer[] = [];
    for await (const chunk of file.stream) chunks.push(chunk as Buffer);
    media.push({
      to,
      media: {
        kind: attachment.kind,
        mimeType: attachment.mime_type,
        fileName: attachment.file_name,
        bytes: Buffer.concat(chunks),
        ...(index === 0 && message.text ? { caption: message.text } : {}),
      },
      ...tag,
    });
  }
  return media;
}

/** The file of an uploaded template header: the message's attachment in the file store. */
async function attachmentMedia(
  deps: ChannelSendDeps,
  message: PendingMessage,
  kind: 'image' | 'video' | 'document',
): Promise<NonNullable<OutboundMessage['media']>> {
  const [attachment] = (await deps.db.query(
    `SELECT file_id, file_name, mime_type FROM message_attachments WHERE message_id = $1 ORDER BY created_at, id LIMIT 1`,
    [message.id],
  )) as { file_id: string; file_name: string; mime_type: string }[];
  if (!attachment) throw new Error("the template's header file is missing from the message");
  const file = await deps.files.open(message.tenant_id, attachment.file_id);
  if (!file) throw new Error(`the header file ${attachment.file_name} is missing from the file store`);
  const chunks: Buffer[] = [];
  for await (const chunk of file.stream) chunks.push(chunk as Buffer);
  return { kind, mimeType: attachment.mime_type, fileName: attachment.file_name, bytes: Buffer.concat(chunks) };
}

async function markSent(deps: ChannelSendDeps, message: PendingMessage, providerMessageId: string): Promise<void> {
  await deps.db.transaction(async (manager) => {
    // Only forward: a receipt that already moved it to delivered or read stays.
    await manager.query(
      `UPDATE messages SET provider_message_id = $2,
         delivery_status = CASE WHEN delivery_status = 'pending' THEN 'sent' ELSE delivery_status END,
         delivery_updated_at = now()
       WHERE id = $1`,
      [message.id, providerMessageId],
    );
    await pushUpdate(manager, message);
  });
}

async function fail(deps: ChannelSendDeps, message: PendingMessage, reason: string): Promise<ChannelSendOutcome> {
  await deps.db.transaction(async (manager) => {
    const [, changed] = (await manager.query(
      `UPDATE messages SET delivery_status = 'failed', delivery_error = $2, delivery_updated_at = now() WHERE id = $1 AND delivery_status = 'pending'`,
      [message.id, reason.slice(0, 2000)],
    )) as [unknown, number];
    if (changed) await pushUpdate(manager, message);
  });
  return { outcome: 'failed', reason };
}

/** The desk's copy of the message, in the transaction of the change (the API's relay delivers worker-written rows). */
async function pushUpdate(manager: EntityManager, message: PendingMessage): Promise<void> {
  const [row] = (await manager.query(`SELECT m.*, ${MESSAGE_ATTACHMENTS_SQL} FROM messages m WHERE m.id = $1`, [
    message.id,
  ])) as MessageRow[];
  if (!row) return;
  await insertOutbox(manager, [messageUpdatedEffect({ id: message.conversation_id, agent_id: message.agent_id }, messageView(row))], {
    wakeRelay: true,
  });
}

/** First retry after this, doubling each time, unless the provider said when (Retry-After). */
export const CHANNEL_SEND_BASE_DELAY_MS = 1000;
const CHANNEL_SEND_MAX_DELAY_MS = 10 * 60_000;

/**
 * BullMQ's custom backoff of channel-send jobs (the relay adds them with `backoff: {type: 'custom'}`):
 * never before the provider's Retry-After (a 429's retry_after, Meta's pair limit), else exponential.
 */
export function channelSendBackoff(attemptsMade: number, _type?: string, error?: Error): number {
  const exponential = Math.min(CHANNEL_SEND_MAX_DELAY_MS, CHANNEL_SEND_BASE_DELAY_MS * 2 ** Math.max(0, attemptsMade - 1));
  const asked = error instanceof ChannelError ? error.details.retryAfterMs : undefined;
  return asked !== undefined && asked > 0 ? Math.min(CHANNEL_SEND_MAX_DELAY_MS, Math.max(asked, CHANNEL_SEND_BASE_DELAY_MS)) : exponential;
}
