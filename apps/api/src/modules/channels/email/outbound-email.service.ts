import { randomUUID } from 'node:crypto';
import { EMAIL_ADDRESS, htmlToPlain } from '@centralita/channels';
import { type MessageView } from '@centralita/contracts';
import { isMailBlocked, mailBlockedMessage } from '@centralita/contracts/server';
import { isReadyAgentStatus, OPEN_CONVERSATION_STATUSES, type Actor } from '@centralita/domain';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AppException } from '../../../common/app.exception';
import type { UploadedPart } from '../../attachments/attachments.service';
import type { Principal } from '../../auth/principal';
import { isIllegalTransition, MachineHostService, type AgentStepPlan } from '../../machine-host/machine-host.service';
import type { ConversationRow } from '../../machine-host/views';
import { EmailDeskService, parseReply } from './email-desk.service';
import { keepDataImagesOnly, sanitizeReplyHtml } from './email-html';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An email account an agent may send from: never its servers or secrets. */
export interface EmailSendAccountView {
  id: string;
  name: string;
  fromAddress: string;
}

/** POST /api/emails: the multipart `payload` field, checked. */
export interface NewEmailInput {
  accountId: string;
  /** A contact id (UUID) or an email address. */
  to: string;
  subject: string;
  html: string;
  cc: string[];
  bcc: string[];
  clientMessageId?: string;
}

export interface NewEmailResult {
  conversationId: string;
  message: MessageView;
}

interface AccountRow {
  id: string;
  tenant_id: string;
  name: string;
  external_account_id: string;
  attention_line_id: string;
  settings: Record<string, string> | null;
}

const invalid = (field: string, message: string) => new AppException('validation', { message, data: { fields: { [field]: [message] } } });
const conflict = (message: string, data?: Record<string, unknown>) => new AppException('conflict', { message, ...(data ? { data } : {}) });

/**
 * /emails/SendEmail (issue 20 item 4): an agent (or a supervisor signed in to the desk) starts an
 * email to a contact or an address. The customer becomes the intake's contact keyed by the address
 * on that account; the new conversation goes straight to Active with the sender
 * (`conversation.agentStarted`, logged, the agent's capacity taken by `agent.conversationAssigned`
 * in the same transaction; 409 when the sender is not available or has no room); the first email
 * is then stored exactly like a desk reply (pending, Message-ID, Reply-To token, the worker's
 * blacklist check and send-once), so the customer's answer threads back by In-Reply-To.
 */
