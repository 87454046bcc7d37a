import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { MAIL_BLOCKED_MESSAGES, isValidMailAddress, normaliseMailAddress, type MailBlacklistReason } from '../mail-blacklist';
import { parseConfigEncryptionKey } from './config-crypto';

/**
 * Signed unsubscribe links (issue 20 item 5; RFC 2369 List-Unsubscribe, RFC 8058 one-click).
 *
 * A token is `u1.<tenant id>.<mac>`: the MAC is HMAC-SHA256 over (purpose, tenant, lower-cased
 * address), so a link unsubscribes exactly one address from exactly one tenant's mail, and nobody
 * can forge one for an address they merely know. No expiry (a mail may be read years later); `u1`
 * is the version, so the scheme or key can change later while old links are still recognised.
 *
 * Key: the API and the worker both sign (bulk mail leaves from the worker) and only
 * CONFIG_ENCRYPTION_KEY is shared by both (JWT_SECRET is the API's alone, and random per process
 * when unset). The MAC key is derived from it with HKDF under its own label, so the encryption key
 * itself never signs anything. Rotating CONFIG_ENCRYPTION_KEY invalidates links already sent;
 * recipients then unsubscribe by replying to the mailto address or through the tenant.
 */
export const UNSUBSCRIBE_TOKEN_VERSION = 'u1';
const PURPOSE = 'list-unsubscribe';
const HKDF_INFO = 'centralita/list-unsubscribe/v1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TOKEN = /^u1\.([0-9a-f-]{36})\.([A-Za-z0-9_-]{43})$/;

export class UnsubscribeSigner {
  private readonly key: Buffer | null;

  constructor(env: NodeJS.ProcessEnv = process.env) {
    const raw = env.CONFIG_ENCRYPTION_KEY?.trim();
    this.key = raw ? Buffer.from(hkdfSync('sha256', parseConfigEncryptionKey(raw), Buffer.alloc(0), HKDF_INFO, 32)) : null;
  }

  /** A signer of one given CONFIG_ENCRYPTION_KEY value (tests, tools). */
  static fromKey(raw: string): UnsubscribeSigner {
    return new UnsubscribeSigner({ CONFIG_ENCRYPTION_KEY: raw });
  }

  /** False without CONFIG_ENCRYPTION_KEY: no link can be signed or checked (bulk mail must not leave without one). */
  get configured(): boolean {
    return this.key !== null;
  }

  sign(tenantId: string, address: string): string {
    const tenant = tenantId.toLowerCase();
    if (!UUID.test(tenant)) throw new Error('unsubscribe token: the tenant id must be a UUID');
    return `${UNSUBSCRIBE_TOKEN_VERSION}.${tenant}.${this.mac(tenant, normaliseMailAddress(address))}`;
  }

  /** The tenant a token was signed for, when it is this address's genuine token; otherwise null. */
  verify(token: string, address: string): { tenantId: string } | null {
    if (!this.key || typeof token !== 'string' || typeof address !== 'string') return null;
    const match = TOKEN.exec(token.trim());
    if (!match || !isValidMailAddress(address)) return null;
    const [, tenantId, mac] = match;
    const expected = Buffer.from(this.mac(tenantId, normaliseMailAddress(address)), 'utf8');
    const given = Buffer.from(mac, 'utf8');
    return expected.length === given.length && timingSafeEqual(expected, given) ? { tenantId } : null;
  }

  private mac(tenantId: string, address: string): string {
    if (!this.key) throw new Error('CONFIG_ENCRYPTION_KEY is not set: unsubscribe links cannot be signed');
    return createHmac('sha256', this.key).update(`${PURPOSE}\n${tenantId}\n${address}`, 'utf8').digest('base64url');
  }
}

let defaultSigner: UnsubscribeSigner | null = null;
/** The signer of this process's environment, built once. */
export function unsubscribeSigner(): UnsubscribeSigner {
  defaultSigner ??= new UnsubscribeSigner(process.env);
  return defaultSigner;
}

export interface UnsubscribeHeadersInput {
  tenantId: string;
  /** The recipient (one address). */
  address: string;
  /** The console's public origin (PUBLIC_URL), e.g. https://contact.example.com. */
  publicUrl: string;
  /** Domain of the mailto unsubscribe address (unsubscribe@<domain>), usually the sender's. */
  mailtoDomain: string;
  /** The mailto address's local part (default 'unsubscribe'). */
  mailtoLocalPart?: string;
  /** Language of the public page (?lang=), e.g. the tenant's; the recipient's browser decides otherwise. */
  language?: string;
  signer?: UnsubscribeSigner;
}

