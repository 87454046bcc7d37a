/**
 * A local S3-compatible object store for tests: a loopback HTTP server that authenticates every
 * request the way S3 does, by recomputing its Signature Version 4 from the bytes it received.
 *
 *   const s3 = await startS3Fake({ buckets: ['files'], credentials: { accessKeyId, secretAccessKey } });
 *   // FILE_STORE=s3 S3_ENDPOINT=s3.url S3_FORCE_PATH_STYLE=on S3_BUCKET=files ...
 *   s3.object('files', 'centralita/<tenant>/<id>')    // { bytes, contentType } or undefined
 *   s3.failNext(2);                                   // the next 2 calls answer 503 SlowDown
 *   s3.failNext(1, { status: 500, code: 'InternalError' });
 *   s3.deny('put');                                   // PutObject answers 403 AccessDenied
 *   s3.requests                                       // method, bucket, key, status of every call
 *   await s3.close();
 *
 * What it checks, as S3 does:
 * - `Authorization: AWS4-HMAC-SHA256 Credential=<id>/<date>/<region>/s3/aws4_request, SignedHeaders=…,
 *   Signature=…`: an unknown key id answers 403 InvalidAccessKeyId; a scope of another region 400
 *   AuthorizationHeaderMalformed; `host` and every `x-amz-*` header must be signed; `x-amz-date`
 *   within 15 minutes (else 403 RequestTimeTooSkewed). The canonical request (method, URI-encoded
 *   path, sorted query, signed headers trimmed, payload hash), string to sign and signing key are
 *   rebuilt here, independently of the client's signer, and a different signature answers 403
 *   SignatureDoesNotMatch with the StringToSign and CanonicalRequest S3 would show.
 * - `x-amz-content-sha256` is required and, on PutObject, must be the sha256 of the body received
 *   (400 XAmzContentSHA256Mismatch) unless UNSIGNED-PAYLOAD; Content-Length must match the body.
 * - Buckets by path (`/bucket/key`) or by virtual host (`bucket.<host>`); an unknown bucket answers
 *   404 NoSuchBucket; GetObject of a missing key 404 NoSuchKey (HeadObject: 404, no body);
 *   DeleteObject answers 204 whether or not the key existed.
 * - Errors are S3's XML `<Error><Code/><Message/>…</Error>` with S3's status codes.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface S3FakeOptions {
  buckets: string[];
  credentials: { accessKeyId: string; secretAccessKey: string };
  region?: string;
  /** Allowed difference between x-amz-date and this clock (S3: 15 minutes). */
  maxSkewMs?: number;
}

export interface S3FakeObject {
  bytes: Buffer;
  contentType: string;
  etag: string;
  lastModified: Date;
}

export interface S3FakeRequest {
  method: string;
  bucket: string | null;
  key: string;
  status: number;
  code?: string;
}

export type S3FakeOperation = 'put' | 'get' | 'head' | 'delete';

export interface S3Fake {
  url: string;
  region: string;
  requests: S3FakeRequest[];
  object(bucket: string, key: string): S3FakeObject | undefined;
  keys(bucket: string): string[];
  /** Puts an object directly, as another client would. */
  putDirect(bucket: string, key: string, bytes: Buffer, contentType?: string): void;
  /** The next `count` authenticated calls fail with this status and code (default 503 SlowDown). */
  failNext(count: number, error?: { status: number; code: string }): void;
  /** Operations the credentials may not perform (403 AccessDenied), until allow(). */
  deny(...operations: S3FakeOperation[]): void;
  allow(...operations: S3FakeOperation[]): void;
  close(): Promise<void>;
}

const MESSAGES: Record<string, string> = {
  AccessDenied: 'Access Denied',
  InvalidAccessKeyId: 'The AWS Access Key Id you provided does not exist in our records.',
  SignatureDoesNotMatch:
    'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
  NoSuchKey: 'The specified key does not exist.',
  NoSuchBucket: 'The specified bucket does not exist',
  SlowDown: 'Please reduce your request rate.',
  InternalError: 'We encountered an internal error. Please try again.',
  RequestTimeTooSkewed: 'The difference between the request time and the current time is too large.',
  XAmzContentSHA256Mismatch: "The provided 'x-amz-content-sha256' header does not match what was computed.",
  AuthorizationHeaderMalformed: 'The authorization header is malformed.',
  InvalidRequest: 'Missing required header for this request: x-amz-content-sha256',
  IncompleteBody: 'You did not provide the number of bytes specified by the Content-Length HTTP header.',
  MethodNotAllowed: 'The specified method is not allowed against this resource.',
};

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** S3's URI encoding (every byte but unreserved characters; `/` kept in paths). */
function awsEncode(value: string, keepSlash: boolean): string {
  return encodeURIComponent(value)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%2F/g, keepSlash ? '/' : '%2F');
}

