import {
  ChannelError,
  EMAIL_ADDRESS,
  emailNetworkFromEnv,
  emailThreadOf,
  emailSettingsOf,
  replyAddress,
  newMessageId,
  newReplyToken,
  sendSmtp,
  type EmailAddress,
  type EmailNetwork,
} from '@centralita/channels';
import {
  MESSAGE_ATTACHMENTS_SQL,
  insertOutbox,
  messageUpdatedEffect,
  messageView,
  type ConfigCrypto,
  type FileStore,
  type MessageRow,
} from '@centralita/contracts/server';
import type { DataSource, EntityManager } from 'typeorm';

export interface EmailSendDeps {
  db: DataSource;
  crypto: ConfigCrypto;
  files: FileStore;
  network?: EmailNetwork;
}

export type EmailSendOutcome =
  { outcome: 'sent'; providerMessageId: string; confirmed: boolean } | { outcome: 'failed'; reason: string } | { outcome: 'skipped' };

interface PendingEmail {
  id: string;
  tenant_id: string;
  conversation_id: string;
  text: string;
  client_message_id: string | null;
  delivery_status: string | null;
  agent_id: string | null;
  contact_id: string | null;
  contact_address: string | null;
  contact_name: string | null;
  opted_out_at: Date | null;
  account_id: string | null;
  external_account_id: string | null;
  settings: Record<string, string> | null;
  secrets: Record<string, string> | null;
  usable: boolean | null;
}

interface OutboundRow {
  id: string;
  message_id_header: string;
  in_reply_to: string | null;
  references: string[];
  subject: string;
  from_address: EmailAddress;
  to_addresses: EmailAddress[];
  cc_addresses: EmailAddress[];
  bcc_addresses: EmailAddress[];
  text: string;
  html: string | null;
  reply_token: string | null;
  send_started_at: Date | null;
  send_confirmed_at: Date | null;
}

const UUID_SQL = `'^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'`;

/** The key of an outbound email row: the composer's client id, or the message's own id for a plain desk message. */
export const outboundKey = (message: { id: string; client_message_id: string | null }) => message.client_message_id ?? `msg:${message.id}`;

/**
 * Sends one agent message of an email conversation (the channel-send job's email branch), once.
 *
 * The email row (message_emails, direction 'out') holds the Message-ID, generated and committed
 * before any SMTP traffic (the email composer writes it with the message; a plain desk message gets
 * one here), with In-Reply-To and References from the thread, so the customer's client threads it.
 *
 * Idempotency across a worker killed after the server's 250: `send_started_at` is set (a
 * conditional UPDATE: one runner wins) before the SMTP transaction and `send_confirmed_at` after
 * the 250. A run that finds an attempt started and never confirmed does not send again: the
 * message is marked sent, unconfirmed (the desk says so). A failure the platform saw (a refusal,
 * the server unreachable) clears the mark, so a retry may send. The price: a worker killed after
 * marking and before the server took the mail leaves it unsent but shown as sent unconfirmed.
 */
