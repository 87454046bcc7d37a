import { emailPreview, parseEmail, replyTokensOf, type ParsedEmail } from '@centralita/channels';
import { LIMITS } from '@centralita/contracts';
import { UnsubscribeSigner, unsubscribeTokenFromSubject } from '@centralita/contracts/server';
import { isOpenConversationStatus } from '@centralita/domain';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { MessagesService, type NewAttachment } from '../conversations/messages.service';
import { ConversationIntakeService } from '../intake/conversation-intake.service';
import { MailBlacklistService } from '../mail-blacklist/mail-blacklist.service';
import { linkEmailCampaignReply } from '../message-campaigns/email-campaigns';
import type { ChannelAccountRow } from './channel-account.row';
import { INBOUND_MEDIA_STORE, type InboundMediaStore } from './inbound-media-store';

interface ThreadConversation {
  id: string;
  status: string;
  contact_id: string | null;
}

/** What became of one mail: the conversation it landed in, or why it was left out. */
export type EmailTaken = { conversationId: string } | { ignored: string };

/**
 * Takes one stored email in (the channel-inbound job's email branch): parsed, its attachments
 * checked and stored like any channel's files, threaded, and appended through the intake.
 *
 * Threading, in order: In-Reply-To, then References (latest first), then a reply token in the
 * recipients (`box+r<token>@domain`, the Reply-To of the platform's replies), each looked up among
 * the account's emails of either direction. A reply to an open conversation lands in it (whoever
 * wrote it: a colleague in cc too). A reply to a conversation that has closed does not reopen it
 * (a closed conversation's case and survey are done): it goes to the sender's open conversation or
 * a new one, which records the thread it continues (`thread_conversation_id`). Anything else is the
 * sender's open conversation or a new one, as on every channel.
 */
@Injectable()
export class EmailInboundService {
  private readonly logger = new Logger(EmailInboundService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly intake: ConversationIntakeService,
    private readonly messages: MessagesService,
    @Inject(INBOUND_MEDIA_STORE) private readonly media: InboundMediaStore,
    private readonly blacklist: MailBlacklistService,
    private readonly signer: UnsubscribeSigner,
  ) {}

  async take(row: ChannelAccountRow, raw: Buffer): Promise<EmailTaken> {
    const mail = await parseEmail(raw, { authServId: row.settings?.authServId?.trim().toLowerCase() ?? '' });
    const external = { channel: 'email' as const, channelAccountId: row.id, externalId: mail.messageId };
    const stored = await this.messages.storedExternal(row.tenant_id, external);
    if (stored) {
      await this.linkEmail(row, mail.messageId, stored.conversationId);
      return { conversationId: stored.conversationId };
    }
    const own = (row.settings?.fromAddress?.trim() || row.external_account_id).toLowerCase();
    const sender = mail.from.address.toLowerCase();
    if (sender === own || sender === row.external_account_id.toLowerCase()) {
      return { ignored: 'a mail the account sent itself (a copy or a loop) is not a customer message' };
    }
    const unsubscribed = await this.unsubscribe(row, mail);
    if (unsubscribed) return { ignored: unsubscribed };
    const [ours] = (await this.dataSource.query(
      `SELECT 1 FROM message_emails WHERE account_id = $1 AND direction = 'out' AND message_id_header = $2 LIMIT 1`,
      [row.id, mail.messageId],
    )) as unknown[];
    if (ours) return { ignored: 'a copy of a reply the platform sent' };

    const { attachments, notes } = await this.storeAttachments(row, mail);
    const thread = await this.thread(row, mail);
    const open = thread && isOpenConversationStatus(thread.status) ? thread : null;
    await this.dataSource.query(
      `INSERT INTO message_emails (tenant_id, account_id, direction, message_id_header, in_reply_to, "references", subject,
         from_address, to_addresses, cc_addresses, text, quoted, html, auth, thread_conversation_id, sent_at)
       VALUES ($1, $2, 'in', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
       ON CONFLICT (account_id, message_id_header) WHERE direction = 'in' DO NOTHING`,
      [
        row.tenant_id,
        row.id,
        mail.messageId,
        mail.inReplyTo,
        mail.references,
        mail.subject,
        JSON.stringify(mail.from),
        JSON.stringify(mail.to),
        JSON.stringify(mail.cc),
        [mail.text, ...notes].filter(Boolean).join('\n'),
        mail.quoted,
        mail.html,
        JSON.stringify(mail.auth),
        thread && !open ? thread.id : null,
        mail.date,
      ],
    );
    const text = emailPreview({ subject: mail.subject, text: [mail.text, ...notes].join('\n'), html: mail.html }, LIMITS.maxMessageLength);
    const base = {
      tenantId: row.tenant_id,
      channel: 'email' as const,
      channelAccountId: row.id,
      text: text || (attachments.length ? '' : '(—)'),
      externalId: mail.messageId,
      at: mail.date ?? undefined,
      attachments,
    };
    const taken = open
      ? await this.intake.appendCustomerMessage({
          ...base,
          conversationId: open.id,
          senderId: open.contact_id ?? sender,
          guard: MessagesService.requireOpen,
        })
      : await this.intake.appendCustomerMessage({
          ...base,
          contact: { externalId: sender, name: mail.from.name ?? sender, email: sender },
          lineId: row.attention_line_id,
        });
    await this.linkEmail(row, mail.messageId, taken.conversationId);
    // A reply to an email campaign's mail (issue 21): the recipient is linked to this conversation.
    await linkEmailCampaignReply(this.dataSource, row, mail, taken.conversationId);
    return { conversationId: taken.conversationId };
  }