/** The https link of the public page, which also takes the RFC 8058 one-click POST. */
export function unsubscribeUrl(input: Omit<UnsubscribeHeadersInput, 'mailtoDomain' | 'mailtoLocalPart'>): string {
  const signer = input.signer ?? unsubscribeSigner();
  const address = normaliseMailAddress(input.address);
  const token = signer.sign(input.tenantId, address);
  const base = input.publicUrl.replace(/\/+$/, '');
  const lang = input.language ? `&lang=${encodeURIComponent(input.language)}` : '';
  return `${base}/session/Unsubscribe/${encodeURIComponent(address)}?token=${token}${lang}`;
}

/**
 * Headers for bulk or campaign mail: List-Unsubscribe with the signed https link and a mailto, and
 * List-Unsubscribe-Post for RFC 8058 one-click (mail providers POST `List-Unsubscribe=One-Click` to
 * the https link; no session, no form). Throws for an address that cannot be listed, or without
 * CONFIG_ENCRYPTION_KEY: bulk mail must not leave without a working way out.
 */
export function unsubscribeHeaders(input: UnsubscribeHeadersInput): { 'List-Unsubscribe': string; 'List-Unsubscribe-Post': string } {
  if (!isValidMailAddress(input.address)) throw new Error(`unsubscribe headers: "${input.address}" is not one mail address`);
  const signer = input.signer ?? unsubscribeSigner();
  const address = normaliseMailAddress(input.address);
  const token = signer.sign(input.tenantId, address);
  const https = unsubscribeUrl({ ...input, signer });
  const domain = input.mailtoDomain.trim().replace(/^@/, '');
  const mailto = `mailto:${input.mailtoLocalPart ?? 'unsubscribe'}@${domain}?subject=${encodeURIComponent(`unsubscribe ${token}`)}`;
  return { 'List-Unsubscribe': `<${https}>, <${mailto}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}

/** The token of a mail sent to the mailto address (its subject is "unsubscribe <token>"), or null. */
export function unsubscribeTokenFromSubject(subject: string): string | null {
  return /(?:^|\s)(u1\.[0-9a-f-]{36}\.[A-Za-z0-9_-]{43})(?:\s|$)/.exec(subject)?.[1] ?? null;
}

/** pg's Pool/Client (answers {rows}) or TypeORM's DataSource/EntityManager (answers the rows). */
export interface SqlRunner {
  query(text: string, values?: unknown[]): Promise<unknown>;
}

const rowsOf = <T>(result: unknown): T[] => (Array.isArray(result) ? (result as T[]) : ((result as { rows?: T[] } | null)?.rows ?? []));

/**
 * Why mail to `address` must not be sent for this tenant (unsubscribed, bounced hard, complained,
 * listed by an administrator), or null. Call it right before each send.
 */
export async function isMailBlocked(db: SqlRunner, tenantId: string, address: string): Promise<MailBlacklistReason | null> {
  const rows = rowsOf<{ reason: MailBlacklistReason }>(
    await db.query(`SELECT reason FROM mail_blacklist WHERE tenant_id = $1 AND address = $2`, [tenantId, normaliseMailAddress(address)]),
  );
  return rows[0]?.reason ?? null;
}

/** The text a refused send is recorded with (English; the console translates by reason where it can). */
export function mailBlockedMessage(reason: MailBlacklistReason): string {
  return MAIL_BLOCKED_MESSAGES[reason];
}

/**
 * Lists an address after a permanent failure (SMTP 5xx), with the server's answer as the note.
 * Idempotent: an address already listed (for any reason) keeps its first entry. Answers whether a
 * row was added.
 */
export async function recordHardBounce(db: SqlRunner, tenantId: string, address: string, detail: string): Promise<boolean> {
  if (!isValidMailAddress(address)) return false;
  const rows = rowsOf<{ id: string }>(
    await db.query(
      `INSERT INTO mail_blacklist (tenant_id, address, reason, source, note)
       VALUES ($1, $2, 'hard_bounce', 'smtp', $3)
       ON CONFLICT (tenant_id, address) DO NOTHING
       RETURNING id`,
      [tenantId, normaliseMailAddress(address), detail.replace(/\u0000/g, '').slice(0, 500) || null],
    ),
  );
  return rows.length > 0;
}
