import { ImapFlow } from 'imapflow';
import nodemailer from 'nodemailer';
import { OutgoingAddressError, OutgoingAddressPolicy, parseAllowedCidrs } from '@centralita/contracts/server';
import { ChannelError } from '../adapter';
import type { EmailAddress } from './parse';
import type { EmailServer } from './settings';

/** How long one connection step (connect, greeting, a command's silence) may take. */
const CONNECT_TIMEOUT_MS = 15_000;
const SOCKET_TIMEOUT_MS = 60_000;

/**
 * Where the platform may connect for a tenant's mailbox: the outgoing-address policy every
 * tenant-supplied host goes through (loopback and private ranges refused unless the operator
 * allows them, OUTGOING_ALLOWED_CIDRS), resolved once and connected to by address so a name cannot
 * point elsewhere in between. TLS still checks the certificate against the name.
 */
export interface EmailNetwork {
  resolve(host: string): Promise<string>;
  /** false only in tests against self-signed local servers (EMAIL_TLS_INSECURE=on). */
  verifyCertificates: boolean;
}

export function emailNetworkFromEnv(env: NodeJS.ProcessEnv = process.env): EmailNetwork {
  const policy = new OutgoingAddressPolicy({ allowedCidrs: parseAllowedCidrs(env.OUTGOING_ALLOWED_CIDRS, []) });
  return {
    async resolve(host) {
      try {
        const [first] = await policy.resolve(host.replace(/^\[|\]$/g, ''));
        return first!.address;
      } catch (error) {
        if (error instanceof OutgoingAddressError) {
          const retryable = error.code === 'outgoing.unresolvable';
          throw new ChannelError(error.message, { code: retryable ? 'unresolvable' : 'address_refused', retryable });
        }
        throw error;
      }
    },
    verifyCertificates: env.EMAIL_TLS_INSECURE?.trim().toLowerCase() !== 'on',
  };
}

/** An IMAP connection to the account's mailbox, logged in (the caller logs out). */
export async function connectImap(server: EmailServer, network: EmailNetwork, options: { idle?: boolean } = {}): Promise<ImapFlow> {
  const address = await network.resolve(server.host);
  const client = new ImapFlow({
    host: address,
    port: server.port,
    secure: server.security === 'tls',
    doSTARTTLS: server.security === 'starttls' ? true : server.security === 'none' ? false : undefined,
    servername: server.host,
    tls: { servername: server.host, rejectUnauthorized: network.verifyCertificates },
    auth: { user: server.user, pass: server.password },
    logger: false,
    disableAutoIdle: !options.idle,
    connectionTimeout: CONNECT_TIMEOUT_MS,
    greetingTimeout: CONNECT_TIMEOUT_MS,
    socketTimeout: 5 * 60_000,
    clientInfo: { name: 'Centralita' },
  });
  // Without a listener a dropped connection would be an uncaught 'error' event.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    client.close();
    throw imapError(error);
  }
  return client;
}

/** An IMAP failure as the platform classifies it: bad credentials are permanent, the rest is retried. */
export function imapError(error: unknown): ChannelError {
  if (error instanceof ChannelError) return error;
  const e = error as { authenticationFailed?: boolean; message?: string; code?: string; responseText?: string };
  if (e.authenticationFailed) {
    return new ChannelError(`IMAP login refused: ${e.responseText || e.message || 'authentication failed'}`, {
      code: 'unauthorized',
      retryable: false,
    });
  }
  return new ChannelError(`IMAP: ${e.responseText || e.message || String(error)}`, { code: e.code ?? 'imap_error', retryable: true });
}

export interface OutboundEmail {
  from: { address: string; name: string };
  to: EmailAddress[];
  cc: EmailAddress[];
  bcc: EmailAddress[];
  subject: string;
  text: string;
  html: string | null;
  /** With angle brackets; generated and stored by the caller before this call. */
  messageId: string;
  inReplyTo: string | null;
  references: string[];
  replyTo: string | null;
  attachments: { fileName: string; mimeType: string; bytes: Buffer }[];
  /** Extra headers (campaign mail: List-Unsubscribe, List-Unsubscribe-Post); values must be one line. */
  headers?: Record<string, string>;
}

