import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { startS3Fake, type S3Fake } from '../../../../test/fakes/s3';
import { checkFileStore, parseFileStoreConfig } from './file-store-config';
import { FileStoreError } from './file-store';
import { S3Client, type S3Settings } from './s3-client';
import { amzDateOf, EMPTY_PAYLOAD_SHA256, signSigV4 } from './sigv4';

const credentials = { accessKeyId: 'AKIACENTRALITATEST', secretAccessKey: randomBytes(30).toString('base64') };
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function text(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

describe(S3Client.name, () => {
  let s3: S3Fake;
  let settings: S3Settings;

  beforeAll(async () => {
    s3 = await startS3Fake({ buckets: ['files', 'other.bucket'], credentials, region: 'eu-south-2' });
    settings = { endpoint: s3.url, region: 'eu-south-2', bucket: 'files', prefix: 'centralita', forcePathStyle: true, ...credentials };
  });
  afterAll(() => s3.close());

  const client = (overrides: Partial<S3Settings> = {}) => new S3Client({ ...settings, ...overrides }, { baseDelayMs: 1 });
  const put = (c: S3Client, key: string, bytes: Buffer, contentType = 'text/plain') =>
    c.putObject(key, { bytes }, { contentType, contentLength: bytes.length, sha256: sha(bytes) });

  it('puts, heads, gets and deletes an object path-style, each call signed and checked by the fake', async () => {
    const c = client();
    const bytes = Buffer.from('hola, ñandú — 你好');
    await put(c, 'centralita/t1/ñ a+b', bytes, 'text/plain; charset=utf-8');
    expect(s3.object('files', 'centralita/t1/ñ a+b')).toMatchObject({ bytes, contentType: 'text/plain; charset=utf-8' });
    expect(await c.headObject('centralita/t1/ñ a+b')).toEqual({ contentLength: bytes.length, contentType: 'text/plain; charset=utf-8' });
    const got = await c.getObject('centralita/t1/ñ a+b');
    expect(got!.contentLength).toBe(bytes.length);
    expect(await text(got!.stream)).toBe('hola, ñandú — 你好');
    await c.deleteObject('centralita/t1/ñ a+b');
    expect(s3.object('files', 'centralita/t1/ñ a+b')).toBeUndefined();
    expect(await c.getObject('centralita/t1/ñ a+b')).toBeNull();
    expect(await c.headObject('centralita/t1/ñ a+b')).toBeNull();
    // Deleting what is not there is not an error (S3 answers 204 either way).
    await c.deleteObject('centralita/t1/ñ a+b');
  });

  it('addresses the bucket as a virtual host unless told to use paths', async () => {
    const c = client({ forcePathStyle: false, bucket: 'other.bucket' });
    expect(c.locate('p/k')).toEqual({ host: `other.bucket.${new URL(s3.url).host}`, path: '/p/k' });
    await put(c, 'p/k', Buffer.from('virtual'));
    expect(s3.object('other.bucket', 'p/k')?.bytes.toString()).toBe('virtual');
    expect(s3.requests.at(-1)).toMatchObject({ method: 'PUT', bucket: 'other.bucket', key: 'p/k', status: 200 });
  });

  it('retries 503 SlowDown and 500 with backoff and succeeds', async () => {
    const c = client();
    const before = s3.requests.length;
    s3.failNext(2);
    s3.failNext(1, { status: 500, code: 'InternalError' });
    await put(c, 'centralita/t1/retried', Buffer.from('x'));
    expect(s3.requests.slice(before).map((r) => r.code ?? r.status)).toEqual(['SlowDown', 'SlowDown', 'InternalError', 200]);
    expect(s3.object('files', 'centralita/t1/retried')).toBeDefined();
  });

  it('gives up after its attempts with an "unavailable" error, never a configuration one', async () => {
    const c = new S3Client(settings, { attempts: 3, baseDelayMs: 1 });
    s3.failNext(3);
    const error = await put(c, 'centralita/t1/never', Buffer.from('x')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileStoreError);
    expect(error).toMatchObject({ kind: 'unavailable', storeCode: 'SlowDown' });
    expect(s3.object('files', 'centralita/t1/never')).toBeUndefined();
  });

  it('names the setting to check when S3 refuses the configuration, and never quotes the secret', async () => {
    const cases: [Partial<S3Settings>, string, RegExp][] = [
      [{ secretAccessKey: 'wrong-secret' }, 'SignatureDoesNotMatch', /check S3_SECRET_ACCESS_KEY/],
      [{ accessKeyId: 'AKIAUNKNOWN' }, 'InvalidAccessKeyId', /check S3_ACCESS_KEY_ID/],
      [{ bucket: 'missing' }, 'NoSuchBucket', /check S3_BUCKET/],
      [{ region: 'us-west-2' }, 'AuthorizationHeaderMalformed', /check S3_REGION/],
    ];
    for (const [overrides, code, hint] of cases) {
      const error = (await put(client(overrides), 'centralita/t1/x', Buffer.from('x')).catch((e: unknown) => e)) as FileStoreError;
      expect(error).toMatchObject({ kind: 'configuration', storeCode: code });
      expect(error.message).toMatch(hint);
      expect(error.message).not.toContain(credentials.secretAccessKey);
      expect(error.message).not.toContain('wrong-secret');
    }
  });

  it('maps AccessDenied on a call to a configuration error naming the permissions', async () => {
    s3.deny('get');
    try {
      await put(client(), 'centralita/t1/denied', Buffer.from('x'));
      const error = (await client()
        .getObject('centralita/t1/denied')
        .catch((e: unknown) => e)) as FileStoreError;
      expect(error).toMatchObject({ kind: 'configuration', storeCode: 'AccessDenied' });
      expect(error.message).toMatch(/S3_ACCESS_KEY_ID may read, write and delete objects in S3_BUCKET/);
    } finally {
      s3.allow('get');
    }
  });

  it('is refused by the fake when the body does not match x-amz-content-sha256', async () => {
    const error = (await client()
      .putObject(
        'centralita/t1/tampered',
        { bytes: Buffer.from('abc') },
        { contentType: 'text/plain', contentLength: 3, sha256: EMPTY_PAYLOAD_SHA256 },
      )
      .catch((e: unknown) => e)) as FileStoreError;
    expect(error).toMatchObject({ storeCode: 'XAmzContentSHA256Mismatch' });
    expect(s3.object('files', 'centralita/t1/tampered')).toBeUndefined();
  });

  it('answers "unavailable" when nothing listens at the endpoint', async () => {
    const error = await new S3Client({ ...settings, endpoint: 'http://127.0.0.1:1' }, { attempts: 2, baseDelayMs: 1 })
      .headObject('k')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'unavailable' });
    expect((error as Error).message).toMatch(/could not be reached after 2 attempts/);
  });

  it('checks the settings at start-up by writing and deleting a probe object', async () => {
    const env = {
      FILE_STORE: 's3',
      S3_ENDPOINT: s3.url,
      S3_REGION: 'eu-south-2',
      S3_BUCKET: 'files',
      S3_ACCESS_KEY_ID: credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'on',
    };
    const problems: string[] = [];
    const config = parseFileStoreConfig(env, problems);
    expect(problems).toEqual([]);
    const before = s3.requests.length;
    await checkFileStore(config, { baseDelayMs: 1 });
    expect(s3.requests.slice(before).map((r) => `${r.method} ${r.status}`)).toEqual(['PUT 200', 'HEAD 200', 'DELETE 204']);
    expect(s3.keys('files').filter((key) => key.includes('.probe'))).toEqual([]);
    const wrong = parseFileStoreConfig({ ...env, S3_SECRET_ACCESS_KEY: 'not-the-secret' }, problems);
    await expect(checkFileStore(wrong, { baseDelayMs: 1 })).rejects.toMatchObject({
      kind: 'configuration',
      message: expect.stringMatching(/SignatureDoesNotMatch.*check S3_SECRET_ACCESS_KEY/),
    });
  });
});