export async function startS3Fake(options: S3FakeOptions): Promise<S3Fake> {
  const region = options.region ?? 'us-east-1';
  const maxSkewMs = options.maxSkewMs ?? 15 * 60_000;
  const buckets = new Map<string, Map<string, S3FakeObject>>(options.buckets.map((name) => [name, new Map()]));
  const requests: S3FakeRequest[] = [];
  const failures: { status: number; code: string }[] = [];
  const denied = new Set<S3FakeOperation>();
  let listeningHost = '127.0.0.1';

  function answer(res: ServerResponse, log: S3FakeRequest, status: number, code: string, extra: Record<string, string> = {}): void {
    log.status = status;
    log.code = code;
    const body =
      res.req.method === 'HEAD'
        ? ''
        : `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${escapeXml(MESSAGES[code] ?? code)}</Message>${Object.entries(
            extra,
          )
            .map(([tag, value]) => `<${tag}>${escapeXml(value)}</${tag}>`)
            .join('')}<RequestId>${randomBytes(8).toString('hex').toUpperCase()}</RequestId></Error>`;
    res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }

  /** The bucket and key a request names (virtual-hosted when the Host has a bucket label). */
  function target(req: IncomingMessage): { bucket: string | null; key: string; rawPath: string } {
    const rawPath = (req.url ?? '/').split('?')[0]!;
    const hostName = (req.headers.host ?? '').replace(/:\d+$/, '');
    const decoded = rawPath
      .split('/')
      .map((segment) => decodeURIComponent(segment))
      .join('/');
    if (hostName !== listeningHost && hostName.endsWith(`.${listeningHost}`)) {
      return { bucket: hostName.slice(0, -listeningHost.length - 1), key: decoded.replace(/^\//, ''), rawPath };
    }
    const [, bucket = '', ...rest] = decoded.split('/');
    return { bucket: bucket || null, key: rest.join('/'), rawPath };
  }

  /** null when the signature holds, else the error S3 would answer. */
  function authenticate(req: IncomingMessage, rawPath: string): { status: number; code: string; extra?: Record<string, string> } | null {
    const authorization = req.headers.authorization ?? '';
    const match =
      /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/.exec(
        authorization,
      );
    if (!match) return { status: 403, code: 'AccessDenied' };
    const [, accessKeyId, date, scopeRegion, service, signedHeaders, signature] = match as unknown as string[];
    if (accessKeyId !== options.credentials.accessKeyId) return { status: 403, code: 'InvalidAccessKeyId' };
    if (scopeRegion !== region || service !== 's3') return { status: 400, code: 'AuthorizationHeaderMalformed', extra: { Region: region } };
    const payloadHash = req.headers['x-amz-content-sha256'];
    if (typeof payloadHash !== 'string') return { status: 400, code: 'InvalidRequest' };
    const amzDate = req.headers['x-amz-date'];
    if (typeof amzDate !== 'string' || !/^\d{8}T\d{6}Z$/.test(amzDate) || amzDate.slice(0, 8) !== date)
      return { status: 403, code: 'AccessDenied' };
    const at = Date.UTC(
      +amzDate.slice(0, 4),
      +amzDate.slice(4, 6) - 1,
      +amzDate.slice(6, 8),
      +amzDate.slice(9, 11),
      +amzDate.slice(11, 13),
      +amzDate.slice(13, 15),
    );
    if (Math.abs(Date.now() - at) > maxSkewMs) return { status: 403, code: 'RequestTimeTooSkewed' };
    const names = signedHeaders!.split(';');
    const mustSign = ['host', ...Object.keys(req.headers).filter((name) => name.startsWith('x-amz-'))];
    if (mustSign.some((name) => !names.includes(name))) return { status: 403, code: 'AccessDenied' };

    const query = new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
    const canonicalQuery = [...query.entries()]
      .map(([k, v]) => [awsEncode(k, false), awsEncode(v, false)])
      .sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : a[1]! < b[1]! ? -1 : 1))
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
    const canonicalUri = awsEncode(
      rawPath
        .split('/')
        .map((segment) => decodeURIComponent(segment))
        .join('/'),
      true,
    );
    const canonicalHeaders = names
      .map((name) => {
        const value = req.headers[name];
        return `${name}:${(Array.isArray(value) ? value.join(',') : (value ?? '')).trim().replace(/\s+/g, ' ')}\n`;
      })
      .join('');
    const canonicalRequest = [req.method, canonicalUri, canonicalQuery, canonicalHeaders, signedHeaders, payloadHash].join('\n');
    const scope = `${date}/${region}/s3/aws4_request`;
    const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonicalRequest).digest('hex')].join('\n');
    let key: Buffer = createHmac('sha256', `AWS4${options.credentials.secretAccessKey}`).update(date!).digest();
    for (const part of [region, 's3', 'aws4_request']) key = createHmac('sha256', key).update(part).digest();
    const expected = createHmac('sha256', key).update(stringToSign).digest('hex');
    if (expected !== signature)
      return {
        status: 403,
        code: 'SignatureDoesNotMatch',
        extra: { AWSAccessKeyId: accessKeyId!, StringToSign: stringToSign, CanonicalRequest: canonicalRequest },
      };
    return null;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { bucket, key, rawPath } = target(req);
    const log: S3FakeRequest = { method: req.method ?? '', bucket, key, status: 0 };
    requests.push(log);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);

    const refused = authenticate(req, rawPath);
    if (refused) return answer(res, log, refused.status, refused.code, refused.extra);
    const failure = failures.shift();
    if (failure) return answer(res, log, failure.status, failure.code);
    const objects = bucket ? buckets.get(bucket) : undefined;
    if (!objects) return answer(res, log, 404, 'NoSuchBucket', { BucketName: bucket ?? '' });
    const operation = ({ PUT: 'put', GET: 'get', HEAD: 'head', DELETE: 'delete' } as const)[req.method as 'PUT'];
    if (!operation || !key) return answer(res, log, 405, 'MethodNotAllowed');
    if (denied.has(operation)) return answer(res, log, 403, 'AccessDenied');

    if (operation === 'put') {
      const declared = Number(req.headers['content-length']);
      if (!Number.isInteger(declared) || declared !== body.length) return answer(res, log, 400, 'IncompleteBody');
      const payloadHash = req.headers['x-amz-content-sha256'];
      const actual = createHash('sha256').update(body).digest('hex');
      if (payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== actual)
        return answer(res, log, 400, 'XAmzContentSHA256Mismatch', {
          ClientComputedContentSHA256: String(payloadHash),
          S3ComputedContentSHA256: actual,
        });
      const etag = `"${createHash('md5').update(body).digest('hex')}"`;
      objects.set(key, { bytes: body, contentType: req.headers['content-type'] ?? 'binary/octet-stream', etag, lastModified: new Date() });
      log.status = 200;
      res.writeHead(200, { etag, 'content-length': 0 });
      return void res.end();
    }
    if (operation === 'delete') {
      objects.delete(key);
      log.status = 204;
      res.writeHead(204);
      return void res.end();
    }
    const object = objects.get(key);
    if (!object) return answer(res, log, 404, 'NoSuchKey', { Key: key });
    log.status = 200;
    res.writeHead(200, {
      'content-type': object.contentType,
      'content-length': object.bytes.length,
      etag: object.etag,
      'last-modified': object.lastModified.toUTCString(),
      'accept-ranges': 'bytes',
    });
    res.end(operation === 'get' ? object.bytes : undefined);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { address, port } = server.address() as AddressInfo;
  listeningHost = address;

  return {
    url: `http://${address}:${port}`,
    region,
    requests,
    object: (bucket, key) => buckets.get(bucket)?.get(key),
    keys: (bucket) => [...(buckets.get(bucket)?.keys() ?? [])],
    putDirect: (bucket, key, bytes, contentType = 'application/octet-stream') =>
      buckets
        .get(bucket)
        ?.set(key, { bytes, contentType, etag: `"${createHash('md5').update(bytes).digest('hex')}"`, lastModified: new Date() }),
    failNext: (count, error = { status: 503, code: 'SlowDown' }) => {
      for (let i = 0; i < count; i++) failures.push(error);
    },
    deny: (...operations) => operations.forEach((operation) => denied.add(operation)),
    allow: (...operations) => operations.forEach((operation) => denied.delete(operation)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