/** One SMTP transaction. Answers the server's final reply (250 …); throws a classified ChannelError. */
export async function sendSmtp(server: EmailServer, network: EmailNetwork, email: OutboundEmail): Promise<{ response: string }> {
  const address = await network.resolve(server.host);
  const transport = nodemailer.createTransport({
    host: address,
    port: server.port,
    secure: server.security === 'tls',
    requireTLS: server.security === 'starttls',
    ignoreTLS: server.security === 'none',
    name: 'centralita',
    tls: { servername: server.host, rejectUnauthorized: network.verifyCertificates },
    auth: server.user && server.password ? { user: server.user, pass: server.password } : undefined,
    connectionTimeout: CONNECT_TIMEOUT_MS,
    greetingTimeout: CONNECT_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    // Attachments are bytes the platform read from its file store: nodemailer never opens a path or URL for us.
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  const list = (entries: EmailAddress[]) => entries.map((one) => (one.name ? { name: one.name, address: one.address } : one.address));
  try {
    const info = await transport.sendMail({
      from: email.from.name ? { name: email.from.name, address: email.from.address } : email.from.address,
      to: list(email.to),
      cc: list(email.cc),
      bcc: list(email.bcc),
      subject: email.subject,
      text: email.text,
      ...(email.html ? { html: email.html } : {}),
      messageId: email.messageId,
      ...(email.inReplyTo ? { inReplyTo: email.inReplyTo } : {}),
      ...(email.references.length ? { references: email.references } : {}),
      ...(email.replyTo ? { replyTo: email.replyTo } : {}),
      ...(email.headers ? { headers: email.headers } : {}),
      attachments: email.attachments.map((one) => ({ filename: one.fileName, content: one.bytes, contentType: one.mimeType })),
    });
    return { response: String(info.response ?? '') };
  } catch (error) {
    throw smtpError(error);
  } finally {
    transport.close();
  }
}

/** Checks the SMTP server takes the account's credentials (EHLO, STARTTLS/TLS, AUTH). */
export async function verifySmtp(server: EmailServer, network: EmailNetwork): Promise<void> {
  const address = await network.resolve(server.host);
  const transport = nodemailer.createTransport({
    host: address,
    port: server.port,
    secure: server.security === 'tls',
    requireTLS: server.security === 'starttls',
    ignoreTLS: server.security === 'none',
    tls: { servername: server.host, rejectUnauthorized: network.verifyCertificates },
    auth: server.user && server.password ? { user: server.user, pass: server.password } : undefined,
    connectionTimeout: CONNECT_TIMEOUT_MS,
    greetingTimeout: CONNECT_TIMEOUT_MS,
  });
  try {
    await transport.verify();
  } catch (error) {
    throw smtpError(error);
  } finally {
    transport.close();
  }
}

/**
 * SMTP failures: a 4xx reply and network trouble are retried; a 5xx (mailbox unknown, refused) and
 * bad credentials fail the message with the server's own words.
 */
export function smtpError(error: unknown): ChannelError {
  if (error instanceof ChannelError) return error;
  const e = error as { responseCode?: number; response?: string; code?: string; message?: string };
  const reason = (e.response || e.message || String(error)).slice(0, 500);
  if (e.code === 'EAUTH') return new ChannelError(`SMTP login refused: ${reason}`, { code: 'unauthorized', retryable: false });
  if (typeof e.responseCode === 'number') {
    return new ChannelError(reason, { code: `smtp_${e.responseCode}`, retryable: e.responseCode < 500, status: e.responseCode });
  }
  if (e.code === 'EENVELOPE' || e.code === 'EMESSAGE') return new ChannelError(reason, { code: 'invalid_message', retryable: false });
  return new ChannelError(`SMTP server unreachable: ${reason}`, { code: 'network', retryable: true });
}
