import { QUEUES, type ReportExportState } from '@centralita/contracts';
import { PostgresFileStore } from '@centralita/contracts/server';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import ExcelJS from 'exceljs';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { expireReportExports } from '../../../worker/src/reports/report-export';
import { eventually } from '../../../../test/support/eventually';
import { createTenant, createUser, type TestTenant } from '../support/factories';
import { spawnChild, type ChildWorker } from '../support/processes';
import { createLine } from '../support/realtime';
import { bearer, login, startTestApp, type TestApp } from '../support/test-app';

jest.setTimeout(120_000);

// The report window [T, T + 1 day) holds ROWS conversations: a CSV of several store chunks (256 KiB).
const T = Date.UTC(2026, 1, 2, 8);
const WINDOW = { from: new Date(T).toISOString(), to: new Date(T + 24 * 3600 * 1000).toISOString() };
const ROWS = 6000;

/** The whole body as bytes, whatever the content type. */
const bytes = (req: request.Test) =>
  req.buffer(true).parse((res, callback) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => callback(null, Buffer.concat(chunks)));
  });

/**
 * Report files live in one store every process reaches (PostgreSQL large objects): an export the
 * worker process writes downloads byte for byte through a different API process, and its expiry
 * removes the bytes. Each process gets its own REPORT_EXPORT_DIR (what "its own disk" was), so a
 * file kept on one process's disk could not be served by the other.
 */