/** The fake recomputes each signature from what it received: a request changed after signing is refused. */
describe('S3 fake', () => {
  let s3: S3Fake;
  beforeAll(async () => {
    s3 = await startS3Fake({ buckets: ['files'], credentials });
  });
  afterAll(() => s3.close());

  /** Signs `signed` headers, then sends `sent` ones (what a tampering proxy would do). */
  function send(
    signed: Record<string, string>,
    sent: Record<string, string>,
    body = Buffer.alloc(0),
  ): Promise<{ status: number; text: string }> {
    const { host } = new URL(s3.url);
    const amzDate = amzDateOf(new Date());
    const headers = { host, 'x-amz-date': amzDate, 'x-amz-content-sha256': sha(body), ...signed };
    const { authorization } = signSigV4({ method: 'PUT', path: '/files/k', headers, payloadHash: sha(body) }, credentials, {
      region: 'us-east-1',
      service: 's3',
      amzDate,
    });
    return new Promise((resolve, reject) => {
      const call = request(`${s3.url}/files/k`, { method: 'PUT', headers: { ...headers, ...sent, authorization } }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      });
      call.on('error', reject);
      call.end(body);
    });
  }

  it('takes a correctly signed request', async () => {
    const body = Buffer.from('ok');
    expect((await send({ 'content-type': 'text/plain', 'content-length': '2' }, {}, body)).status).toBe(200);
  });

  it('answers SignatureDoesNotMatch, with its canonical request, when a signed header changed on the way', async () => {
    const body = Buffer.from('ok');
    const answer = await send({ 'content-type': 'text/plain', 'content-length': '2' }, { 'content-type': 'text/html' }, body);
    expect(answer.status).toBe(403);
    expect(answer.text).toContain('<Code>SignatureDoesNotMatch</Code>');
    expect(answer.text).toContain('content-type:text/html');
  });

  it('refuses an x-amz-* header left out of the signature', async () => {
    const answer = await send({ 'content-length': '0' }, { 'x-amz-meta-owner': 'someone' });
    expect(answer.status).toBe(403);
    expect(answer.text).toContain('<Code>AccessDenied</Code>');
  });
});