export async function sendEmailMessage(
  deps: EmailSendDeps,
  job: { tenantId: string; messageId: string },
  lastAttempt: boolean,
): Promise<EmailSendOutcome> {
  const [message] = (await deps.db.query(
    `SELECT m.id, m.tenant_id, m.conversation_id, m.text, m.client_message_id, m.delivery_status, c.agent_id,
       k.id AS contact_id, k.external_id AS contact_address, k.name AS contact_name, k.opted_out_at,
       a.id AS account_id, a.external_account_id, a.settings, a.secrets, (a.enabled AND a.deleted_at IS NULL) AS usable
     FROM messages m
     JOIN conversations c ON c.id = m.conversation_id
     LEFT JOIN contacts k ON k.id = c.contact_id
     LEFT JOIN channel_accounts a ON a.tenant_id = m.tenant_id AND a.kind = 'email'
       AND a.id = CASE WHEN m.channel_account_id ~ ${UUID_SQL} THEN m.channel_account_id::uuid END
     WHERE m.id = $1 AND m.tenant_id = $2`,
    [job.messageId, job.tenantId],
  )) as PendingEmail[];
  if (!message || message.delivery_status !== 'pending') return { outcome: 'skipped' };
  if (!message.account_id || !message.usable) return fail(deps, message, "The conversation's email account is disconnected");
  if (message.opted_out_at) return fail(deps, message, 'The customer has opted out of messages');

  let settings: ReturnType<typeof emailSettingsOf>;
  try {
    const secrets = Object.fromEntries(Object.entries(message.secrets ?? {}).map(([name, value]) => [name, deps.crypto.decrypt(value)]));
    settings = emailSettingsOf({ settings: { ...message.settings }, secrets, externalAccountId: message.external_account_id ?? '' });
  } catch (error) {
    const reason = error instanceof ChannelError ? error.message : "The email account's credentials cannot be read (CONFIG_ENCRYPTION_KEY)";
    return fail(deps, message, reason);
  }

  const email = await outboundRow(deps.db, message, settings.from);
  if (!email) return fail(deps, message, 'The conversation has no customer address to reply to');
  if (email.send_confirmed_at) return markSent(deps, message, email, true);
  if (email.send_started_at) {
    // A run died after starting the SMTP transaction: the server may have taken the mail. Never twice.
    return markSent(deps, message, email, false);
  }

  const recipients = [...email.to_addresses, ...email.cc_addresses, ...email.bcc_addresses];
  const refused = await blacklisted(deps.db, message.tenant_id, recipients);
  if (refused) return fail(deps, message, refused);

  const attachments = await attachmentsOf(deps, message);
  const [, started] = (await deps.db.query(
    `UPDATE message_emails SET send_started_at = now() WHERE id = $1 AND send_started_at IS NULL AND send_confirmed_at IS NULL`,
    [email.id],
  )) as [unknown, number];
  // Another runner of the same job started it meanwhile.
  if (!started) return { outcome: 'skipped' };
  try {
    const answer = await sendSmtp(settings.smtp, deps.network ?? emailNetworkFromEnv(), {
      from: settings.from,
      to: email.to_addresses,
      cc: email.cc_addresses,
      bcc: email.bcc_addresses,
      subject: email.subject,
      text: email.text,
      html: email.html,
      messageId: email.message_id_header,
      inReplyTo: email.in_reply_to,
      references: email.references,
      replyTo: email.reply_token ? replyAddress(settings.from.address, email.reply_token) : null,
      attachments,
    });
    await deps.db.query(`UPDATE message_emails SET send_confirmed_at = now(), sent_at = now(), smtp_response = $2 WHERE id = $1`, [
      email.id,
      answer.response.slice(0, 500),
    ]);
    return markSent(deps, message, email, true);
  } catch (error) {
    // The platform saw the failure: nothing was taken, a retry may send.
    await deps.db.query(`UPDATE message_emails SET send_started_at = NULL WHERE id = $1 AND send_confirmed_at IS NULL`, [email.id]);
    if (!(error instanceof ChannelError)) {
      if (!lastAttempt) throw error;
      return fail(deps, message, `It could not be sent: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (error.details.retryable && !lastAttempt) throw error;
    return fail(deps, message, error.message);
  }
}

/**
 * The message's email row; created here for a plain desk message (its text as the body), with a
 * Message-ID on the account's domain, the thread's subject and headers, and a reply token.
 */
async function outboundRow(db: DataSource, message: PendingEmail, from: { address: string; name: string }): Promise<OutboundRow | null> {
  const key = outboundKey(message);
  const select = () =>
    db.query(`SELECT * FROM message_emails WHERE direction = 'out' AND conversation_id = $1 AND client_message_id = $2`, [
      message.conversation_id,
      key,
    ]) as Promise<OutboundRow[]>;
  const [found] = await select();
  if (found) return found;
  if (!message.contact_address || !EMAIL_ADDRESS.test(message.contact_address)) return null;
  const thread = await emailThreadOf((text, values) => db.query(text, values), message.conversation_id);
  await db.query(
    `INSERT INTO message_emails (tenant_id, account_id, direction, conversation_id, client_message_id, message_id_header, in_reply_to,
       "references", subject, from_address, to_addresses, text, reply_token)
     VALUES ($1, $2, 'out', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (conversation_id, client_message_id) WHERE direction = 'out' DO NOTHING`,
    [
      message.tenant_id,
      message.account_id,
      message.conversation_id,
      key,
      newMessageId(from.address),
      thread.inReplyTo,
      thread.references,
      thread.subject,
      JSON.stringify({ address: from.address, name: from.name || null }),
      JSON.stringify([{ address: message.contact_address, name: message.contact_name }]),
      message.text,
      newReplyToken(),
    ],
  );
  return (await select())[0] ?? null;
}

/** Why one of the recipients must not be mailed (mail_blacklist, E2's table); null when all may. */
async function blacklisted(db: DataSource, tenantId: string, recipients: EmailAddress[]): Promise<string | null> {
  const [table] = (await db.query(`SELECT to_regclass('mail_blacklist') IS NOT NULL AS present`)) as { present: boolean }[];
  if (!table?.present || !recipients.length) return null;
  const [blocked] = (await db.query(
    `SELECT address, reason FROM mail_blacklist WHERE tenant_id = $1 AND address = ANY($2::text[]) ORDER BY address LIMIT 1`,
    [tenantId, recipients.map((one) => one.address.trim().toLowerCase())],
  )) as { address: string; reason: string }[];
  return blocked ? `${blocked.address} is on the mail blacklist (${blocked.reason}): the email was not sent` : null;
}

async function attachmentsOf(deps: EmailSendDeps, message: PendingEmail): Promise<{ fileName: string; mimeType: string; bytes: Buffer }[]> {
  const rows = (await deps.db.query(
    `SELECT file_id, file_name, mime_type FROM message_attachments WHERE message_id = $1 ORDER BY created_at, id`,
    [message.id],
  )) as { file_id: string; file_name: string; mime_type: string }[];
  const out: { fileName: string; mimeType: string; bytes: Buffer }[] = [];
  for (const row of rows) {
    const file = await deps.files.open(message.tenant_id, row.file_id);
    if (!file) throw new Error(`attachment ${row.file_name} is missing from the file store`);
    const chunks: Buffer[] = [];
    for await (const chunk of file.stream) chunks.push(chunk as Buffer);
    out.push({ fileName: row.file_name, mimeType: row.mime_type, bytes: Buffer.concat(chunks) });
  }
  return out;
}

async function markSent(deps: EmailSendDeps, message: PendingEmail, email: OutboundRow, confirmed: boolean): Promise<EmailSendOutcome> {
  await deps.db.transaction(async (manager) => {
    const [, changed] = (await manager.query(
      `UPDATE messages SET provider_message_id = $2, delivery_status = 'sent', delivery_updated_at = now(),
         delivery_error = CASE WHEN $3::boolean THEN NULL ELSE $4 END
       WHERE id = $1 AND delivery_status = 'pending'`,
      [
        message.id,
        email.message_id_header,
        confirmed,
        'Sent once, unconfirmed: the worker stopped after handing it to the mail server and did not send it again',
      ],
    )) as [unknown, number];
    if (changed) await pushUpdate(manager, message);
  });
  return { outcome: 'sent', providerMessageId: email.message_id_header, confirmed };
}

async function fail(deps: EmailSendDeps, message: PendingEmail, reason: string): Promise<EmailSendOutcome> {
  await deps.db.transaction(async (manager) => {
    const [, changed] = (await manager.query(
      `UPDATE messages SET delivery_status = 'failed', delivery_error = $2, delivery_updated_at = now() WHERE id = $1 AND delivery_status = 'pending'`,
      [message.id, reason.slice(0, 2000)],
    )) as [unknown, number];
    if (changed) await pushUpdate(manager, message);
  });
  return { outcome: 'failed', reason };
}

async function pushUpdate(manager: EntityManager, message: PendingEmail): Promise<void> {
  const [row] = (await manager.query(`SELECT m.*, ${MESSAGE_ATTACHMENTS_SQL} FROM messages m WHERE m.id = $1`, [
    message.id,
  ])) as MessageRow[];
  if (!row) return;
  await insertOutbox(manager, [messageUpdatedEffect({ id: message.conversation_id, agent_id: message.agent_id }, messageView(row))], {
    wakeRelay: true,
  });
}