describe('Shared file store across processes (e2e: two API processes and a worker process)', () => {
  const prefix = `${process.env.QUEUE_PREFIX ?? 'ct'}-files-${randomBytes(3).toString('hex')}`;
  const dirs = ['api-a', 'api-b', 'worker'].map((name) => mkdtempSync(path.join(os.tmpdir(), `centralita-files-${name}-`)));
  let a: TestApp;
  let apiB: ChildWorker;
  let urlB: string;
  let worker: ChildWorker;
  let tenant: TestTenant;
  let supervisor: string;

  const sql = (text: string, values: unknown[] = []) => a.dataSource.query(text, values);
  const largeObjectExists = async (oid: string) =>
    (await sql(`SELECT 1 FROM pg_largeobject_metadata WHERE oid = $1::oid`, [oid])).length === 1;

  beforeAll(async () => {
    process.env.REPORT_EXPORT_DIR = dirs[0];
    a = await startTestApp({ queuePrefix: prefix });
    apiB = spawnChild('api.child.ts', { ...process.env, QUEUE_PREFIX: prefix, REPORT_EXPORT_DIR: dirs[1] });
    worker = spawnChild('report-worker.child.ts', { ...process.env, NODE_ENV: 'test', QUEUE_PREFIX: prefix, REPORT_EXPORT_DIR: dirs[2] });
    await Promise.all([apiB.ready, worker.ready]);
    urlB = /listening (\S+)/.exec(apiB.output())![1]!;

    tenant = await createTenant(a.dataSource);
    const line = await createLine(a.dataSource, tenant, 'Ventas');
    const created = await createUser(a.dataSource, tenant, { role: 'SUPER', name: 'Sofía Supervisora' });
    supervisor = (await login(a, created.email, created.password)).accessToken;
    await sql(
      `INSERT INTO conversations (id, tenant_id, channel, entry_line_id, attention_line_id, status, customer_name, snapshot, version, last_event, created_at)
       SELECT gen_random_uuid(), $1, 'webchat', $2, $2, 'Closed', 'Cliente ' || n, '{"value":"Closed","context":{}}'::jsonb, 1, 'test',
              $3::timestamptz + n * interval '1 second'
         FROM generate_series(1, $4::int) AS n`,
      [tenant.client.id, line, new Date(T).toISOString(), ROWS],
    );
  });
  afterAll(async () => {
    for (const child of [worker, apiB]) {
      if (child?.child.exitCode === null) {
        child.child.kill('SIGTERM');
        await child.exited;
      }
    }
    await a?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** Asked on API A, written by the worker process; answers the finished export's state. */
  async function exportOf(format: 'csv' | 'xlsx', query: Record<string, string> = {}): Promise<ReportExportState> {
    const started = (
      await a
        .http()
        .post('/api/reports/conversations/exports')
        .send({ ...WINDOW, ...query, format })
        .set(bearer(supervisor))
        .expect(200)
    ).body.data as ReportExportState;
    return eventually(
      async () => {
        const state = (await a.http().get(`/api/reports/exports/${started.id}`).set(bearer(supervisor)).expect(200)).body
          .data as ReportExportState;
        expect(state.status).toBe('done');
        return state;
      },
      { timeoutMs: 60_000 },
    );
  }

  const download = (base: 'a' | 'b', id: string) =>
    bytes((base === 'a' ? a.http() : request(urlB)).get(`/api/reports/exports/${id}/download`).set(bearer(supervisor)));

  it('serves an export the worker process wrote, byte for byte, from another API process', async () => {
    const done = await exportOf('csv');
    expect(done).toMatchObject({ rowCount: ROWS, totalRows: ROWS });
    const fromB = await download('b', done.id).expect(200);
    const fromA = await download('a', done.id).expect(200);
    const body = fromB.body as Buffer;
    expect(Buffer.compare(body, fromA.body as Buffer)).toBe(0);
    const [{ byte_size: size, lo_oid: oid }] = await sql(
      `SELECT f.byte_size, f.lo_oid::text FROM report_exports e JOIN stored_files f ON f.id = e.file_id WHERE e.id = $1`,
      [done.id],
    );
    expect(body.length).toBe(Number(size));
    expect(body.length).toBeGreaterThan(2 * 256 * 1024); // three store chunks at least
    expect(fromB.headers['content-length']).toBe(String(body.length));
    expect(fromB.headers['content-type']).toContain('text/csv');
    // The bytes are the large object's, as PostgreSQL holds them.
    const [{ data }] = await sql(`SELECT lo_get($1::oid) AS data`, [oid]);
    expect(Buffer.compare(body, data as Buffer)).toBe(0);
    const lines = body
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    expect(lines).toHaveLength(ROWS + 1);
    expect(lines[1]).toContain('"Cliente 1"');
    expect(lines[ROWS]).toContain(`"Cliente ${ROWS}"`);
  });

  it('serves an XLSX export from another API process', async () => {
    const done = await exportOf('xlsx', { channel: 'webchat' });
    const file = await download('b', done.id).expect(200);
    expect(file.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(file.body as Parameters<typeof workbook.xlsx.load>[0]);
    const sheet = workbook.worksheets[0]!;
    expect(sheet.rowCount).toBe(ROWS + 1);
    expect((sheet.getRow(2).values as unknown[])[6]).toBe('Cliente 1');
  });

  it('removes the file and its large object when the export expires; every process then answers 409', async () => {
    const done = await exportOf('csv', { channel: 'webchat' });
    const [{ file_id: fileId, lo_oid: oid }] = await sql(
      `SELECT e.file_id, f.lo_oid::text FROM report_exports e JOIN stored_files f ON f.id = e.file_id WHERE e.id = $1`,
      [done.id],
    );
    expect(await largeObjectExists(oid)).toBe(true);
    await sql(`UPDATE report_exports SET finished_at = now() - interval '25 hours' WHERE id = $1`, [done.id]);
    const run = (text: string, values: unknown[] = []) => a.dataSource.query(text, values);
    expect(await expireReportExports(run, new PostgresFileStore(run), 24 * 3600 * 1000)).toBe(1);
    expect(await largeObjectExists(oid)).toBe(false);
    expect(await sql(`SELECT 1 FROM stored_files WHERE id = $1`, [fileId])).toEqual([]);
    for (const base of ['a', 'b'] as const) {
      const refused = await download(base, done.id).expect(409);
      expect(JSON.parse((refused.body as Buffer).toString('utf8')).errorMessage).toBe('The export has expired');
    }
  });

  it("replaces a crashed attempt's partial file on retry, and sweeps uploads abandoned past the retention", async () => {
    const run = (text: string, values: unknown[] = []) => a.dataSource.query(text, values);
    const store = new PostgresFileStore(run);
    // A crashed attempt: the export is running with a file that was never completed.
    const partial = await store.create(tenant.client.id, 'report-export');
    await new Promise<void>((resolve, reject) =>
      partial.stream.write(Buffer.alloc(1000, 65), (error) => (error ? reject(error) : resolve())),
    );
    const [{ lo_oid: partialOid }] = await sql(`SELECT lo_oid::text FROM stored_files WHERE id = $1`, [partial.id]);
    const [{ id: exportId }] = await sql(
      `INSERT INTO report_exports (tenant_id, user_id, report_type, format, filters, file_name, status, file_id)
       VALUES ($1, gen_random_uuid(), 'conversations', 'csv', $2::jsonb, 'retry.csv', 'running', $3) RETURNING id`,
      [tenant.client.id, JSON.stringify({ ...WINDOW, channel: 'webchat' }), partial.id],
    );
    // Not downloadable while running, whatever is stored.
    await download('b', exportId).expect(409);
    await a.app.get<Queue>(getQueueToken(QUEUES.reportExport)).add('export', { exportId }, { jobId: exportId });
    await eventually(
      async () => expect((await sql(`SELECT status FROM report_exports WHERE id = $1`, [exportId]))[0].status).toBe('done'),
      { timeoutMs: 60_000 },
    );
    expect(await sql(`SELECT 1 FROM stored_files WHERE id = $1`, [partial.id])).toEqual([]);
    expect(await largeObjectExists(partialOid)).toBe(false);
    const file = await download('b', exportId).expect(200);
    expect((file.body as Buffer).toString('utf8').trimEnd().split('\r\n')).toHaveLength(ROWS + 1);

    // An upload whose writer died before recording it anywhere: swept once older than the retention.
    const abandoned = await store.create(tenant.client.id, 'report-export');
    const [{ lo_oid: abandonedOid }] = await sql(`SELECT lo_oid::text FROM stored_files WHERE id = $1`, [abandoned.id]);
    await expireReportExports(run, store, 24 * 3600 * 1000);
    expect(await largeObjectExists(abandonedOid)).toBe(true);
    await sql(`UPDATE stored_files SET created_at = now() - interval '25 hours' WHERE id = $1`, [abandoned.id]);
    await expireReportExports(run, store, 24 * 3600 * 1000);
    expect(await largeObjectExists(abandonedOid)).toBe(false);
  });

  it("never serves another tenant's file, even by its id", async () => {
    const done = await exportOf('csv', { channel: 'webchat' });
    const [{ file_id: fileId }] = await sql(`SELECT file_id FROM report_exports WHERE id = $1`, [done.id]);
    const other = await createTenant(a.dataSource);
    const store = new PostgresFileStore((text, values) => a.dataSource.query(text, values));
    expect(await store.open(other.client.id, fileId)).toBeNull();
    const own = await store.open(tenant.client.id, fileId);
    expect(own?.byteSize).toBeGreaterThan(0);
    own?.stream.destroy();
  });
});
