import { AuditLog } from '../src/modules/admin/audit-log.entity';
import { twoTenants } from './support/factories';
import { bearer, startTestApp, type TestApp } from './support/test-app';

// Argon2 hashing and logins in beforeAll are slow on shared CI machines.
jest.setTimeout(30_000);

describe('Questions and answers (e2e)', () => {
  let t: TestApp;
  let adminA: string;
  let adminB: string;
  let agentA: string;

  beforeAll(async () => {
    t = await startTestApp();
    ({ adminA, adminB, agentA } = await twoTenants(t));
  });
  afterAll(() => t.close());

  it('creates entries that agents find by full-text search, best match first, own tenant only', async () => {
    await t
      .http()
      .post('/api/qna')
      .set(bearer(adminA))
      .send({ question: 'How do I reset my router?', answer: 'Hold the reset button for ten seconds.' })
      .expect(200);
    await t
      .http()
      .post('/api/qna')
      .set(bearer(adminA))
      .send({ question: 'Opening hours', answer: 'We open at nine; the router shop at ten.' })
      .expect(200);
    await t
      .http()
      .post('/api/qna')
      .set(bearer(adminB))
      .send({ question: 'Router of B', answer: 'Secret router answer of tenant B' })
      .expect(200);
    await t
      .http()
      .post('/api/qna')
      .set(bearer(adminA))
      .send({ question: 'Hidden router', answer: 'Inactive router entry', active: false })
      .expect(200);
    const hits = (await t.http().get('/api/qna/search').query({ q: 'reset router' }).set(bearer(agentA)).expect(200)).body.data;
    expect(hits[0].question).toBe('How do I reset my router?');
    const all = (await t.http().get('/api/qna/search').query({ q: 'router' }).set(bearer(agentA)).expect(200)).body.data;
    expect(all.map((hit: { question: string }) => hit.question).sort()).toEqual(['How do I reset my router?', 'Opening hours']);
  });

  it('refuses missing question and answer, and over-long answers', async () => {
    const response = await t
      .http()
      .post('/api/qna')
      .set(bearer(adminA))
      .send({ answer: 'x'.repeat(4001) })
      .expect(400);
    expect(response.body.data.fields).toEqual({ question: ['question is required'], answer: ['answer must be at most 4000 characters'] });
  });

  it("answers 404 for another tenant's entry, 403 for an agent changing it, and audits updates", async () => {
    const other = (await t.http().post('/api/qna').set(bearer(adminB)).send({ question: 'B?', answer: 'B.' }).expect(200)).body.data;
    await t.http().put(`/api/qna/${other.id}`).set(bearer(adminA)).send({ question: 'X', answer: 'Y' }).expect(404);
    await t.http().delete(`/api/qna/${other.id}`).set(bearer(adminA)).expect(404);
    await t.http().post('/api/qna').set(bearer(agentA)).send({ question: 'X', answer: 'Y' }).expect(403);
    const mine = (await t.http().post('/api/qna').set(bearer(adminA)).send({ question: 'Old?', answer: 'Old.' }).expect(200)).body.data;
    await t.http().put(`/api/qna/${mine.id}`).set(bearer(adminA)).send({ question: 'New?', answer: 'New.' }).expect(200);
    const row = await t.dataSource.getRepository(AuditLog).findOneByOrFail({ entityId: mine.id, action: 'update' });
    expect(row.before).toMatchObject({ question: 'Old?' });
    expect(row.after).toMatchObject({ question: 'New?' });
  });
});
