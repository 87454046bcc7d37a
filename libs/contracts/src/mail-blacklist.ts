/**
 * The mail blacklist (spec's BlackListMail, issue 20 item 5): addresses a tenant never mails again.
 * Browser-safe part (types, address rules, the refusal texts); the signing of unsubscribe links and
 * the send-time check are Node-only, in `@centralita/contracts/server` (list-unsubscribe.ts).
 */

/** Why an address is on the list. */
export const MAIL_BLACKLIST_REASONS = ['unsubscribe', 'hard_bounce', 'manual', 'complaint'] as const;
export type MailBlacklistReason = (typeof MAIL_BLACKLIST_REASONS)[number];

/** Where an entry came from (free text in the table; these are the platform's own). */
export const MAIL_BLACKLIST_SOURCES = ['link', 'one-click', 'mailto', 'admin', 'import', 'smtp'] as const;

export const MAIL_BLACKLIST_LIMITS = { addressMax: 254, noteMax: 500, importRowsMax: 5000 } as const;

export interface MailBlacklistEntry {
  id: string;
  address: string;
  reason: MailBlacklistReason;
  source: string;
  note: string | null;
  createdBy: string | null;
  createdByName: string | null;
  createdAt: string;
}

export interface MailBlacklistInput {
  address: string;
  reason?: MailBlacklistReason;
  note?: string | null;
}

/** POST /api/mail-blacklist/import: what a CSV (one address per line, or an "email" column) did. */
export interface MailBlacklistImportResult {
  added: number;
  alreadyListed: number;
  invalid: { line: number; value: string }[];
}

/** GET /api/public/unsubscribe/:email?token=: what the public page shows before the recipient confirms. */
export interface UnsubscribeView {
  /** The address, masked (j***@e***.com): the page never shows the whole address to whoever holds the link. */
  maskedAddress: string;
  tenantName: string;
  logoUrl: string | null;
  /** Already on the tenant's list (for any reason): the page says so instead of asking again. */
  unsubscribed: boolean;
}

export interface UnsubscribeResult {
  maskedAddress: string;
  tenantName: string;
  unsubscribed: true;
  /** False when the address was already on the list (the call is idempotent). */
  added: boolean;
}

/** The sent form of an address: trimmed and lower-cased (the table stores it so). */
export function normaliseMailAddress(address: string): string {
  return address.trim().toLowerCase();
}

// One @, something on each side, a dot in the domain, no spaces or angle brackets: the addresses a
// mail header can carry, without pretending to implement RFC 5322.
const ADDRESS = /^[^\s@<>(),;:"\\]+@[^\s@<>(),;:"\\]+\.[^\s@<>(),;:"\\]+$/;

/** Whether `address` can be listed (and mailed): one address, at most 254 characters. */
export function isValidMailAddress(address: string): boolean {
  const value = normaliseMailAddress(address);
  return value.length > 0 && value.length <= MAIL_BLACKLIST_LIMITS.addressMax && ADDRESS.test(value);
}

/** j***@e***.com: enough for the owner to recognise, not enough to read someone else's address. */
export function maskMailAddress(address: string): string {
  const value = normaliseMailAddress(address);
  const at = value.lastIndexOf('@');
  if (at < 1) return '***';
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  const dot = domain.lastIndexOf('.');
  const host = dot > 0 ? domain.slice(0, dot) : domain;
  const tld = dot > 0 ? domain.slice(dot) : '';
  return `${local[0]}***@${host[0] ?? ''}***${tld}`;
}

/** The reason a send to a listed address is refused with (the worker stores it as the delivery error). */
export const MAIL_BLOCKED_MESSAGES: Record<MailBlacklistReason, string> = {
  unsubscribe: 'The recipient unsubscribed from this organisation’s mail (mail blacklist): nothing was sent.',
  hard_bounce: 'The address bounced permanently before (mail blacklist, hard bounce): nothing was sent.',
  complaint: 'The recipient reported this organisation’s mail as spam (mail blacklist): nothing was sent.',
  manual: 'An administrator put this address on the mail blacklist: nothing was sent.',
};
