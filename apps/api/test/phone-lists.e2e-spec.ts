import { QUEUES } from '@centralita/contracts';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { runPhoneListImport } from '../../worker/src/phone-lists/phone-list-import';
import { xlsx, zip } from '../../worker/src/phone-lists/testing/xlsx-fixture';
import { PhoneList } from '../src/modules/phone-lists/phone-list.entities';
import { twoTenants } from './support/factories';
import { bearer, startTestApp, type TestApp } from './support/test-app';

// Argon2 hashing and logins in beforeAll are slow on shared CI machines.
jest.setTimeout(30_000);

describe('Phone lists import (e2e)', () => {
  let t: TestApp;
  let adminA: string;
  let adminB: string;
  let agentA: string;

  beforeAll(async () => {
    t = await startTestApp();
    ({ adminA, adminB, agentA } = await twoTenants(t));
  });
  afterAll(() => t.close());

  const upload = (token: string, name: string, file: Buffer, fileName = 'list.xlsx') =>
    t
      .http()
      .post('/api/phone-lists/imports')
      .query({ name, fileName, defaultCountry: 'CR' })
      .set(bearer(token))
      .set('Content-Type', 'application/octet-stream')
      .send(file);

  /** The worker's import, run in-process on the test database (the e2e tier starts no worker). */
  const process = (id: string) => runPhoneListImport(t.dataSource, id);

  it('queues an upload and imports every row as E.164 in one go', async () => {
    const state = (
      await upload(
        adminA,
        'Spring callers',
        xlsx([
          ['phone', 'name'],
          ['8888-7777', 'Ana'],
          ['+506 6000 1234', 'Luis'],
        ]),
      ).expect(200)
    ).body.data;
    expect(state).toMatchObject({ status: 'queued', progress: 0, listName: 'Spring callers' });
    const queue = t.app.get<Queue>(getQueueToken(QUEUES.phoneListImport));
    expect((await queue.getJob(state.id))?.data).toEqual({ importId: state.id });
    await process(state.id);
    const done = (await t.http().get(`/api/phone-lists/imports/${state.id}`).set(bearer(adminA)).expect(200)).body.data;
    expect(done).toMatchObject({ status: 'done', progress: 100, importedRows: 2, errorRows: 0 });
    const entries = (await t.http().get(`/api/phone-lists/${done.phoneListId}/entries`).set(bearer(adminA)).expect(200)).body.data;
    expect(entries.items.map((e: { phone: string }) => e.phone)).toEqual(['+50688887777', '+50660001234']);
  });

  it('refuses a phone of 7 digits and duplicates line by line, importing nothing', async () => {
    const state = (
      await upload(adminA, 'Half list', xlsx([['phone'], ['8888-7777'], ['888-7777'], ['+50688887777'], ['6000-1234']])).expect(200)
    ).body.data;
    await process(state.id);
    const failed = (await t.http().get(`/api/phone-lists/imports/${state.id}`).set(bearer(adminA)).expect(200)).body.data;
    expect(failed).toMatchObject({ status: 'failed', importedRows: 0, errorRows: 2, phoneListId: null });
    expect(await t.dataSource.getRepository(PhoneList).countBy({ name: 'Half list' })).toBe(0);
    const csv = await t
      .http()
      .get(`/api/phone-lists/imports/${state.id}/errors.csv`)
      .set(bearer(adminA))
      .set('Accept-Language', 'en')
      .expect(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.headers['content-disposition']).toContain('attachment');
    expect(csv.text).toContain('3,"888-7777","phone must have at least 8 digits"');
    expect(csv.text).toContain('4,"\'+50688887777","duplicate of line 2"');
  });

  it('refuses zip bombs and formula-laden files as a whole', async () => {
    const bomb = zip([{ name: 'xl/worksheets/sheet1.xml', data: Buffer.alloc(20 * 1024 * 1024, 0x20) }]);
    const bombState = (await upload(adminA, 'Bomb', bomb).expect(200)).body.data;
    await process(bombState.id);
    expect((await t.http().get(`/api/phone-lists/imports/${bombState.id}`).set(bearer(adminA))).body.data).toMatchObject({
      status: 'failed',
      failure: expect.stringContaining('zip bomb'),
    });
    const formula = (await upload(adminA, 'Formula', xlsx([['phone'], ['=1+1']])).expect(200)).body.data;
    await process(formula.id);
    expect((await t.http().get(`/api/phone-lists/imports/${formula.id}`).set(bearer(adminA))).body.data.failure).toContain('formulas');
  });

  it('refuses uploads over 5 MB with 413 and a missing list name with 400', async () => {
    await upload(adminA, 'Huge', Buffer.alloc(5 * 1024 * 1024 + 1, 0x41)).expect(413);
    await t
      .http()
      .post('/api/phone-lists/imports')
      .set(bearer(adminA))
      .set('Content-Type', 'application/octet-stream')
      .send(Buffer.from('phone\n88887777'))
      .expect(400);
  });

  it('keeps imports and lists to their tenant and refuses agents', async () => {
    const state = (await upload(adminB, 'B list', Buffer.from('phone\n+50688880000\n')).expect(200)).body.data;
    await process(state.id);
    const done = (await t.http().get(`/api/phone-lists/imports/${state.id}`).set(bearer(adminB)).expect(200)).body.data;
    await t.http().get(`/api/phone-lists/imports/${state.id}`).set(bearer(adminA)).expect(404);
    await t.http().get(`/api/phone-lists/${done.phoneListId}/entries`).set(bearer(adminA)).expect(404);
    await t.http().delete(`/api/phone-lists/${done.phoneListId}`).set(bearer(adminA)).expect(404);
    await upload(agentA, 'Nope', Buffer.from('phone\n88887777')).expect(403);
  });
});
