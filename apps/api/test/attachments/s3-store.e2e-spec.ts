import { once } from 'node:events';
import { randomBytes, randomInt } from 'node:crypto';
import type { ChannelAccountView, MessageView, ReportExportState, StartChatResult } from '@centralita/contracts';
import { PostgresFileStore, type FileStoreConfig } from '@centralita/contracts/server';
import { startS3Fake, type S3Fake } from '../../../../test/fakes/s3';
import { startWhatsAppFake, type WhatsAppFake } from '../../../../test/fakes/whatsapp-cloud';
import { eventually } from '../../../../test/support/eventually';
import {
  TINY_PNG,
  accountConversations,
  channelDesk,
  channelSuite,
  channelSuiteDatabase,
  connectChannelAccount,
  startChannelApi,
  stopChild,
  webhookUrlOf,
  type ChannelDesk,
  type ChannelSuite,
} from '../channels/support/channel-e2e';
import { spawnChild, type ChildWorker } from '../support/processes';
import { createStaff, data, type StaffMember } from '../support/realtime';
import { bearer, type TestApp } from '../support/test-app';

jest.setTimeout(60_000);
// The worker child and the two refused children compile their sources at once: slow on a loaded machine.
const STARTUP_TIMEOUT_MS = 150_000;

const BUCKET = 'centralita-e2e';
const credentials = { accessKeyId: 'AKIAE2ETEST', secretAccessKey: randomBytes(30).toString('base64') };
const PDF = Buffer.from('%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

/**
 * FILE_STORE=s3 end to end: the real API and the real worker process (both building the store from
 * the same settings) against the S3 fake, which checks every request's SigV4 signature and body hash.
 */
describe('S3 file store (e2e: API, worker process, S3 fake, WhatsApp fake)', () => {
  let s3: S3Fake;
  let wa: WhatsAppFake;
  let suite: ChannelSuite;
  let t: TestApp;
  let worker: ChildWorker | undefined;
  let desk: ChannelDesk;
  let supervisor: StaffMember;
  let account: ChannelAccountView;
  const prefix = `e2e-${randomBytes(3).toString('hex')}`;
  let s3Env: Record<string, string>;

  beforeAll(async () => {
    s3 = await startS3Fake({ buckets: [BUCKET], credentials, region: 'eu-west-3' });
    wa = await startWhatsAppFake({
      phoneNumberId: String(randomInt(100_000_000_000, 999_999_999_999)),
      wabaId: String(randomInt(100_000_000_000, 999_999_999_999)),
    });
    s3Env = {
      FILE_STORE: 's3',
      S3_ENDPOINT: s3.url,
      S3_REGION: 'eu-west-3',
      S3_BUCKET: BUCKET,
      S3_ACCESS_KEY_ID: credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      S3_PREFIX: prefix,
      S3_FORCE_PATH_STYLE: 'on',
    };
    suite = channelSuite('s3', { META_GRAPH_URL: wa.url, META_GRAPH_VERSION: wa.graphVersion });
    const fileStore: FileStoreConfig = {
      driver: 's3',
      s3: { endpoint: s3.url, region: 'eu-west-3', bucket: BUCKET, prefix, forcePathStyle: true, ...credentials },
    };
    // The suite's database first: the worker started before the API uses it too.
    await channelSuiteDatabase(suite);
    worker = spawnChild('report-worker.child.ts', { ...process.env, NODE_ENV: 'test', QUEUE_PREFIX: suite.queuePrefix, ...s3Env });
    t = await startChannelApi(suite, { fileStore });
    await worker.ready;
    desk = await channelDesk(t);
    supervisor = await createStaff(t, desk.tenant, 'SUPER');
    account = await connectChannelAccount(t, desk, {
      kind: 'whatsapp',
      name: 'WhatsApp S3',
      externalAccountId: wa.phoneNumberId,
      settings: { wabaId: wa.wabaId },
      secrets: { accessToken: wa.accessToken, appSecret: wa.appSecret },
    });
    wa.setWebhookUrl(webhookUrlOf(t, account));
  }, STARTUP_TIMEOUT_MS);

  afterAll(async () => {
    await stopChild(worker);
    await t?.close();
    await wa?.close();
    await s3?.close();
  });

  const sql = (text: string, values: unknown[] = []) => t.dataSource.query(text, values) as Promise<Record<string, unknown>[]>;
  const fileRow = async (id: string) =>
    (await sql(`SELECT driver, object_key, lo_oid, byte_size::int AS byte_size FROM stored_files WHERE id = $1`, [id]))[0];
  const fileOfAttachment = async (attachmentId: string) =>
    String((await sql(`SELECT file_id FROM message_attachments WHERE id = $1`, [attachmentId]))[0]!.file_id);
  const download = (url: string, token: string) =>
    t
      .http()
      .get(url)
      .set(bearer(token))
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });

  /** A web-chat conversation held by the desk's agent (as attachments.e2e-spec sets it up). */
  async function heldChat(): Promise<string> {
    const started = data<StartChatResult>(
      await t.http().post('/api/webchat/conversations').send({ attentionLineId: desk.lineId, name: 'Eva' }),
    );
    await sql(`UPDATE conversations SET status = 'Active', agent_id = $2 WHERE id = $1`, [started.conversation.id, desk.agent.userId]);
    return started.conversation.id;
  }
  const agentUpload = (conversationId: string, bytes: Buffer, name: string, type: string) =>
    t
      .http()
      .post(`/api/conversations/${conversationId}/attachments`)
      .set(bearer(desk.agent.token))
      .attach('file', bytes, { filename: name, contentType: type });

  it('keeps an agent’s upload in the bucket (not in pg_largeobject) and serves it to staff with nosniff', async () => {
    const conversationId = await heldChat();
    const message = data<MessageView>(await agentUpload(conversationId, PDF, 'factura.pdf', 'application/pdf'));
    const fileId = await fileOfAttachment(message.attachments[0]!.id);
    const key = `${prefix}/${desk.tenantId}/${fileId}`;
    expect(await fileRow(fileId)).toEqual({ driver: 's3', object_key: key, lo_oid: null, byte_size: PDF.length });
    expect(s3.object(BUCKET, key)!.bytes.equals(PDF)).toBe(true);

    const response = await download(message.attachments[0]!.url, supervisor.token);
    expect(response.status).toBe(200);
    expect((response.body as Buffer).equals(PDF)).toBe(true);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['content-disposition']).toMatch(/^attachment; filename="factura.pdf"/);
    expect(s3.requests.filter((r) => r.key === key).map((r) => `${r.method} ${r.status}`)).toEqual(['PUT 200', 'GET 200']);
  });

  it('fetches a WhatsApp customer’s photo into the bucket at once', async () => {
    const customer = `3469${randomInt(1_000_000, 9_999_999)}`;
    const photo = Buffer.concat([TINY_PNG, Buffer.from('customer photo for s3')]);
    await wa.customerWrites({ from: customer, media: { kind: 'image', bytes: photo, mimeType: 'image/png', caption: 'La caja' } });
    const attachment = await eventually(
      async () => {
        const conversation = (await accountConversations(t.dataSource, account.id)).find((one) => one.contact === customer);
        expect(conversation).toBeDefined();
        const [row] = await sql(
          `SELECT a.id, a.file_id FROM message_attachments a JOIN messages m ON m.id = a.message_id WHERE m.conversation_id = $1`,
          [conversation!.id],
        );
        expect(row).toBeDefined();
        return { id: String(row!.id), fileId: String(row!.file_id) };
      },
      { timeoutMs: 20_000, intervalMs: 50 },
    );
    const key = `${prefix}/${desk.tenantId}/${attachment.fileId}`;
    expect(await fileRow(attachment.fileId)).toMatchObject({ driver: 's3', object_key: key, lo_oid: null, byte_size: photo.length });
    expect(s3.object(BUCKET, key)!.bytes.equals(photo)).toBe(true);
    const response = await download(`/api/attachments/${attachment.id}`, supervisor.token);
    expect(response.status).toBe(200);
    expect((response.body as Buffer).equals(photo)).toBe(true);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it('puts a report export written by the worker process in the bucket, and the API serves it from there', async () => {
    const window = { from: new Date(Date.UTC(2026, 0, 15)).toISOString(), to: new Date(Date.UTC(2026, 0, 16)).toISOString() };
    const started = data<ReportExportState>(
      await t
        .http()
        .post('/api/reports/conversations/exports')
        .set(bearer(supervisor.token))
        .send({ ...window, format: 'csv' }),
    );
    await eventually(
      async () => {
        const state = data<ReportExportState>(await t.http().get(`/api/reports/exports/${started.id}`).set(bearer(supervisor.token)));
        expect(state.status).toBe('done');
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    const fileId = String((await sql(`SELECT file_id FROM report_exports WHERE id = $1`, [started.id]))[0]!.file_id);
    const key = `${prefix}/${desk.tenantId}/${fileId}`;
    expect(await fileRow(fileId)).toMatchObject({ driver: 's3', object_key: key, lo_oid: null });
    const file = await download(`/api/reports/exports/${started.id}/download`, supervisor.token);
    expect(file.status).toBe(200);
    expect((file.body as Buffer).equals(s3.object(BUCKET, key)!.bytes)).toBe(true);
    expect((file.body as Buffer).toString('utf8')).toMatch(/^\uFEFF?"/);
  });

  it('still serves a file written as a large object before the switch to S3', async () => {
    const old = await new PostgresFileStore((text, values) => t.dataSource.query(text, values)).create(desk.tenantId, 'report-export');
    old.stream.end(Buffer.from('"Conversation"\r\n"written before the switch"\r\n'));
    await once(old.stream, 'finish');
    const [{ id: exportId }] = (await sql(
      `INSERT INTO report_exports (tenant_id, user_id, report_type, format, filters, file_name, status, file_id, finished_at)
       VALUES ($1, $2, 'conversations', 'csv', '{}'::jsonb, 'old.csv', 'done', $3, now()) RETURNING id`,
      [desk.tenantId, supervisor.userId, old.id],
    )) as { id: string }[];
    expect((await fileRow(old.id))!.driver).toBe('postgres');
    const file = await download(`/api/reports/exports/${exportId}/download`, supervisor.token);
    expect(file.status).toBe(200);
    expect((file.body as Buffer).toString('utf8')).toBe('"Conversation"\r\n"written before the switch"\r\n');
  });

  it('answers 503 with a plain message (never a 500) when the bucket refuses at run time, and records nothing', async () => {
    const conversationId = await heldChat();
    const stored = data<MessageView>(await agentUpload(conversationId, PDF, 'a.pdf', 'application/pdf'));
    s3.deny('put', 'get');
    try {
      const upload = await agentUpload(conversationId, PDF, 'b.pdf', 'application/pdf');
      expect(upload.status).toBe(503);
      expect(upload.body).toMatchObject({
        errorCode: 'service_unavailable',
        errorMessage: 'The file store is not available at the moment; try again later',
      });
      expect(JSON.stringify(upload.body)).not.toContain(credentials.secretAccessKey);
      const messages = await sql(`SELECT id FROM messages WHERE conversation_id = $1`, [conversationId]);
      expect(messages).toHaveLength(1);
      const got = await download(stored.attachments[0]!.url, supervisor.token);
      expect(got.status).toBe(503);
    } finally {
      s3.allow('put', 'get');
    }
    expect((await download(stored.attachments[0]!.url, supervisor.token)).status).toBe(200);
  });

  it(
    'refuses to start the API or the worker with a wrong secret, naming S3_SECRET_ACCESS_KEY',
    async () => {
      const wrong = {
        ...process.env,
        NODE_ENV: 'test',
        QUEUE_PREFIX: `${suite.queuePrefix}-wrong`,
        ...s3Env,
        S3_SECRET_ACCESS_KEY: 'not-the-secret',
      };
      const api = spawnChild('api.child.ts', wrong);
      const refusedWorker = spawnChild('report-worker.child.ts', wrong);
      for (const child of [api, refusedWorker]) {
        await expect(child.ready).rejects.toThrow(/SignatureDoesNotMatch.*check S3_SECRET_ACCESS_KEY/);
        expect((await child.exited).code).toBe(1);
        expect(child.output()).not.toContain('not-the-secret');
        expect(child.output()).not.toContain(credentials.secretAccessKey);
      }
      // Neither left anything in the bucket: the probe object is deleted, or was never written.
      expect(s3.keys(BUCKET).filter((key) => key.includes('.probe'))).toEqual([]);
    },
    STARTUP_TIMEOUT_MS,
  );
});
