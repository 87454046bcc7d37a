import { createReadStream } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import { FileStoreError } from './file-store';
import { amzDateOf, EMPTY_PAYLOAD_SHA256, signSigV4 } from './sigv4';

/** Where and as whom the S3 file store writes (FILE_STORE=s3; see file-store-config.ts). */
export interface S3Settings {
  /** `https://s3.<region>.amazonaws.com` unless S3_ENDPOINT names another S3-compatible service. */
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** First segment of every key: `<prefix>/<tenantId>/<fileId>`. */
  prefix: string;
  /** `endpoint/bucket/key` instead of `bucket.endpoint/key` (MinIO, IP endpoints, dotted buckets over TLS). */
  forcePathStyle: boolean;
}

export interface S3ClientOptions {
  /** Attempts per call for 5xx answers (SlowDown included) and dropped connections. */
  attempts?: number;
  /** First backoff; doubled per attempt, with jitter. */
  baseDelayMs?: number;
  /** Socket inactivity before a call is abandoned (and retried). */
  timeoutMs?: number;
  now?: () => Date;
}

/** A body S3 can be sent more than once (retries): bytes in memory, or a spooled temporary file. */
export type S3Body = { bytes: Buffer } | { path: string };

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  response: IncomingMessage;
}

/** What a configuration error tells the operator to check, by S3 error code. */
const CONFIGURATION_HINTS: Record<string, string> = {
  SignatureDoesNotMatch: 'the request signature does not match: check S3_SECRET_ACCESS_KEY (and S3_REGION)',
  InvalidAccessKeyId: 'the access key is unknown: check S3_ACCESS_KEY_ID',
  AccessDenied: 'access was denied: check that S3_ACCESS_KEY_ID may read, write and delete objects in S3_BUCKET',
  NoSuchBucket: 'the bucket does not exist: check S3_BUCKET (and S3_ENDPOINT)',
  AuthorizationHeaderMalformed: 'the bucket is in another region: check S3_REGION',
  PermanentRedirect: 'the bucket must be reached through another endpoint: check S3_ENDPOINT and S3_REGION',
  InvalidBucketName: 'the bucket name is not valid: check S3_BUCKET',
  RequestTimeTooSkewed: "this machine's clock differs too much from S3's: synchronise the clock (NTP)",
  InvalidToken: 'the credentials are not valid: check S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY',
  // A HEAD answer has no body to name the cause.
  Forbidden: 'access was denied: check S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY and their permissions on S3_BUCKET',
};

const RETRIABLE_NETWORK = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function readAll(stream: Readable, limit = 64 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    if (size < limit) chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return Buffer.concat(chunks).toString('utf8');
}

const xmlValue = (xml: string, tag: string): string | undefined => new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml)?.[1];

/**
 * The four object calls the file store needs (PutObject, GetObject, HeadObject, DeleteObject) over
 * S3's REST API, signed with SigV4 (sigv4.ts) on every attempt. 5xx answers (503 SlowDown
 * included) and dropped connections are retried with exponential backoff; S3's own error codes
 * become a FileStoreError naming the setting to check. Secrets never appear in an error.
 */
export class S3Client {
  private readonly endpoint: URL;
  private readonly attempts: number;
  private readonly baseDelayMs: number;
  private readonly timeoutMs: number;
  private readonly now: () => Date;

  constructor(
    readonly settings: S3Settings,
    options: S3ClientOptions = {},
  ) {
    this.endpoint = new URL(settings.endpoint);
    this.attempts = Math.max(1, options.attempts ?? 4);
    this.baseDelayMs = options.baseDelayMs ?? 200;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.now = options.now ?? (() => new Date());
  }

  /** Host and path of a key (virtual-hosted style unless forcePathStyle). */
  locate(key: string): { host: string; path: string } {
    const base = this.endpoint.pathname.replace(/\/+$/, '');
    if (this.settings.forcePathStyle) return { host: this.endpoint.host, path: `${base}/${this.settings.bucket}/${key}` };
    return { host: `${this.settings.bucket}.${this.endpoint.host}`, path: `${base}/${key}` };
  }

  async putObject(key: string, body: S3Body, meta: { contentType: string; contentLength: number; sha256: string }): Promise<void> {
    const answer = await this.call('PUT', key, {
      headers: { 'content-type': meta.contentType, 'content-length': String(meta.contentLength) },
      payloadHash: meta.sha256,
      body,
    });
    answer.response.resume();
    if (answer.status !== 200) throw await this.errorOf('PutObject', key, answer);
  }

  /** The object's bytes as they arrive; null when there is no such key. */
  async getObject(key: string): Promise<{ stream: Readable; contentLength: number } | null> {
    const answer = await this.call('GET', key);
    if (answer.status === 200) return { stream: answer.response, contentLength: Number(answer.headers['content-length'] ?? -1) };
    const error = await this.errorOf('GetObject', key, answer);
    if (error.kind === 'not_found') return null;
    throw error;
  }

