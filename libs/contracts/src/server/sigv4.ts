import { createHash, createHmac } from 'node:crypto';

/**
 * AWS Signature Version 4 (header form), written out so the S3 file store needs no SDK. Each step
 * is exported on its own (canonical request, string to sign, signing key) so the unit spec can hold
 * every one of them against AWS's published examples.
 *
 * Canonical URIs are encoded once, segment by segment, as S3 wants (S3 neither double-encodes nor
 * normalises paths, unlike the other AWS services).
 */

export const SIGV4_ALGORITHM = 'AWS4-HMAC-SHA256';
/** sha256 of zero bytes: the payload hash of every request without a body. */
export const EMPTY_PAYLOAD_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

export interface SigV4Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface SigV4Request {
  method: string;
  /** Path as it goes on the wire before encoding, e.g. `/bucket/prefix/key`. */
  path: string;
  query?: Record<string, string>;
  /** Every header to sign (names in any case); Host must be among them. */
  headers: Record<string, string>;
  /** Hex sha256 of the body (or `UNSIGNED-PAYLOAD`). */
  payloadHash: string;
}

export interface SigV4Scope {
  region: string;
  service: string;
  /** `YYYYMMDDTHHMMSSZ` */
  amzDate: string;
}

export interface SigV4Signature {
  authorization: string;
  signature: string;
  signedHeaders: string;
  canonicalRequest: string;
  stringToSign: string;
}

export const sha256Hex = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();

/** `2015-08-30T12:36:00.000Z` → `20150830T123600Z`. */
export function amzDateOf(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/** RFC 3986 encoding as SigV4 wants it: every byte but A-Z a-z 0-9 - . _ ~ (and `/` when told). */
export function uriEncode(value: string, keepSlash: boolean): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const char = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-._~]/.test(char) || (keepSlash && char === '/')) out += char;
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export function canonicalQuery(query: Record<string, string> = {}): string {
  return Object.entries(query)
    .map(([key, value]) => [uriEncode(key, false), uriEncode(value, false)] as const)
    .sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : av > bv ? 1 : 0) : a < b ? -1 : 1))
    .map(([key, value]) => `${key}=${value}`)
    .join('&');
}

export function canonicalRequestOf(request: SigV4Request): { canonicalRequest: string; signedHeaders: string } {
  const headers = new Map<string, string>();
  for (const [name, value] of Object.entries(request.headers)) {
    const key = name.toLowerCase();
    const clean = String(value).trim().replace(/\s+/g, ' ');
    headers.set(key, headers.has(key) ? `${headers.get(key)},${clean}` : clean);
  }
  const names = [...headers.keys()].sort();
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    request.method.toUpperCase(),
    uriEncode(request.path || '/', true),
    canonicalQuery(request.query),
    names.map((name) => `${name}:${headers.get(name)}\n`).join(''),
    signedHeaders,
    request.payloadHash,
  ].join('\n');
  return { canonicalRequest, signedHeaders };
}

export function credentialScope(scope: SigV4Scope): string {
  return `${scope.amzDate.slice(0, 8)}/${scope.region}/${scope.service}/aws4_request`;
}

export function stringToSignOf(canonicalRequest: string, scope: SigV4Scope): string {
  return [SIGV4_ALGORITHM, scope.amzDate, credentialScope(scope), sha256Hex(canonicalRequest)].join('\n');
}

export function signingKeyOf(secretAccessKey: string, scope: SigV4Scope): Buffer {
  const date = hmac(`AWS4${secretAccessKey}`, scope.amzDate.slice(0, 8));
  return hmac(hmac(hmac(date, scope.region), scope.service), 'aws4_request');
}

export function signSigV4(request: SigV4Request, credentials: SigV4Credentials, scope: SigV4Scope): SigV4Signature {
  const { canonicalRequest, signedHeaders } = canonicalRequestOf(request);
  const stringToSign = stringToSignOf(canonicalRequest, scope);
  const signature = createHmac('sha256', signingKeyOf(credentials.secretAccessKey, scope)).update(stringToSign, 'utf8').digest('hex');
  const authorization = `${SIGV4_ALGORITHM} Credential=${credentials.accessKeyId}/${credentialScope(scope)}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return { authorization, signature, signedHeaders, canonicalRequest, stringToSign };
}
