import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../../../apps/api/src/database/data-source';
import { createTenant } from '../../../../apps/api/test/support/factories';
import { startS3Fake, type S3Fake } from '../../../../test/fakes/s3';
import { FileStoreError, PostgresFileStore, type FileStoreSql } from './file-store';
import { S3Client, type S3Settings } from './s3-client';
import { S3FileStore } from './s3-file-store';

const credentials = { accessKeyId: 'AKIASTORETEST', secretAccessKey: randomBytes(30).toString('base64') };

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The S3 driver of the file store against the S3 fake and the run's real PostgreSQL (stored_files, its trigger and deletion queue). */
describe(S3FileStore.name, () => {
  let db: DataSource;
  let s3: S3Fake;
  let sql: FileStoreSql;
  let settings: S3Settings;
  let store: S3FileStore;
  let tenantId: string;
  let spoolDir: string;
  const prefix = `it-${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    db = createDataSource(process.env.DATABASE_URL!);
    await db.initialize();
    sql = (text, values) => db.query(text, values);
    s3 = await startS3Fake({ buckets: ['files'], credentials });
    settings = { endpoint: s3.url, region: 'us-east-1', bucket: 'files', prefix, forcePathStyle: true, ...credentials };
    spoolDir = mkdtempSync(path.join(tmpdir(), 'centralita-s3-spec-'));
    store = new S3FileStore(sql, new S3Client(settings, { baseDelayMs: 1 }), { memoryBytes: 64 * 1024, spoolDir });
    tenantId = (await createTenant(db)).client.id;
  });
  afterAll(async () => {
    await s3.close();
    await db.destroy();
  });

  const write = async (bytes: Buffer, chunk = bytes.length || 1) => {
    const upload = await store.create(tenantId, 'attachment', { contentType: 'image/png' });
    for (let at = 0; at < bytes.length; at += chunk) {
      if (!upload.stream.write(bytes.subarray(at, at + chunk))) await once(upload.stream, 'drain');
    }
    upload.stream.end();
    await once(upload.stream, 'finish');
    return upload.id;
  };
  const row = async (id: string) =>
    (
      (await db.query(`SELECT driver, object_key, lo_oid, byte_size::int AS byte_size, completed_at FROM stored_files WHERE id = $1`, [
        id,
      ])) as Record<string, unknown>[]
    )[0];
  const queued = async (key: string) =>
    ((await db.query(`SELECT count(*)::int AS n FROM stored_file_deletions WHERE object_key = $1`, [key])) as { n: number }[])[0]!.n;

  it('keeps the bytes in the bucket under <prefix>/<tenant>/<id>, not in a large object, and reads them back', async () => {
    const bytes = randomBytes(1000);
    const id = await write(bytes);
    const key = `${prefix}/${tenantId}/${id}`;
    expect(await row(id)).toMatchObject({ driver: 's3', object_key: key, lo_oid: null, byte_size: 1000, completed_at: expect.any(Date) });
    expect(s3.object('files', key)).toMatchObject({ bytes, contentType: 'image/png' });
    const opened = await store.open(tenantId, id);
    expect(opened!.byteSize).toBe(1000);
    expect((await bytesOf(opened!.stream)).equals(bytes)).toBe(true);
  });

  it('answers null for another tenant’s file, an unknown id and a file still being written', async () => {
    const id = await write(Buffer.from('mine'));
    const other = (await createTenant(db)).client.id;
    expect(await store.open(other, id)).toBeNull();
    expect(await store.open(tenantId, '00000000-0000-4000-8000-000000000000')).toBeNull();
    const pending = await store.create(tenantId, 'attachment');
    pending.stream.write(Buffer.from('half'));
    expect(await store.open(tenantId, pending.id)).toBeNull();
    pending.stream.destroy();
  });

  it('spills a large upload to a private temporary file, PUTs it with its length and sha256, and removes the file', async () => {
    const bytes = randomBytes(300 * 1024 + 17);
    const id = await write(bytes, 10_000);
    expect(s3.object('files', `${prefix}/${tenantId}/${id}`)!.bytes.equals(bytes)).toBe(true);
    expect(await readdir(spoolDir)).toEqual([]);
    expect((await bytesOf((await store.open(tenantId, id))!.stream)).equals(bytes)).toBe(true);
  });

  it('rides out SlowDown on the upload (retried from the spooled bytes)', async () => {
    s3.failNext(2);
    const bytes = randomBytes(100 * 1024);
    const id = await write(bytes, 4096);
    expect((await row(id))!.completed_at).toBeInstanceOf(Date);
    expect(s3.object('files', `${prefix}/${tenantId}/${id}`)!.bytes.equals(bytes)).toBe(true);
  });

  it('leaves the file incomplete (never readable) when S3 refuses the upload, and names the setting', async () => {
    s3.deny('put');
    try {
      const upload = await store.create(tenantId, 'attachment');
      upload.stream.end(Buffer.from('refused'));
      const [error] = (await once(upload.stream, 'error')) as [FileStoreError];
      expect(error).toMatchObject({ kind: 'configuration', storeCode: 'AccessDenied' });
      expect((await row(upload.id))!.completed_at).toBeNull();
      expect(await store.open(tenantId, upload.id)).toBeNull();
    } finally {
      s3.allow('put');
    }
  });

  it('remove deletes the row and the object at once; a missing file is not an error', async () => {
    const id = await write(Buffer.from('bye'));
    const key = `${prefix}/${tenantId}/${id}`;
    await store.remove(id);
    expect(await row(id)).toBeUndefined();
    expect(s3.object('files', key)).toBeUndefined();
    expect(await queued(key)).toBe(0);
    await store.remove(id);
  });

  it('keeps a deletion queued while S3 is down and sends it on the next sweep', async () => {
    const id = await write(Buffer.from('later'));
    const key = `${prefix}/${tenantId}/${id}`;
    s3.failNext(4);
    await store.remove(id);
    expect(await row(id)).toBeUndefined();
    expect(s3.object('files', key)).toBeDefined();
    expect(await queued(key)).toBe(1);
    await store.removeAbandoned(new Date(Date.now() - 3600_000));
    expect(s3.object('files', key)).toBeUndefined();
    expect(await queued(key)).toBe(0);
  });

  it('queues the objects of rows deleted by plain SQL or a tenant’s cascade, and the sweep deletes them', async () => {
    const tenant = (await createTenant(db)).client.id;
    const upload = await store.create(tenant, 'report-export');
    upload.stream.end(Buffer.from('a report'));
    await once(upload.stream, 'finish');
    const byCascade = `${prefix}/${tenant}/${upload.id}`;
    const id = await write(Buffer.from('expired export'));
    const bySql = `${prefix}/${tenantId}/${id}`;
    await db.query(`DELETE FROM stored_files WHERE id = $1`, [id]);
    await db.query(`DELETE FROM clients WHERE id = $1`, [tenant]);
    expect(await queued(bySql)).toBe(1);
    expect(await queued(byCascade)).toBe(1);
    await store.removeAbandoned(new Date(Date.now() - 3600_000));
    expect(s3.object('files', bySql)).toBeUndefined();
    expect(s3.object('files', byCascade)).toBeUndefined();
  });

  it('sweeps a file whose writer died between PutObject and completion, object included', async () => {
    const id = await write(Buffer.from('crashed'));
    const key = `${prefix}/${tenantId}/${id}`;
    // As if the process died after the PUT: the row never became complete.
    await db.query(`UPDATE stored_files SET completed_at = NULL, created_at = now() - interval '2 hours' WHERE id = $1`, [id]);
    expect(await store.removeAbandoned(new Date(Date.now() - 3600_000))).toBeGreaterThanOrEqual(1);
    expect(await row(id)).toBeUndefined();
    expect(s3.object('files', key)).toBeUndefined();
  });

  it('takes the object back when the row was deleted while the bytes travelled', async () => {
    const upload = await store.create(tenantId, 'attachment');
    await db.query(`DELETE FROM stored_files WHERE id = $1`, [upload.id]);
    upload.stream.end(Buffer.from('orphan'));
    const [error] = (await once(upload.stream, 'error')) as [Error];
    expect(error.message).toMatch(/deleted while it was being written/);
    expect(s3.object('files', `${prefix}/${tenantId}/${upload.id}`)).toBeUndefined();
  });

  it('still reads files written as large objects before the switch to S3', async () => {
    const old = await new PostgresFileStore(sql).create(tenantId, 'attachment');
    old.stream.end(Buffer.from('written before S3'));
    await once(old.stream, 'finish');
    expect((await row(old.id))!.driver).toBe('postgres');
    const opened = await store.open(tenantId, old.id);
    expect((await bytesOf(opened!.stream)).toString()).toBe('written before S3');
    await store.remove(old.id);
    expect(await row(old.id)).toBeUndefined();
  });

  it('refuses to serve an object whose size differs from what was written', async () => {
    const id = await write(Buffer.from('twelve bytes'));
    s3.putDirect('files', `${prefix}/${tenantId}/${id}`, Buffer.from('short'));
    await expect(store.open(tenantId, id)).rejects.toMatchObject({
      kind: 'unavailable',
      message: expect.stringMatching(/holds 5 bytes, 12 were written/),
    });
  });
});
