import { AuditLog } from '../src/modules/admin/audit-log.entity';
import { Poll } from '../src/modules/polls/poll.entities';
import { twoTenants } from './support/factories';
import { bearer, startTestApp, type TestApp } from './support/test-app';

const poll = (overrides: Record<string, unknown> = {}) => ({
  name: 'After-chat survey',
  description: 'Asked when a conversation closes',
  active: true,
  lowerRank: 40,
  upperRank: 60,
  questions: [
    { text: 'How was the service?', responseType: 'single', options: ['Good', 'Bad'] },
    { text: 'Anything else?', responseType: 'text', options: [] },
  ],
  ...overrides,
});

// Argon2 hashing and logins in beforeAll are slow on shared CI machines.
jest.setTimeout(30_000);

describe('Polls administration (e2e)', () => {
  let t: TestApp;
  let adminA: string;
  let adminB: string;
  let agentA: string;

  beforeAll(async () => {
    t = await startTestApp();
    ({ adminA, adminB, agentA } = await twoTenants(t));
  });
  afterAll(() => t.close());

  it('refuses ranks 60 + 30 and stores nothing', async () => {
    const response = await t
      .http()
      .post('/api/polls')
      .set(bearer(adminA))
      .send(poll({ name: 'Bad ranks', lowerRank: 60, upperRank: 30 }))
      .expect(400);
    expect(response.body.errorMessage).toBe('lowerRank and upperRank must sum to 100');
    expect(await t.dataSource.getRepository(Poll).countBy({ name: 'Bad ranks' })).toBe(0);
  });

  it('refuses a poll without questions or with a one-option choice question', async () => {
    await t
      .http()
      .post('/api/polls')
      .set(bearer(adminA))
      .send(poll({ questions: [] }))
      .expect(400);
    const response = await t
      .http()
      .post('/api/polls')
      .set(bearer(adminA))
      .send(poll({ questions: [{ text: 'Pick', responseType: 'single', options: ['Only'] }] }))
      .expect(400);
    expect(response.body.data.fields['questions.0.options']).toEqual(['questions.0.options needs at least 2 options']);
  });

  it('creates a poll, records answers, lists them and counts them per question', async () => {
    const created = (await t.http().post('/api/polls').set(bearer(adminA)).send(poll()).expect(200)).body.data;
    expect(created.questions.map((q: { text: string }) => q.text)).toEqual(['How was the service?', 'Anything else?']);
    const [q1, q2] = created.questions;
    await t
      .http()
      .post(`/api/polls/${created.id}/responses`)
      .set(bearer(agentA))
      .send({
        answers: [
          { questionId: q1.id, value: 'Good' },
          { questionId: q2.id, value: 'Thanks!' },
        ],
      })
      .expect(200);
    await t
      .http()
      .post(`/api/polls/${created.id}/responses`)
      .set(bearer(agentA))
      .send({ answers: [{ questionId: q1.id, value: 'Good' }] })
      .expect(200);
    await t
      .http()
      .post(`/api/polls/${created.id}/responses`)
      .set(bearer(agentA))
      .send({ answers: [{ questionId: q1.id, value: 'Bad' }] })
      .expect(200);
    const answers = (await t.http().get(`/api/polls/${created.id}/answers`).query({ questionId: q1.id }).set(bearer(adminA)).expect(200))
      .body.data;
    expect(answers.total).toBe(3);
    const stats = (await t.http().get(`/api/polls/${created.id}/questions/${q1.id}/stats`).set(bearer(adminA)).expect(200)).body.data;
    expect(stats).toMatchObject({
      total: 3,
      counts: [
        { value: 'Good', count: 2 },
        { value: 'Bad', count: 1 },
      ],
    });

    // Removing an answered question retires it; its answers stay.
    await t
      .http()
      .put(`/api/polls/${created.id}`)
      .set(bearer(adminA))
      .send(poll({ questions: [{ id: q2.id, text: 'Anything else?', responseType: 'text' }] }))
      .expect(200);
    const after = (await t.http().get(`/api/polls/${created.id}`).set(bearer(adminA)).expect(200)).body.data;
    expect(after.questions.map((q: { id: string }) => q.id)).toEqual([q2.id]);
    expect((await t.http().get(`/api/polls/${created.id}/answers`).set(bearer(adminA)).expect(200)).body.data.total).toBe(4);
    const audit = await t.dataSource.getRepository(AuditLog).findOneByOrFail({ entityId: created.id, action: 'update' });
    expect((audit.before as { questionCount: number }).questionCount).toBe(2);
    expect((audit.after as { questionCount: number }).questionCount).toBe(1);
  });

  it('keeps answer groups per tenant', async () => {
    const group = (
      await t
        .http()
        .post('/api/poll-answer-groups')
        .set(bearer(adminA))
        .send({ name: 'Satisfaction', options: ['Happy', 'Sad'] })
        .expect(200)
    ).body.data;
    await t
      .http()
      .post('/api/poll-answer-groups')
      .set(bearer(adminA))
      .send({ name: 'One', options: ['Only'] })
      .expect(400);
    await t
      .http()
      .put(`/api/poll-answer-groups/${group.id}`)
      .set(bearer(adminB))
      .send({ name: 'X', options: ['a', 'b'] })
      .expect(404);
    await t
      .http()
      .post('/api/polls')
      .set(bearer(adminB))
      .send(poll({ questions: [{ text: 'Mood', responseType: 'single', answerGroupId: group.id }] }))
      .expect(404);
    await t
      .http()
      .post('/api/polls')
      .set(bearer(adminA))
      .send(poll({ questions: [{ text: 'Mood', responseType: 'single', answerGroupId: group.id }] }))
      .expect(200);
  });

  it("answers 404 for another tenant's poll and 403 for an agent changing one", async () => {
    const other = (await t.http().post('/api/polls').set(bearer(adminB)).send(poll()).expect(200)).body.data;
    await t.http().get(`/api/polls/${other.id}`).set(bearer(adminA)).expect(404);
    await t.http().put(`/api/polls/${other.id}`).set(bearer(adminA)).send(poll()).expect(404);
    await t.http().delete(`/api/polls/${other.id}`).set(bearer(adminA)).expect(404);
    await t.http().get(`/api/polls/${other.id}/answers`).set(bearer(adminA)).expect(404);
    await t.http().post('/api/polls').set(bearer(agentA)).send(poll()).expect(403);
  });
});
