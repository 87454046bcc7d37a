import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Meta (WhatsApp Cloud API, Messenger, Instagram) signs a webhook with `X-Hub-Signature-256:
 * sha256=<hex HMAC-SHA256 of the app secret over the body as sent>`. Meta sends the body with every
 * non-ASCII character escaped as `\uXXXX` (lower-case hex): verification runs over the bytes as
 * received, never over a re-serialisation.
 */
export function metaSignature(appSecret: string, rawBody: Buffer | string): string {
  return `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
}

/** Constant-time check of an `X-Hub-Signature-256` header over the raw body. */
export function verifyMetaSignature(appSecret: string, rawBody: Buffer, header: string | undefined): boolean {
  if (!appSecret || typeof header !== 'string') return false;
  return constantTimeEqual(metaSignature(appSecret, rawBody), header.trim());
}

/** JSON as Meta sends it: JSON.stringify with every non-ASCII UTF-16 unit escaped as \uXXXX (lower-case hex). */
export function metaJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Equal strings, compared in time independent of where they differ (lengths may leak, contents not). */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}
