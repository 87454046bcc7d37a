import { randomUUID } from 'node:crypto';
import {
  EMAIL_ADDRESS,
  EMAIL_CAPABILITIES,
  emailPreview,
  emailThreadOf,
  htmlToPlain,
  newMessageId,
  newReplyToken,
} from '@centralita/channels';
import {
  LIMITS,
  type AttachmentView,
  type EmailAddressView,
  type EmailMessageView,
  type EmailReplyInput,
  type MessageView,
} from '@centralita/contracts';
import { attachmentView, type AttachmentRow } from '@centralita/contracts/server';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AppException } from '../../../common/app.exception';
import { AttachmentStoreService } from '../../attachments/attachment-store.service';
import type { UploadedPart } from '../../attachments/attachments.service';
import type { Principal } from '../../auth/principal';
import { DeskService } from '../../conversations/desk.service';
import { MessagesService, type NewAttachment } from '../../conversations/messages.service';
import { OutboundRulesService } from '../../conversations/outbound-rules.service';
import type { ConversationRow } from '../../machine-host/views';
import { keepDataImagesOnly, sanitizeReplyHtml } from './email-html';

const LIMITS_EMAIL = { html: 200_000, recipients: 20, subject: 998, clientMessageId: 100 } as const;

interface EmailRow {
  direction: 'in' | 'out';
  message_id: string | null;
  message_id_header: string;
  in_reply_to: string | null;
  references: string[] | null;
  subject: string;
  from_address: EmailAddressView;
  to_addresses: EmailAddressView[];
  cc_addresses: EmailAddressView[];
  bcc_addresses: EmailAddressView[];
  text: string;
  quoted: string;
  html: string | null;
  auth: EmailMessageView['auth'];
  attachments: AttachmentRow[] | null;
  created_at: Date;
  sent_at: Date | null;
  send_started_at: Date | null;
  send_confirmed_at: Date | null;
}

const invalid = (field: string, message: string) => new AppException('validation', { message, data: { fields: { [field]: [message] } } });

/**
 * The desk's email view (issue 20): a conversation's emails with their headers, bodies and
 * verdicts, and the agent's reply (rich text, cc/bcc, attachments) stored with its message in one
 * transaction, Message-ID and threading headers included, for the worker to send.
 */