  /** Size and type of an object; null when there is no such key. */
  async headObject(key: string): Promise<{ contentLength: number; contentType: string | null } | null> {
    const answer = await this.call('HEAD', key);
    answer.response.resume();
    if (answer.status === 200)
      return { contentLength: Number(answer.headers['content-length'] ?? -1), contentType: answer.headers['content-type'] ?? null };
    if (answer.status === 404) return null;
    throw await this.errorOf('HeadObject', key, answer);
  }

  /** Deletes an object; a key that does not exist is not an error (S3 answers 204 either way). */
  async deleteObject(key: string): Promise<void> {
    const answer = await this.call('DELETE', key);
    answer.response.resume();
    if (answer.status === 204 || answer.status === 200) return;
    const error = await this.errorOf('DeleteObject', key, answer);
    if (error.kind !== 'not_found' || error.storeCode !== 'NoSuchKey') throw error;
  }

  private async call(method: string, key: string, extra: { headers?: Record<string, string>; payloadHash?: string; body?: S3Body } = {}) {
    let lastError: unknown;
    for (let attempt = 1; attempt <= this.attempts; attempt++) {
      if (attempt > 1) {
        const delay = this.baseDelayMs * 2 ** (attempt - 2);
        await sleep(delay / 2 + Math.random() * (delay / 2));
      }
      try {
        const answer = await this.send(method, key, extra);
        if (answer.status < 500 || attempt === this.attempts) return answer;
        // 500, 503 SlowDown, 504: S3 asks for the call again, later.
        lastError = await this.errorOf(method, key, answer);
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (!code || !RETRIABLE_NETWORK.has(code)) throw error;
        lastError = error;
        if (attempt === this.attempts) break;
      }
    }
    if (lastError instanceof FileStoreError) throw lastError;
    throw new FileStoreError(
      'unavailable',
      `S3 (${this.endpoint.origin}) could not be reached after ${this.attempts} attempts: ${(lastError as Error)?.message ?? 'no answer'}`,
    );
  }

  private send(
    method: string,
    key: string,
    extra: { headers?: Record<string, string>; payloadHash?: string; body?: S3Body },
  ): Promise<Answer> {
    const { host, path } = this.locate(key);
    const payloadHash = extra.payloadHash ?? EMPTY_PAYLOAD_SHA256;
    const amzDate = amzDateOf(this.now());
    const headers: Record<string, string> = { host, 'x-amz-content-sha256': payloadHash, 'x-amz-date': amzDate, ...extra.headers };
    const signed = signSigV4(
      { method, path, headers, payloadHash },
      { accessKeyId: this.settings.accessKeyId, secretAccessKey: this.settings.secretAccessKey },
      { region: this.settings.region, service: 's3', amzDate },
    );
    const encodedPath = signed.canonicalRequest.split('\n')[1]!;
    const send = this.endpoint.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<Answer>((resolve, reject) => {
      const outgoing = send(
        {
          protocol: this.endpoint.protocol,
          hostname: this.endpoint.hostname.replace(/^\[|\]$/g, ''),
          port: this.endpoint.port || undefined,
          method,
          path: encodedPath,
          headers: { ...headers, authorization: signed.authorization },
          // Virtual-hosted style over TLS: the certificate names the bucket's host.
          servername: this.endpoint.protocol === 'https:' && !isIP(host.split(':')[0]!) ? host.replace(/:\d+$/, '') : undefined,
        },
        (response) => resolve({ status: response.statusCode ?? 0, headers: response.headers, response }),
      );
      outgoing.setTimeout(this.timeoutMs, () =>
        outgoing.destroy(Object.assign(new Error(`no answer within ${this.timeoutMs} ms`), { code: 'ETIMEDOUT' })),
      );
      outgoing.on('error', reject);
      const body = extra.body;
      if (!body) outgoing.end();
      else if ('bytes' in body) outgoing.end(body.bytes);
      else {
        const file = createReadStream(body.path);
        file.on('error', (error) => outgoing.destroy(error));
        file.pipe(outgoing);
      }
    });
  }

  private async errorOf(operation: string, key: string, answer: Answer): Promise<FileStoreError> {
    const xml = answer.response.readableEnded ? '' : await readAll(answer.response).catch(() => '');
    // HEAD answers carry no body: only the status tells.
    const code =
      xmlValue(xml, 'Code') ?? (answer.status === 404 ? 'NoSuchKey' : answer.status === 403 ? 'Forbidden' : `HTTP ${answer.status}`);
    const where = `${operation} ${this.settings.bucket}/${key}`;
    if (code === 'NoSuchKey') return new FileStoreError('not_found', `${where}: no such key`, code);
    const hint = CONFIGURATION_HINTS[code];
    if (hint) return new FileStoreError('configuration', `S3 refused ${where} (${code}): ${hint}`, code);
    if (answer.status >= 500) return new FileStoreError('unavailable', `S3 failed ${where} (${code}, HTTP ${answer.status})`, code);
    const message = xmlValue(xml, 'Message');
    return new FileStoreError('unavailable', `S3 refused ${where} (${code}, HTTP ${answer.status})${message ? `: ${message}` : ''}`, code);
  }
}