  /**
   * The List-Unsubscribe mailto (issue 20 item 5): `unsubscribe@<domain>` (or the mailbox's own
   * `box+unsubscribe@` sub-address) with the subject `unsubscribe <token>`. A token signed for this
   * sender and this tenant lists the sender (reason 'unsubscribe', source 'mailto'), exactly as the
   * https link does; the mail is no conversation. A bad token sent to an unsubscribe address is left
   * out too (nobody reads that address); elsewhere such a subject is an ordinary customer mail.
   * Answers why the mail was left out, or null when it is not an unsubscribe request.
   */
  private async unsubscribe(row: ChannelAccountRow, mail: ParsedEmail): Promise<string | null> {
    const token = unsubscribeTokenFromSubject(mail.subject ?? '');
    if (!token) return null;
    const toUnsubscribe = mail.recipients.some((address) => /^(?:unsubscribe|[^@]*\+unsubscribe)@/i.test(address.trim()));
    const verified = this.signer.configured ? this.signer.verify(token, mail.from.address) : null;
    if (verified && verified.tenantId === row.tenant_id.toLowerCase()) {
      const done = await this.blacklist.unsubscribe(mail.from.address, token, 'mailto');
      return `an unsubscribe request by mail: ${done.maskedAddress} ${done.added ? 'joined' : 'was already on'} the mail blacklist`;
    }
    return toUnsubscribe ? 'an unsubscribe request by mail whose token is not valid for its sender (nothing listed)' : null;
  }

  private async linkEmail(row: ChannelAccountRow, messageId: string, conversationId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE message_emails SET conversation_id = $3
       WHERE account_id = $1 AND direction = 'in' AND message_id_header = $2 AND conversation_id IS DISTINCT FROM $3`,
      [row.id, messageId, conversationId],
    );
  }

  /** The conversation the mail answers, by In-Reply-To, then References (latest first), then a reply token. */
  private async thread(row: ChannelAccountRow, mail: ParsedEmail): Promise<ThreadConversation | null> {
    const ids = [...new Set([mail.inReplyTo, ...[...mail.references].reverse()].filter((id): id is string => Boolean(id)))].slice(0, 50);
    if (ids.length) {
      const found = (await this.dataSource.query(
        `SELECT e.message_id_header, c.id, c.status, c.contact_id FROM message_emails e JOIN conversations c ON c.id = e.conversation_id
         WHERE e.account_id = $1 AND e.tenant_id = $2 AND e.message_id_header = ANY($3::text[])`,
        [row.id, row.tenant_id, ids],
      )) as (ThreadConversation & { message_id_header: string })[];
      for (const id of ids) {
        const hit = found.find((one) => one.message_id_header === id);
        if (hit) return { id: hit.id, status: hit.status, contact_id: hit.contact_id };
      }
    }
    const tokens = replyTokensOf(mail.recipients);
    if (tokens.length) {
      const [hit] = (await this.dataSource.query(
        `SELECT c.id, c.status, c.contact_id FROM message_emails e JOIN conversations c ON c.id = e.conversation_id
         WHERE e.account_id = $1 AND e.tenant_id = $2 AND e.reply_token = ANY($3::text[]) LIMIT 1`,
        [row.id, row.tenant_id, tokens],
      )) as ThreadConversation[];
      if (hit) return hit;
    }
    return null;
  }

  /**
   * Every attachment through the file store's checks (content against the declared type, size). A
   * refused one does not lose the mail: the text names the file instead.
   */
  private async storeAttachments(row: ChannelAccountRow, mail: ParsedEmail): Promise<{ attachments: NewAttachment[]; notes: string[] }> {
    const attachments: NewAttachment[] = [];
    const notes: string[] = [];
    for (const part of mail.attachments) {
      try {
        attachments.push(
          await this.media.storeInboundFile({
            tenantId: row.tenant_id,
            kind: part.kind,
            fileName: part.fileName,
            mimeType: part.mimeType,
            bytes: part.bytes,
          }),
        );
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        this.logger.warn(`email attachment ${part.fileName} refused: ${reason}`);
        notes.push(`[${part.fileName} not received: ${reason}]`);
      }
    }
    return { attachments, notes };
  }
}
