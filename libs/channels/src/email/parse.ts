import { createHash } from 'node:crypto';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import type { AttachmentKind, EmailAuthVerdict } from '@centralita/contracts';
import { WebhookPayloadError } from '../adapter';

export interface EmailAddress {
  address: string;
  name: string | null;
}

export interface EmailAttachment {
  fileName: string;
  mimeType: string;
  kind: AttachmentKind;
  bytes: Buffer;
  /** Set for an inline part (an image the HTML shows by `cid:`). */
  contentId: string | null;
}

export interface EmailAuthResults {
  spf: EmailAuthVerdict | null;
  dkim: EmailAuthVerdict | null;
  dmarc: EmailAuthVerdict | null;
}

/** A customer's email as the platform keeps it (one RFC 5322 message, parsed by mailparser). */
export interface ParsedEmail {
  /** The Message-ID with its angle brackets; a hash of the message when it has none (`<sha256.…@centralita.invalid>`). */
  messageId: string;
  inReplyTo: string | null;
  /** Oldest first, as the header lists them. */
  references: string[];
  subject: string;
  from: EmailAddress;
  replyTo: EmailAddress[];
  to: EmailAddress[];
  cc: EmailAddress[];
  /** Every recipient address the message names (To, Cc, Delivered-To, X-Original-To), lower-case: reply tokens are read from these. */
  recipients: string[];
  date: Date | null;
  /** The plain text: its new part, and the quoted earlier mails folded away. */
  text: string;
  quoted: string;
  html: string | null;
  auth: EmailAuthResults;
  attachments: EmailAttachment[];
  /** An automatic message (out-of-office, bounce, list traffic): taken in, but never answered automatically. */
  automatic: boolean;
}

/** Largest message read whole (EMAIL_MAX_BYTES, default 25 MB, the usual provider limit). */
export function emailMaxBytes(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.EMAIL_MAX_BYTES);
  return Number.isInteger(value) && value > 0 ? value : 25 * 1024 * 1024;
}

/**
 * Parses one raw message. Throws WebhookPayloadError when it is not a message at all (no header
 * block, no sender): the event is kept with the reason and nothing is stored.
 */
export async function parseEmail(raw: Buffer, options: { authServId?: string } = {}): Promise<ParsedEmail> {
  let mail: ParsedMail;
  try {
    mail = await simpleParser(raw, { skipHtmlToText: false, skipTextLinks: true, keepCidLinks: true });
  } catch (error) {
    throw new WebhookPayloadError(`unreadable email: ${(error as Error).message}`);
  }
  const from = addresses(mail.from)[0];
  if (!from) throw new WebhookPayloadError('the email has no From address');
  const text = typeof mail.text === 'string' ? mail.text.replace(/\r\n/g, '\n') : '';
  const folded = foldQuoted(text);
  const references = messageIds(mail.references);
  const inReplyTo = messageIds(mail.inReplyTo)[0] ?? null;
  const headerLines = mail.headerLines ?? [];
  const header = (name: string) => headerLines.filter((line) => line.key === name).map((line) => unfold(line.line));
  const recipients = [
    ...addresses(mail.to),
    ...addresses(mail.cc),
    ...header('delivered-to').map((line) => ({ address: valueOf(line), name: null })),
    ...header('x-original-to').map((line) => ({ address: valueOf(line), name: null })),
  ]
    .map((one) => one.address.toLowerCase())
    .filter(Boolean);
  const precedence = header('precedence').map(valueOf).join(' ').toLowerCase();
  const autoSubmitted = header('auto-submitted').map(valueOf).join(' ').toLowerCase();
  return {
    messageId: normaliseMessageId(mail.messageId) ?? syntheticMessageId(raw),
    inReplyTo,
    references,
    subject: oneLine(mail.subject ?? '').slice(0, 998),
    from,
    replyTo: addresses(mail.replyTo),
    to: addresses(mail.to),
    cc: addresses(mail.cc),
    recipients: [...new Set(recipients)],
    date: mail.date instanceof Date && !Number.isNaN(mail.date.getTime()) ? mail.date : null,
    text: folded.text,
    quoted: folded.quoted,
    html: typeof mail.html === 'string' && mail.html.trim() ? mail.html : null,
    auth: authenticationResults(header('authentication-results').map(valueOf), options.authServId ?? ''),
    attachments: (mail.attachments ?? []).map((part, index) => ({
      fileName: oneLine(part.filename ?? '') || `attachment-${index + 1}`,
      mimeType: (part.contentType || 'application/octet-stream').toLowerCase(),
      kind: attachmentKindOf(part.contentType ?? ''),
      bytes: part.content,
      contentId: part.contentId ? part.contentId.replace(/^<|>$/g, '') : null,
    })),
    automatic:
      (autoSubmitted !== '' && autoSubmitted !== 'no') ||
      /\b(bulk|junk|list|auto_reply)\b/.test(precedence) ||
      header('x-autoreply').length > 0 ||
      header('x-autorespond').length > 0,
  };
}

