import { randomBytes, randomUUID } from 'node:crypto';
import type { CaseOptions, GeoArea, GeoImportState } from '@centralita/contracts';
import { eventually } from '../../../../test/support/eventually';
import { createUser } from '../support/factories';
import { spawnChild, type ChildWorker } from '../support/processes';
import { createTenant, data } from '../support/realtime';
import { bearer, login, startTestApp, type TestApp } from '../support/test-app';

jest.setTimeout(120_000);

describe('Geographic catalogue import (e2e, real worker process)', () => {
  const prefix = `${process.env.QUEUE_PREFIX ?? 'ct'}-geo-${randomBytes(3).toString('hex')}`;
  let t: TestApp;
  let worker: ChildWorker;
  let token: string;
  let foreign: string;

  beforeAll(async () => {
    t = await startTestApp({ queuePrefix: prefix });
    const tenant = await createTenant(t.dataSource);
    const user = await createUser(t.dataSource, tenant, { role: 'AGENT' });
    token = (await login(t, user.email, user.password)).accessToken;
    const other = await createUser(t.dataSource, await createTenant(t.dataSource), { role: 'AGENT' });
    foreign = (await login(t, other.email, other.password)).accessToken;
    worker = spawnChild('../cases/geo-import-worker.child.ts', { ...process.env, NODE_ENV: 'test', QUEUE_PREFIX: prefix });
    await worker.ready;
  });
  afterAll(async () => {
    if (worker?.child.exitCode === null) {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
    await t?.close();
  });

  const upload = async (csv: string): Promise<GeoImportState> =>
    data<GeoImportState>(
      await t
        .http()
        .post('/api/cases/geo/imports')
        .query({ fileName: 'geo.csv' })
        .set(bearer(token))
        .set('Content-Type', 'text/csv')
        .send(Buffer.from(csv, 'utf8')),
    );
  const finished = (id: string) =>
    eventually(
      async () => {
        const state = data<GeoImportState>(await t.http().get(`/api/cases/geo/imports/${id}`).set(bearer(token)));
        expect(['done', 'failed']).toContain(state.status);
        return state;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
  const geo = async (level: string, parentId?: string) =>
    data<GeoArea[]>(
      await t
        .http()
        .get('/api/cases/geo')
        .query(parentId ? { level, parentId } : { level })
        .set(bearer(token)),
    );

  it('completes the seeded catalogue from a spreadsheet of names, matching existing areas instead of doubling them', async () => {
    const options = data<CaseOptions>(await t.http().get('/api/cases/options').set(bearer(token)));
    const alajuela = options.provinces.find((p) => p.name === 'Alajuela')!;
    const csv = [
      'Provincia,Cantón,Distrito',
      'alajuela,Alajuela,Carrizal',
      'Alajuela,ALAJUELA,San José',
      'Islas del Coco,Isla del Coco,',
      '',
    ].join('\r\n');
    const state = await finished((await upload(csv)).id);
    expect(state).toMatchObject({ status: 'done', totalRows: 3, importedAreas: 4, errors: [] });
    expect((await geo('province')).map((p) => p.name)).toEqual([...options.provinces.map((p) => p.name), 'Islas del Coco']);
    const canton = (await geo('canton', alajuela.id)).find((c) => c.name === 'Alajuela')!;
    expect(canton.code).toBe('201');
    expect((await geo('district', canton.id)).map((d) => d.name).sort()).toEqual(['Carrizal', 'San José']);
    // The same file again changes nothing.
    expect(await finished((await upload(csv)).id)).toMatchObject({ status: 'done', importedAreas: 0 });
    expect(await geo('district', canton.id)).toHaveLength(2);
  });

  it('imports nothing when a row has a problem, and names the line', async () => {
    const before = await geo('province');
    const csv = ['province,canton,district', 'Limón,Talamanca,Bratsi', ',Huérfano,', `Guanacaste,${'x'.repeat(130)},`].join('\n');
    const state = await finished((await upload(csv)).id);
    expect(state.status).toBe('failed');
    expect(state.failureCode).toBe('rows_invalid');
    expect(state.errors.map((e) => e.line)).toEqual([3, 4]);
    expect(await geo('province')).toEqual(before);
    const refused = await finished((await upload('name,phone\nAna,88881234\n')).id);
    expect(refused.errors[0]).toMatchObject({ line: 1, reason: expect.stringContaining('province') });
  });

  it("refuses an empty upload with a 400 and answers 404 for another tenant's import", async () => {
    await t.http().post('/api/cases/geo/imports').set(bearer(token)).set('Content-Type', 'text/csv').send(Buffer.alloc(0)).expect(400);
    const mine = await upload('province\nHeredia\n');
    await t.http().get(`/api/cases/geo/imports/${mine.id}`).set(bearer(foreign)).expect(404);
    await t.http().get(`/api/cases/geo/imports/${randomUUID()}`).set(bearer(token)).expect(404);
  });
});