@Injectable()
export class OutboundEmailService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly host: MachineHostService,
    private readonly email: EmailDeskService,
  ) {}

  /** GET /api/emails/accounts: the tenant's enabled email accounts, by name. */
  async accounts(principal: Principal): Promise<EmailSendAccountView[]> {
    const rows = (await this.dataSource.query(
      `SELECT id, name, external_account_id, settings FROM channel_accounts
       WHERE tenant_id = $1 AND kind = 'email' AND enabled AND deleted_at IS NULL ORDER BY lower(name), id`,
      [principal.clientId],
    )) as AccountRow[];
    return rows.map((row) => ({ id: row.id, name: row.name, fromAddress: row.settings?.fromAddress?.trim() || row.external_account_id }));
  }

  async send(principal: Principal, rawPayload: unknown, files: UploadedPart[]): Promise<NewEmailResult> {
    const input = parseNewEmail(rawPayload);
    const account = await this.account(principal, input.accountId);
    if (input.clientMessageId) {
      // A retried submit (same client id on this account): the conversation it already opened.
      const [earlier] = (await this.dataSource.query(
        `SELECT e.conversation_id, m.id AS message_id FROM message_emails e
         JOIN conversations c ON c.id = e.conversation_id AND c.agent_id = $3
         LEFT JOIN messages m ON m.conversation_id = e.conversation_id AND m.client_message_id = e.client_message_id
         WHERE e.account_id = $1 AND e.direction = 'out' AND e.client_message_id = $2 LIMIT 1`,
        [account.id, input.clientMessageId, principal.userId],
      )) as { conversation_id: string }[];
      if (earlier) {
        const message = await this.email.reply(principal, earlier.conversation_id, rawPayload, []);
        return { conversationId: earlier.conversation_id, message };
      }
    }
    const html = keepDataImagesOnly(sanitizeReplyHtml(input.html));
    if (!htmlToPlain(html).trim() && !files.length && !/<img\b/i.test(html))
      throw invalid('html', 'The email is empty: write something or attach a file');
    const customer = await this.recipient(principal, input.to);
    const blocked = await isMailBlocked(this.dataSource, principal.clientId, customer.address);
    if (blocked) throw conflict(`${customer.address} is on the mail blacklist: ${mailBlockedMessage(blocked)}`, { reason: blocked });
    const conversationId = await this.open(principal, account, customer);
    const message = await this.email.reply(principal, conversationId, rawPayload, files);
    return { conversationId, message };
  }

  private async account(principal: Principal, id: string): Promise<AccountRow> {
    const [row] = (await this.dataSource.query(
      `SELECT id, tenant_id, name, external_account_id, attention_line_id, settings FROM channel_accounts
       WHERE id::text = $1 AND tenant_id = $2 AND kind = 'email' AND deleted_at IS NULL AND enabled`,
      [id, principal.clientId],
    )) as AccountRow[];
    if (!row) throw AppException.notFound();
    return row;
  }

  /** The address to write to: the given one, or the contact's (404 for another tenant's contact). */
  private async recipient(principal: Principal, to: string): Promise<{ address: string; name: string }> {
    if (!UUID.test(to)) return { address: to.toLowerCase(), name: to.toLowerCase() };
    const [contact] = (await this.dataSource.query(`SELECT external_id, name, email FROM contacts WHERE id = $1 AND tenant_id = $2`, [
      to,
      principal.clientId,
    ])) as { external_id: string; name: string | null; email: string | null }[];
    if (!contact) throw AppException.notFound();
    const address = [contact.email, contact.external_id].find((one) => one && EMAIL_ADDRESS.test(one.trim()));
    if (!address) throw invalid('to', 'This contact has no email address: write the address instead');
    return { address: address.trim().toLowerCase(), name: contact.name?.trim() || address.trim().toLowerCase() };
  }

  /**
   * The conversation the email starts, Active with the sender. A contact whose open conversation the
   * sender already handles gets the email in it; one queued or with another agent answers 409.
   */
  private async open(principal: Principal, account: AccountRow, customer: { address: string; name: string }): Promise<string> {
    const actor: Actor = { kind: 'agent', id: principal.userId };
    return this.host.transaction(
      async (manager, outbox) => {
        const [{ id: contactId }] = (await manager.query(
          `INSERT INTO contacts (tenant_id, channel, channel_account_id, external_id, name, email)
           VALUES ($1, 'email', $2, $3, $4, $5)
           ON CONFLICT (tenant_id, channel, channel_account_id, external_id)
           DO UPDATE SET email = COALESCE(contacts.email, EXCLUDED.email), updated_at = now()
           RETURNING id`,
          [principal.clientId, account.id, customer.address, customer.name, customer.address],
        )) as { id: string }[];
        const [open] = (await manager.query(`SELECT * FROM conversations WHERE contact_id = $1 AND status = ANY($2)`, [
          contactId,
          OPEN_CONVERSATION_STATUSES,
        ])) as ConversationRow[];
        if (open) {
          if (open.status === 'Active' && open.agent_id === principal.userId) return open.id;
          throw conflict(`${customer.address} already has an open conversation (${open.status}) on this account: answer it from the desk`, {
            conversationId: open.id,
          });
        }
        const agent = await this.reserveAgent(manager, principal, actor);
        const created = await this.host.createConversation(
          manager,
          {
            id: randomUUID(),
            tenantId: principal.clientId,
            channel: 'email',
            entryLineId: account.attention_line_id,
            customerName: customer.name,
            customerEmail: customer.address,
            visitorId: null,
          },
          actor,
        );
        outbox.push(...created.outboxIds);
        const [[row]] = (await manager.query(
          `UPDATE conversations SET contact_id = $2, channel_account_id = $3 WHERE id = $1 RETURNING *`,
          [created.row.id, contactId, account.id],
        )) as [ConversationRow[], number];
        const planned = this.host.planAgentStep(agent, { type: 'agent.conversationAssigned', conversationId: row.id }, actor);
        const started = await this.host.planLockedConversationStep(
          manager,
          row,
          { type: 'conversation.agentStarted', agentId: principal.userId, attentionLineId: account.attention_line_id },
          actor,
        );
        outbox.push(...started.outboxIds);
        outbox.push(...(await this.host.writeLockedSteps(manager, [planned], [started.write])));
        return row.id;
      },
      { retry: true },
    );
  }

  /** The sender's presence row, locked; 409 unless they are signed in, available and have room. */
  private async reserveAgent(manager: EntityManager, principal: Principal, actor: Actor): Promise<AgentStepPlan['current']> {
    let agent: AgentStepPlan['current'];
    try {
      agent = await this.host.lockAgent(manager, principal.userId, principal.clientId);
    } catch (error) {
      if (error instanceof AppException && error.code === 'not_found')
        throw conflict('You are not signed in to the desk: sign in as an agent (available) to start a conversation');
      throw error;
    }
    try {
      // Checked now so the refusal names the reason; the real step is planned once the conversation exists.
      this.host.planAgentStep(agent, { type: 'agent.conversationAssigned', conversationId: randomUUID() }, actor);
    } catch (error) {
      if (!isIllegalTransition(error)) throw error;
      throw conflict(
        isReadyAgentStatus(agent.status)
          ? `You have no room for another conversation (${agent.active_count} of ${agent.capacity}): close one first`
          : `You are not available (${agent.status}): become available to start a conversation`,
        { agentStatus: agent.status, activeCount: agent.active_count, capacity: agent.capacity },
      );
    }
    return agent;
  }
}

/** The multipart `payload` of POST /api/emails: the reply's fields (html, cc, bcc, subject, clientMessageId) plus accountId and to. */
export function parseNewEmail(raw: unknown): NewEmailInput {
  const reply = parseReply(raw);
  const body = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Record<string, unknown>;
  const accountId = body.accountId;
  if (typeof accountId !== 'string' || !UUID.test(accountId)) throw invalid('accountId', 'accountId must be the id of an email account');
  const to = typeof body.to === 'string' ? body.to.trim() : body.to;
  if (typeof to !== 'string' || !to) throw invalid('to', 'to must be a contact id or an email address');
  if (!UUID.test(to) && (!EMAIL_ADDRESS.test(to) || to.length > 254))
    throw invalid('to', `to: "${to.slice(0, 80)}" is neither a contact id nor an email address`);
  if (!reply.subject) throw invalid('subject', 'subject is required for a new email');
  return {
    accountId: accountId.toLowerCase(),
    to,
    subject: reply.subject,
    html: reply.html,
    cc: reply.cc ?? [],
    bcc: reply.bcc ?? [],
    ...(reply.clientMessageId ? { clientMessageId: reply.clientMessageId } : {}),
  };
}