/** The Message-ID the platform keys a message by when it has none: the same bytes give the same id. */
export function syntheticMessageId(raw: Buffer): string {
  return `<sha256.${createHash('sha256').update(raw).digest('hex').slice(0, 40)}@centralita.invalid>`;
}

/** `<id>` as found in a header (angle brackets added when missing); null when there is none. */
export function normaliseMessageId(value: string | null | undefined): string | null {
  const raw = (value ?? '').trim();
  if (!raw) return null;
  const inner = raw.replace(/^<+|>+$/g, '').trim();
  if (!inner || /[\s<>]/.test(inner) || inner.length > 500) return null;
  return `<${inner}>`;
}

/** Every `<id>` of a References or In-Reply-To value (mailparser answers a string, an array or nothing). */
export function messageIds(value: string | string[] | undefined): string[] {
  const text = Array.isArray(value) ? value.join(' ') : (value ?? '');
  const found = text.match(/<[^<>\s]{1,500}>/g) ?? [];
  if (found.length) return found;
  // Some clients send ids without brackets.
  return text
    .split(/[\s,]+/)
    .map((one) => normaliseMessageId(one))
    .filter((one): one is string => one !== null);
}

function addresses(value: AddressObject | AddressObject[] | undefined): EmailAddress[] {
  const list = Array.isArray(value) ? value : value ? [value] : [];
  const out: EmailAddress[] = [];
  const walk = (entries: { address?: string; name?: string; group?: unknown[] }[]) => {
    for (const entry of entries) {
      if (Array.isArray(entry.group)) walk(entry.group as typeof entries);
      else if (entry.address) out.push({ address: entry.address.trim(), name: oneLine(entry.name ?? '') || null });
    }
  };
  for (const object of list) walk(object.value ?? []);
  return out;
}

function oneLine(text: string): string {
  return text.replace(/[\r\n\t\0]+/g, ' ').trim();
}

/** A raw header line without its name. */
function valueOf(line: string): string {
  const colon = line.indexOf(':');
  return (colon === -1 ? line : line.slice(colon + 1)).trim();
}

function unfold(line: string): string {
  return line.replace(/\r?\n[ \t]+/g, ' ');
}

const VERDICTS: readonly EmailAuthVerdict[] = ['pass', 'fail', 'softfail', 'neutral', 'none', 'temperror', 'permerror', 'policy'];

/**
 * The SPF, DKIM and DMARC verdicts of the Authentication-Results header (RFC 8601) the mailbox's
 * own server added. Anyone can put such a header in a message, so only one is read: the one whose
 * authserv-id is `authServId` when the account names its server, else the top-most (the last hop
 * prepends its own). DKIM with several signatures: pass if any passed, else the first verdict.
 */
export function authenticationResults(headers: string[], authServId: string): EmailAuthResults {
  const empty: EmailAuthResults = { spf: null, dkim: null, dmarc: null };
  const chosen = authServId
    ? headers.find((value) => value.split(';')[0]!.trim().split(/\s+/)[0]!.toLowerCase() === authServId)
    : headers[0];
  if (!chosen) return empty;
  const results: EmailAuthResults = { ...empty };
  // Comments in parentheses may contain anything, ";" included.
  const clauses = chosen
    .replace(/\([^()]*\)/g, ' ')
    .split(';')
    .slice(1);
  for (const clause of clauses) {
    const match = /^\s*(spf|dkim|dmarc)\s*=\s*([a-z]+)/i.exec(clause);
    if (!match) continue;
    const method = match[1]!.toLowerCase() as keyof EmailAuthResults;
    const verdict = match[2]!.toLowerCase() as EmailAuthVerdict;
    if (!VERDICTS.includes(verdict)) continue;
    if (method === 'dkim' && results.dkim === 'pass') continue;
    if (results[method] === null || (method === 'dkim' && verdict === 'pass')) results[method] = verdict;
  }
  return results;
}