describe(parseFileStoreConfig.name, () => {
  const parse = (env: Record<string, string>) => {
    const problems: string[] = [];
    return { config: parseFileStoreConfig(env, problems), problems };
  };
  const s3Env = { FILE_STORE: 's3', S3_BUCKET: 'centralita-files', S3_ACCESS_KEY_ID: 'AKIA1', S3_SECRET_ACCESS_KEY: 's3cr3t' };

  it('is PostgreSQL large objects unless FILE_STORE=s3', () => {
    expect(parse({})).toEqual({ config: { driver: 'postgres' }, problems: [] });
    expect(parse({ FILE_STORE: 'postgres', S3_BUCKET: 'ignored' })).toEqual({ config: { driver: 'postgres' }, problems: [] });
  });

  it('defaults to AWS’s endpoint of the region, the centralita prefix and virtual-hosted style', () => {
    expect(parse({ ...s3Env, S3_REGION: 'eu-west-1' })).toEqual({
      problems: [],
      config: {
        driver: 's3',
        s3: {
          endpoint: 'https://s3.eu-west-1.amazonaws.com',
          region: 'eu-west-1',
          bucket: 'centralita-files',
          accessKeyId: 'AKIA1',
          secretAccessKey: 's3cr3t',
          prefix: 'centralita',
          forcePathStyle: false,
        },
      },
    });
    expect(
      parse({ ...s3Env, S3_PREFIX: '/prod/files/', S3_ENDPOINT: 'http://minio:9000/', S3_FORCE_PATH_STYLE: 'on' }).config,
    ).toMatchObject({
      s3: { prefix: 'prod/files', endpoint: 'http://minio:9000', forcePathStyle: true, region: 'us-east-1' },
    });
  });

  it('names every problem, and never quotes a secret', () => {
    const { problems } = parse({
      FILE_STORE: 's3',
      S3_BUCKET: 'Bad_Bucket',
      S3_ENDPOINT: 'ftp://x',
      S3_FORCE_PATH_STYLE: 'maybe',
      S3_PREFIX: 'a b',
    });
    expect(problems).toEqual([
      'S3_BUCKET must be 3-63 lowercase letters, digits, "." or "-" (got "Bad_Bucket")',
      'S3_ACCESS_KEY_ID is required when FILE_STORE=s3',
      'S3_SECRET_ACCESS_KEY is required when FILE_STORE=s3',
      'S3_ENDPOINT must use http: or https: (got "ftp:")',
      'S3_PREFIX may only contain letters, digits, "!_.*\'()-" and "/" between segments (at most 200 characters)',
      'S3_FORCE_PATH_STYLE must be on or off (got "maybe")',
    ]);
    expect(parse({ FILE_STORE: 'bucket' }).problems).toEqual(['FILE_STORE must be postgres or s3 (got "bucket")']);
    expect(parse({ ...s3Env, S3_ENDPOINT: 'http://127.0.0.1:9000' }).problems).toEqual([
      'S3_FORCE_PATH_STYLE must be on when S3_ENDPOINT is an address (127.0.0.1): a bucket cannot be its subdomain',
    ]);
    const withSecretInUrl = parse({ ...s3Env, S3_ENDPOINT: 'https://user:hunter2@s3.example.com' }).problems;
    expect(withSecretInUrl).toEqual(['S3_ENDPOINT must not carry credentials: use S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY']);
    expect(JSON.stringify(parse({ ...s3Env, S3_BUCKET: '' }).problems)).not.toContain('s3cr3t');
  });
});