@Injectable()
export class EmailDeskService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly desk: DeskService,
    private readonly messages: MessagesService,
    private readonly rules: OutboundRulesService,
    private readonly store: AttachmentStoreService,
  ) {}

  /** GET /api/conversations/:id/emails: the conversation's emails, oldest first (404 unless the caller may see it). */
  async list(principal: Principal, id: string): Promise<EmailMessageView[]> {
    const conversation = await this.desk.visible(principal, id);
    if (conversation.channel !== 'email') return [];
    // An inbound email is linked to its conversation just after its message is stored: until then
    // it is found through the message (its external id is the Message-ID), so a push never shows less.
    const rows = (await this.dataSource.query(
      `WITH msgs AS (
         SELECT id, sequence, external_id, client_message_id FROM messages WHERE conversation_id = $1
       ), emails AS (
         SELECT e.* FROM message_emails e WHERE e.tenant_id = $2 AND e.conversation_id = $1
         UNION
         SELECT e.* FROM message_emails e
         WHERE e.tenant_id = $2 AND e.direction = 'in' AND e.conversation_id IS NULL AND e.account_id::text = $3
           AND e.message_id_header IN (SELECT external_id FROM msgs WHERE external_id IS NOT NULL)
       )
       SELECT e.*, m.id AS message_id,
         (SELECT COALESCE(json_agg(json_build_object('id', a.id, 'kind', a.kind, 'file_name', a.file_name, 'mime_type', a.mime_type, 'size', a.size)
            ORDER BY a.created_at, a.id), '[]'::json) FROM message_attachments a WHERE a.message_id = m.id) AS attachments
       FROM emails e
       LEFT JOIN msgs m ON (e.direction = 'in' AND m.external_id = e.message_id_header)
         OR (e.direction = 'out' AND (m.client_message_id = e.client_message_id OR e.client_message_id = 'msg:' || m.id::text))
       ORDER BY COALESCE(m.sequence, 2147483647), e.created_at, e.id`,
      [id, principal.clientId, conversation.channel_account_id ?? ''],
    )) as EmailRow[];
    return rows.map((row) => emailView(row));
  }

  /** POST /api/conversations/:id/email-replies: the handling agent's reply, sent by the worker. */
  async reply(principal: Principal, id: string, rawPayload: unknown, files: UploadedPart[]): Promise<MessageView> {
    const input = parseReply(rawPayload);
    const conversation = await this.desk.visible(principal, id);
    if (conversation.channel !== 'email') throw invalid('conversation', 'This conversation is not an email conversation');
    DeskService.requireHandler(principal, conversation);
    const html = keepDataImagesOnly(sanitizeReplyHtml(input.html));
    const text = htmlToPlain(html);
    if (!text.trim() && !files.length && !/<img\b/i.test(html))
      throw invalid('html', 'The reply is empty: write something or attach a file');

    const customer = await this.customerAddress(conversation);
    const attachments: NewAttachment[] = [];
    try {
      for (const file of files) {
        attachments.push(
          await this.store.store({
            tenantId: principal.clientId,
            fileName: file.originalname,
            mimeType: file.mimetype,
            bytes: file.buffer,
            limit: (kind) => EMAIL_CAPABILITIES.attachments[kind] ?? `Email does not take ${kind} files`,
          }),
        );
      }
      const clientMessageId = input.clientMessageId ?? randomUUID();
      const { message } = await this.messages.send(
        {
          conversationId: id,
          tenantId: principal.clientId,
          sender: { kind: 'agent', id: principal.userId },
          text: emailPreview({ subject: '', text, html: null }, LIMITS.maxMessageLength) || '(—)',
          clientMessageId,
          attachments,
          beforeStore: async (manager, row) => {
            await this.rules.assertCanSend(manager, row, 'text');
            await this.storeOutbound(manager, row, { ...input, clientMessageId, html, text, customer });
          },
        },
        (row) => DeskService.requireHandler(principal, row),
      );
      if (attachments.length) {
        // A resend of a stored reply (same client id) recorded none of these files.
        const kept = (await this.dataSource.query(`SELECT file_id FROM message_attachments WHERE file_id = ANY($1::uuid[])`, [
          attachments.map((one) => one.fileId),
        ])) as { file_id: string }[];
        const recorded = new Set(kept.map((one) => one.file_id));
        await this.store.discard(attachments.map((one) => one.fileId).filter((fileId) => !recorded.has(fileId)));
      }
      return message;
    } catch (error) {
      await this.store.discard(attachments.map((one) => one.fileId)).catch(() => undefined);
      throw error;
    }
  }

  /** The customer the reply goes to: the conversation's contact (an email address, the intake's id for them). */
  private async customerAddress(conversation: ConversationRow): Promise<EmailAddressView> {
    const [contact] = (await this.dataSource.query(`SELECT external_id, name FROM contacts WHERE id = $1`, [conversation.contact_id])) as {
      external_id: string;
      name: string;
    }[];
    if (!contact || !EMAIL_ADDRESS.test(contact.external_id)) {
      throw new AppException('conflict', { message: 'The conversation has no customer address to reply to' });
    }
    return { address: contact.external_id, name: contact.name && contact.name !== contact.external_id ? contact.name : null };
  }

  /** The outbound email row, in the message's transaction: the worker finds it by (conversation, client id). A resend stores nothing new. */
  private async storeOutbound(
    manager: EntityManager,
    conversation: ConversationRow,
    reply: Required<Pick<EmailReplyInput, 'clientMessageId'>> & EmailReplyInput & { text: string; customer: EmailAddressView },
  ): Promise<void> {
    const [account] = (await manager.query(`SELECT id, external_account_id, settings FROM channel_accounts WHERE id::text = $1`, [
      conversation.channel_account_id,
    ])) as { id: string; external_account_id: string; settings: Record<string, string> }[];
    if (!account) throw new AppException('conflict', { message: "This conversation's email account is disconnected" });
    const fromAddress = account.settings?.fromAddress?.trim() || account.external_account_id;
    const thread = await emailThreadOf((text, values) => manager.query(text, values), conversation.id);
    const subject = reply.subject?.trim() || thread.subject || 'Re:';
    const address = (one: string) => ({ address: one, name: null });
    await manager.query(
      `INSERT INTO message_emails (tenant_id, account_id, direction, conversation_id, client_message_id, message_id_header, in_reply_to,
         "references", subject, from_address, to_addresses, cc_addresses, bcc_addresses, text, html, reply_token)
       VALUES ($1, $2, 'out', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
       ON CONFLICT (conversation_id, client_message_id) WHERE direction = 'out' DO NOTHING`,
      [
        conversation.tenant_id,
        account.id,
        conversation.id,
        reply.clientMessageId,
        newMessageId(fromAddress),
        thread.inReplyTo,
        thread.references,
        subject,
        JSON.stringify({ address: fromAddress, name: account.settings?.fromName?.trim() || null }),
        JSON.stringify([reply.customer]),
        JSON.stringify((reply.cc ?? []).map(address)),
        JSON.stringify((reply.bcc ?? []).map(address)),
        reply.text,
        reply.html,
        newReplyToken(),
      ],
    );
  }
}