/** The lines that start a quoted earlier message, in the languages of the console and the big clients. */
const QUOTE_HEADERS: RegExp[] = [
  // Gmail, Apple Mail, Thunderbird: "On <date>, <name> wrote:" and its translations.
  /^(On|El|Le|Am|Il|Στις|Дана|Dana|Op)\b.{0,300}(wrote|escribió|a écrit|schrieb|ha scritto|έγραψε|написао|napisao|пишет|писал|schreef)\s*:?\s*$/i,
  /^-{2,}\s*(Original Message|Mensaje original|Message d'origine|Ursprüngliche Nachricht|Messaggio originale|Исходное сообщение|Αρχικό μήνυμα|Originalna poruka)\s*-{2,}\s*$/i,
  /^-{2,}\s*(Forwarded message|Mensaje reenviado)\s*-{2,}\s*$/i,
  /^_{20,}\s*$/,
];
/** Outlook's reply header: "From: …" followed within a few lines by "Sent:"/"Date:" (and translations). */
const OUTLOOK_FROM = /^\*?(From|De|Von|Da|От|Από|Od)\s*:\*?\s+\S/i;
const OUTLOOK_SENT = /^\*?(Sent|Date|Enviado|Enviado el|Fecha|Gesendet|Inviato|Data|Отправлено|Дата|Στάλθηκε|Poslato|Envoyé)\s*:\*?\s/i;

/**
 * Splits a reply into what the customer wrote and the earlier mails it quotes (Gmail's
 * "On … wrote:", Outlook's "From:/Sent:" block or its line, "-----Original Message-----", and
 * trailing ">" quoting). The quoted part is kept (the desk shows it folded), never dropped.
 */
export function foldQuoted(text: string): { text: string; quoted: string } {
  const lines = text.split('\n');
  let cut = -1;
  for (let index = 0; index < lines.length && cut === -1; index++) {
    const line = lines[index]!.trim();
    const joined = `${line} ${lines[index + 1]?.trim() ?? ''}`.trim();
    if (QUOTE_HEADERS.some((pattern) => pattern.test(line))) cut = index;
    else if (/^(On|El|Le|Am|Il)\b/i.test(line) && QUOTE_HEADERS[0]!.test(joined)) cut = index;
    else if (OUTLOOK_FROM.test(line) && lines.slice(index + 1, index + 5).some((next) => OUTLOOK_SENT.test(next.trim()))) cut = index;
  }
  if (cut === -1) {
    // Only ">" lines (and blanks) from some point to the end: a bottom-quoted reply's quote.
    let start = lines.length;
    for (let index = lines.length - 1; index >= 0; index--) {
      const line = lines[index]!.trim();
      if (line === '' || line.startsWith('>')) start = index;
      else break;
    }
    if (start < lines.length && lines.slice(start).some((line) => line.trim().startsWith('>'))) cut = start;
  }
  if (cut <= 0) return cut === 0 ? { text: '', quoted: text.trim() } : { text: text.trim(), quoted: '' };
  return { text: lines.slice(0, cut).join('\n').trim(), quoted: lines.slice(cut).join('\n').trim() };
}

/** The attachment kind the desk shows a part as. */
export function attachmentKindOf(mimeType: string): AttachmentKind {
  const type = mimeType.toLowerCase();
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('audio/')) return 'audio';
  if (type.startsWith('video/')) return 'video';
  return 'document';
}

/** Reply tokens: `local+r<token>@domain` (RFC 5233 sub-addressing) among the recipients; the token, lower-case. */
export function replyTokensOf(recipients: string[]): string[] {
  const tokens: string[] = [];
  for (const recipient of recipients) {
    const match = /^[^@+\s]+\+r([a-z0-9]{16,40})@/i.exec(recipient);
    if (match) tokens.push(match[1]!.toLowerCase());
  }
  return tokens;
}

/** `local+r<token>@domain` for an address and a token. */
export function replyAddress(address: string, token: string): string {
  const at = address.lastIndexOf('@');
  const local = address.slice(0, at).split('+')[0];
  return `${local}+r${token}@${address.slice(at + 1)}`;
}

/**
 * What a conversation message shows of an email (the message list's line, the notification):
 * the subject, then the new text, cut to `limit` characters.
 */
export function emailPreview(input: { subject: string; text: string; html: string | null }, limit: number): string {
  const body = input.text.trim() || (input.html ? htmlToPlain(input.html) : '');
  const joined = [input.subject.trim(), body].filter(Boolean).join('\n');
  const characters = Array.from(joined);
  return characters.length <= limit ? joined : `${characters.slice(0, limit - 1).join('')}…`;
}

/** A rough plain text of HTML for previews only (never shown as HTML). */
export function htmlToPlain(html: string): string {
  return html
    .replace(/<(script|style|head)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<br\s*\/?>|<\/p>|<\/div>/gi, '\n')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+/g, ' ')
    .replace(/ *\n\s*/g, '\n')
    .trim();
}
