import { createHmac, randomBytes } from 'node:crypto';

/**
 * OAuth 1.0a HMAC-SHA1 request signing (RFC 5849), as X documents it in "Creating a signature":
 * collect the query (and form-urlencoded body) parameters and every oauth_* parameter, percent-encode
 * keys and values per RFC 3986, sort them, join them into the parameter string, build the base string
 * `METHOD&enc(base URL)&enc(parameter string)` and sign it with `enc(consumer secret)&enc(token secret)`.
 *
 * X API v2 sends JSON bodies, which are never part of the signature (only
 * application/x-www-form-urlencoded bodies are); query parameters always are.
 */

export interface OAuth1Credentials {
  consumerKey: string;
  consumerSecret: string;
  accessToken: string;
  accessTokenSecret: string;
}

/** RFC 3986 percent-encoding: everything but ALPHA / DIGIT / "-" / "." / "_" / "~", hex in upper case. */
export function percentEncode(value: string): string {
  // encodeURIComponent leaves !'()* unescaped, which RFC 3986 reserves; they must be escaped too.
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * The base string URI (RFC 5849 §3.4.1.2): scheme and host in lower case, the default port dropped,
 * no query and no fragment.
 */
export function baseStringUri(url: URL): string {
  const defaultPort = (url.protocol === 'https:' && url.port === '443') || (url.protocol === 'http:' && url.port === '80');
  const host = url.port && !defaultPort ? `${url.hostname}:${url.port}` : url.hostname;
  return `${url.protocol.toLowerCase()}//${host.toLowerCase()}${url.pathname}`;
}

/** The signature base string of a request with the given parameters (already decoded). */
export function signatureBaseString(method: string, url: URL, parameters: readonly (readonly [string, string])[]): string {
  const normalized = parameters
    .map(([key, value]) => [percentEncode(key), percentEncode(value)] as const)
    // Sorted by encoded key, then by encoded value (RFC 5849 §3.4.1.3.2), byte order.
    .sort(([ka, va], [kb, vb]) => (ka === kb ? compareBytes(va, vb) : compareBytes(ka, kb)))
    .map(([key, value]) => `${key}=${value}`)
    .join('&');
  return `${method.toUpperCase()}&${percentEncode(baseStringUri(url))}&${percentEncode(normalized)}`;
}

function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The HMAC-SHA1 signature (base64) of a base string. */
export function hmacSha1Signature(baseString: string, consumerSecret: string, tokenSecret: string): string {
  return createHmac('sha1', `${percentEncode(consumerSecret)}&${percentEncode(tokenSecret)}`)
    .update(baseString)
    .digest('base64');
}

export interface OAuth1SignInput {
  method: string;
  /** The full request URL; its query parameters are signed. */
  url: string;
  credentials: OAuth1Credentials;
  /** application/x-www-form-urlencoded body parameters, when the request has such a body. */
  formParameters?: Record<string, string>;
  /** Fixed only by tests (the documented example); otherwise 32 random bytes and the current time. */
  nonce?: string;
  timestamp?: string;
}

/** The oauth_* parameters of a signed request, oauth_signature included. */
export function oauth1Parameters(input: OAuth1SignInput): Record<string, string> {
  const url = new URL(input.url);
  const oauth: Record<string, string> = {
    oauth_consumer_key: input.credentials.consumerKey,
    oauth_nonce:
      input.nonce ??
      randomBytes(32)
        .toString('base64')
        .replace(/[^A-Za-z0-9]/g, ''),
    oauth_signature_method: 'HMAC-SHA1',
    oauth_timestamp: input.timestamp ?? String(Math.floor(Date.now() / 1000)),
    oauth_token: input.credentials.accessToken,
    oauth_version: '1.0',
  };
  const parameters: [string, string][] = [
    ...url.searchParams.entries(),
    ...Object.entries(input.formParameters ?? {}),
    ...Object.entries(oauth),
  ];
  const baseString = signatureBaseString(input.method, url, parameters);
  return {
    ...oauth,
    oauth_signature: hmacSha1Signature(baseString, input.credentials.consumerSecret, input.credentials.accessTokenSecret),
  };
}

/** The `Authorization: OAuth …` header value of a signed request. */
export function oauth1AuthorizationHeader(input: OAuth1SignInput): string {
  const parameters = oauth1Parameters(input);
  return `OAuth ${Object.entries(parameters)
    .sort(([a], [b]) => compareBytes(a, b))
    .map(([key, value]) => `${percentEncode(key)}="${percentEncode(value)}"`)
    .join(', ')}`;
}