/** The multipart `payload` field: JSON of EmailReplyInput, every field checked (400 naming the first problem). */
export function parseReply(raw: unknown): EmailReplyInput {
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw invalid('payload', 'payload must be JSON');
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('payload', 'payload must be a JSON object');
  const body = value as Record<string, unknown>;
  if (typeof body.html !== 'string') throw invalid('html', 'html must be a string');
  if (body.html.length > LIMITS_EMAIL.html) throw invalid('html', `html must have at most ${LIMITS_EMAIL.html} characters`);
  const list = (field: 'cc' | 'bcc'): string[] => {
    const entries = body[field];
    if (entries === undefined || entries === null) return [];
    if (!Array.isArray(entries) || entries.some((one) => typeof one !== 'string'))
      throw invalid(field, `${field} must be a list of addresses`);
    const addresses = (entries as string[]).map((one) => one.trim()).filter(Boolean);
    if (addresses.length > LIMITS_EMAIL.recipients) throw invalid(field, `${field} takes at most ${LIMITS_EMAIL.recipients} addresses`);
    const bad = addresses.find((one) => !EMAIL_ADDRESS.test(one) || one.length > 254);
    if (bad !== undefined) throw invalid(field, `${field}: "${bad.slice(0, 80)}" is not an email address`);
    return [...new Set(addresses.map((one) => one.toLowerCase()))];
  };
  const subject = body.subject;
  if (subject !== undefined && subject !== null) {
    if (typeof subject !== 'string' || subject.length > LIMITS_EMAIL.subject || /[\r\n\0]/.test(subject)) {
      throw invalid('subject', `subject must be one line of at most ${LIMITS_EMAIL.subject} characters`);
    }
  }
  const clientMessageId = body.clientMessageId;
  if (clientMessageId !== undefined && clientMessageId !== null) {
    if (typeof clientMessageId !== 'string' || !/^[A-Za-z0-9._:-]{1,100}$/.test(clientMessageId)) {
      throw invalid('clientMessageId', 'clientMessageId must have 1 to 100 of A-Z a-z 0-9 . _ : -');
    }
  }
  return {
    html: body.html,
    cc: list('cc'),
    bcc: list('bcc'),
    ...(typeof subject === 'string' && subject.trim() ? { subject: subject.trim() } : {}),
    ...(typeof clientMessageId === 'string' ? { clientMessageId } : {}),
  };
}

function emailView(row: EmailRow): EmailMessageView {
  const attachments: AttachmentView[] = (row.attachments ?? []).map(attachmentView);
  return {
    messageId: row.message_id,
    direction: row.direction,
    subject: row.subject,
    messageIdHeader: row.message_id_header,
    inReplyTo: row.in_reply_to,
    references: row.references ?? [],
    from: row.from_address,
    to: row.to_addresses ?? [],
    cc: row.cc_addresses ?? [],
    bcc: row.direction === 'out' ? (row.bcc_addresses ?? []) : [],
    text: row.text,
    quoted: row.quoted,
    html: row.html,
    auth: row.direction === 'in' ? row.auth : null,
    attachments,
    at: new Date(row.sent_at ?? row.created_at).toISOString(),
    confirmed: row.direction === 'out' ? (row.send_confirmed_at ? true : row.send_started_at ? false : null) : null,
  };
}
