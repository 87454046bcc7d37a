import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { describeIssue, INTEGRATION_KEY_LIMITS, INTEGRATION_KEY_PREFIX, VICIDIAL_API_TOKEN_PREFIX } from '@centralita/contracts';
import type { OutgoingAddressPolicy } from '@centralita/contracts/server';

/**
 * The pure half of the external dialer sign-in: key and link secrets, reading the key from a
 * request, and the callback checks. No I/O here, so each rule has a unit spec.
 */

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** A new integration key (prefix + 256 random bits) and the hint the list shows. */
export function newIntegrationKey(): { key: string; hint: string } {
  const secret = randomBytes(32).toString('base64url');
  return { key: `${INTEGRATION_KEY_PREFIX}${secret}`, hint: `${INTEGRATION_KEY_PREFIX}${secret.slice(0, 6)}` };
}

/** A new link id: 256 random bits, URL-safe (43 characters). */
export function newLinkToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What a link id must look like before it is hashed and looked up (anything else is unknown). */
export const LINK_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The key from `X-Api-Key` or `Authorization: Bearer <key>`; null when neither carries one. */
export function keyFromHeaders(headers: { authorization?: string; apiKey?: string }): string | null {
  const direct = headers.apiKey?.trim();
  if (direct) return direct;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  return match ? match[1] : null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function apiTokenSignature(secret: string, keyId: string, expiresAtMs: number): string {
  return createHmac('sha256', secret).update(`vicidial-api-token:${keyId}:${expiresAtMs}`).digest('base64url');
}

/**
 * The spec's security/GetApiViciToken: a short-lived stand-in for an integration key,
 * `cvt_<key id>.<expiry, epoch ms>.<HMAC-SHA256 of both under the server's secret>`. Nothing is
 * stored: the signature proves the server issued it, and every use looks the key up again, so
 * revoking the key ends its tokens at once.
 */
export function signApiToken(secret: string, keyId: string, expiresAtMs: number): string {
  return `${VICIDIAL_API_TOKEN_PREFIX}${keyId}.${expiresAtMs}.${apiTokenSignature(secret, keyId, expiresAtMs)}`;
}

/** The key id of a token signed with `secret` and not expired at `now`, else null. */
export function verifyApiToken(secret: string, token: string, now: number): string | null {
  if (!token.startsWith(VICIDIAL_API_TOKEN_PREFIX) || token.length > 200) return null;
  const [keyId, expiry, signature, ...rest] = token.slice(VICIDIAL_API_TOKEN_PREFIX.length).split('.');
  if (rest.length || !UUID.test(keyId ?? '') || !/^\d{1,15}$/.test(expiry ?? '') || !signature) return null;
  const expected = Buffer.from(apiTokenSignature(secret, keyId, Number(expiry)));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return Number(expiry) > now ? keyId : null;
}

/** Only keys of our shape are hashed and looked up (an access JWT sent by mistake is not a key). */
export function looksLikeKey(key: string): boolean {
  return key.startsWith(INTEGRATION_KEY_PREFIX) && key.length >= INTEGRATION_KEY_PREFIX.length + 40 && key.length <= 100;
}

/**
 * An allow-list entry: an http(s) origin (scheme, host, optional port) and nothing else. The
 * answer is the canonical origin (`https://Dialer.Example.com:443/` → `https://dialer.example.com`),
 * or null when the text is not one.
 */
export function canonicalOrigin(raw: string): string | null {
  const value = raw.trim();
  if (!value || /[\s\\]/.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) return null;
  return url.origin;
}

export type CallbackCheck = { ok: true; callback: string } | { ok: false; problem: string };

/**
 * Where the browser goes once the agent is signed in. A path on the console itself (`/SoftPhoneNew/Phone`)
 * is always fine. An absolute URL must be http(s) without credentials and either have one of the
 * key's allowed origins or, when the key lists none, pass the outgoing-address policy (no
 * loopback, private or link-local hosts: the dialer's page is somewhere public).
 */
export function checkCallback(raw: string, allowedOrigins: readonly string[], policy: OutgoingAddressPolicy): CallbackCheck {
  const value = raw.trim();
  if (!value) return { ok: false, problem: 'callback is empty' };
  if (value.length > INTEGRATION_KEY_LIMITS.callbackMax)
    return { ok: false, problem: `callback must be at most ${INTEGRATION_KEY_LIMITS.callbackMax} characters` };
  if (/[\s\\]/.test(value) || /[\u0000-\u001f\u007f]/.test(value))
    return { ok: false, problem: 'callback must not contain spaces, control characters or backslashes' };
  if (value.startsWith('/')) {
    if (value.startsWith('//')) return { ok: false, problem: 'callback must be a console path (/…) or an absolute http(s) URL' };
    return { ok: true, callback: value };
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, problem: 'callback must be a console path (/…) or an absolute http(s) URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, problem: 'callback must use http or https' };
  if (url.username || url.password) return { ok: false, problem: 'callback must not carry a user name or password' };
  if (allowedOrigins.length) {
    if (!allowedOrigins.includes(url.origin))
      return { ok: false, problem: `callback origin ${url.origin} is not one of this key's allowed origins` };
    return { ok: true, callback: url.toString() };
  }
  const issue = policy.urlIssue('callback', value, { schemes: ['http', 'https'] });
  if (issue) {
    const text = issue.key === 'pattern' ? 'callback is not a valid http(s) URL' : describeIssue(issue);
    return { ok: false, problem: `${text} (the key allows no private, loopback or link-local hosts; list the dialer's origin on the key)` };
  }
  return { ok: true, callback: url.toString() };
}

/** The link the dialer opens: `<PUBLIC_URL>/session/vicidial/<id>[/<callback, encoded>]`. */
export function linkUrl(publicUrl: string, token: string, callback: string | null): string {
  const base = `${publicUrl.replace(/\/+$/, '')}/session/vicidial/${token}`;
  return callback ? `${base}/${encodeURIComponent(callback)}` : base;
}

/** TypeORM answers an UPDATE … RETURNING with [rows, count] on PostgreSQL, an INSERT with its rows. */
export function returnedRows<T>(result: unknown): T[] {
  const answer = result as unknown[];
  return (Array.isArray(answer[0]) ? answer[0] : answer) as T[];
}
