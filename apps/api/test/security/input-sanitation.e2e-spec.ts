import { eventually } from '../../../../test/support/eventually';
import { INPUT_LIMITS } from '../../src/common/input-sanitation';
import { MAX_PAGE } from '../../src/modules/admin/paged-query.dto';
import { User } from '../../src/modules/users/user.entity';
import { createTenant, createUser, type TestTenant } from '../support/factories';
import { OpenApiFuzzer, operationsOf, runFuzz, type FuzzRequest, type OpenApiDocument } from '../support/openapi-fuzz';
import { createCampaign, createLine, createPoll, createStaff } from '../support/realtime';
import { bearer, login, startTestApp, uniqueEmail, type TestApp } from '../support/test-app';

// Argon2 logins in beforeAll and the routing of a chat to an agent are slow on a shared machine.
jest.setTimeout(60_000);

/**
 * Hostile input anywhere gets a clear 400 in the envelope (never a 500, a hang or a crash) and
 * stores nothing: one sanitation layer before every route (NUL, lone surrogates, depth, width,
 * prototype keys), one paging/sorting parser, bounded uploads and survey answers, and a fuzz of
 * every operation the OpenAPI document publishes.
 */
describe('Input sanitation (e2e)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let admin: string;
  let line: string;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t.dataSource);
    const user = await createUser(t.dataSource, tenant, { role: 'ADMIN' });
    admin = (await login(t, user.email, user.password)).accessToken;
    line = await createLine(t.dataSource, tenant, 'Sanitised line');
  });
  afterAll(() => t.close());

  const usersNamed = (email: string) => t.dataSource.getRepository(User).countBy({ email });
  const conversationsOf = async (lineId: string): Promise<number> =>
    (await t.dataSource.query(`SELECT count(*)::int AS n FROM conversations WHERE entry_line_id = $1`, [lineId]))[0].n;

  describe('NUL characters and lone surrogates', () => {
    it('refuses NUL in the public web-chat and registration bodies with a 400 naming the field, storing nothing', async () => {
      const chat = await t.http().post('/api/webchat/conversations').send({ attentionLineId: line, name: 'Eve\u0000' }).expect(400);
      expect(chat.body).toMatchObject({ statusCode: 400, errorCode: 'validation', errorMessage: 'name must not contain NUL characters' });
      expect(chat.body.data.fields).toEqual({ name: ['name must not contain NUL characters'] });
      expect(await conversationsOf(line)).toBe(0);

      const email = uniqueEmail('nul');
      const registration = await t
        .http()
        .post('/api/auth/register')
        .send({ email, username: 'Eve\u0000Mallory', password: 'a long enough passphrase' })
        .expect(400);
      expect(registration.body.errorMessage).toBe('username must not contain NUL characters');
      expect(await usersNamed(email)).toBe(0);
    });

    it('refuses NUL in nested fields, query strings and the path, naming where', async () => {
      const nested = await t
        .http()
        .post('/api/polls')
        .set(bearer(admin))
        .send({ name: 'Poll', lowerRank: 50, upperRank: 50, questions: [{ text: 'Q\u0000', responseType: 'text', options: [] }] })
        .expect(400);
      expect(nested.body.errorMessage).toBe('questions.0.text must not contain NUL characters');
      expect(await t.dataSource.query(`SELECT 1 FROM polls WHERE client_id = $1`, [tenant.client.id])).toEqual([]);

      const query = await t.http().get('/api/users').query({ q: 'a\u0000b' }).set(bearer(admin)).expect(400);
      expect(query.body.errorMessage).toBe('q must not contain NUL characters');

      const path = await t.http().get('/api/webchat/lines/a%00b').expect(400);
      expect(path.body.errorMessage).toBe('The request path must not contain NUL characters');
      const badEncoding = await t.http().get('/api/webchat/lines/%E0%A4%A').expect(400);
      expect(badEncoding.body.errorMessage).toBe('The request path is not valid percent-encoded UTF-8');
    });

    it('refuses a lone surrogate instead of storing a replacement character', async () => {
      const email = uniqueEmail('surrogate');
      const response = await t
        .http()
        .post('/api/auth/register')
        .set('Content-Type', 'application/json')
        .send(`{"email":"${email}","username":"Eve\\ud800","password":"a long enough passphrase"}`)
        .expect(400);
      expect(response.body.errorMessage).toBe('username must be valid Unicode text (it contains a lone surrogate)');
      expect(await usersNamed(email)).toBe(0);
      const chat = await t
        .http()
        .post('/api/webchat/conversations')
        .set('Content-Type', 'application/json')
        .send(`{"attentionLineId":"${line}","name":"\\udfff"}`);
      expect(chat.status).toBe(400);
      expect(await conversationsOf(line)).toBe(0);
    });
  });

  describe('paging', () => {
    it.each([
      ['page', '1e20', 'page must be an integer number'],
      ['page', '0x10', 'page must be an integer number'],
      ['page', String(MAX_PAGE + 1), `page must not be greater than ${MAX_PAGE}`],
      ['page', '0', 'page must not be less than 1'],
      ['pageSize', '1e3', 'pageSize must be an integer number'],
      ['pageSize', '201', 'pageSize must not be greater than 200'],
    ])('answers %s=%s with a 400 naming the bound', async (field, value, message) => {
      for (const route of ['/api/users', '/api/audit', '/api/outbound/templates']) {
        const response = await t
          .http()
          .get(route)
          .query({ [field]: value })
          .set(bearer(admin))
          .expect(400);
        expect(response.body.errorMessage).toBe(message);
      }
    });

    it('answers reports page=1e20 with a 400 too', async () => {
      const response = await t
        .http()
        .get('/api/reports/conversations')
        .query({ from: '2026-01-01T00:00:00Z', to: '2026-02-01T00:00:00Z', page: '1e20' })
        .set(bearer(admin))
        .expect(400);
      expect(response.body.errorMessage).toBe('page must be an integer number');
    });
  });

  describe('sorting', () => {
    it.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', 'propertyIsEnumerable'])(
      'answers sortField=%s (an Object.prototype member) with a 400 naming the allowed fields',
      async (sortField) => {
        const users = await t.http().get('/api/users').query({ sortField }).set(bearer(admin)).expect(400);
        expect(users.body.errorMessage).toBe('sortField must be one of name, email, roleCode, active, lastLoginAt, createdAt');
        const raw = await t.http().get('/api/outbound/templates').query({ sortField }).set(bearer(admin)).expect(400);
        expect(raw.body.errorMessage).toMatch(/^sortField must be one of /);
        const report = await t
          .http()
          .get('/api/reports/conversations')
          .query({ from: '2026-01-01T00:00:00Z', to: '2026-02-01T00:00:00Z', sortField })
          .set(bearer(admin))
          .expect(400);
        expect(report.body.errorMessage).toBe(`sortField must be one of the sortable columns (got "${sortField}")`);
      },
    );
  });

  describe('JSON shape', () => {
    it('answers a deeply nested body with a 400 before validation, and keeps serving', async () => {
      const deep = `{"email":"a@b.c","password":"x","a":${'['.repeat(50_000)}${']'.repeat(50_000)}}`;
      const response = await t.http().post('/api/auth/login').set('Content-Type', 'application/json').send(deep).expect(400);
      expect(response.body.errorMessage).toBe(`The request body is nested too deeply (at most ${INPUT_LIMITS.maxDepth} levels)`);
      await t.http().get('/api/health').expect(200);
    });

    it('answers a body with too many values, or a __proto__ key, with a 400', async () => {
      const wide = Object.fromEntries(Array.from({ length: INPUT_LIMITS.maxValues + 1 }, (_, i) => [`k${i}`, 1]));
      const response = await t.http().post('/api/auth/login').send(wide).expect(400);
      expect(response.body.errorMessage).toBe(`The request body has too many values (at most ${INPUT_LIMITS.maxValues})`);
      const email = uniqueEmail('proto');
      const proto = await t
        .http()
        .post('/api/auth/register')
        .set('Content-Type', 'application/json')
        .send(`{"email":"${email}","username":"Proto","password":"a long enough passphrase","__proto__":{"role":"ADMIN"}}`)
        .expect(400);
      expect(proto.body.errorMessage).toBe('property __proto__ should not exist');
      expect(await usersNamed(email)).toBe(0);
    });

    it('answers numbers beyond 2^53 in a body with a 400 naming the field', async () => {
      const readLine = await createLine(t.dataSource, tenant, 'Read marks');
      const started = await t.http().post('/api/webchat/conversations').send({ attentionLineId: readLine, name: 'Reader' }).expect(200);
      const response = await t
        .http()
        .post('/api/webchat/conversation/read')
        .set(bearer(started.body.data.visitorToken))
        .send({ upToSequence: 1e20 })
        .expect(400);
      expect(response.body.errorMessage).toBe(
        `upToSequence must be a number between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`,
      );
      const big = await t
        .http()
        .post('/api/webchat/conversation/read')
        .set(bearer(started.body.data.visitorToken))
        .send({ upToSequence: 2 ** 40 })
        .expect(400);
      expect(big.body.errorMessage).toBe('upToSequence must not be greater than 2147483647');
      const after = await t
        .http()
        .get('/api/webchat/conversation/messages')
        .query({ after: '1e20' })
        .set(bearer(started.body.data.visitorToken))
        .expect(400);
      expect(after.body.errorMessage).toBe('after must be an integer number');
    });
  });

  describe('ids', () => {
    it('answers null and non-UUID ids in the path, the query and the body with a 400 naming them', async () => {
      for (const id of ['null', 'not-a-uuid', '1e20', 'constructor']) {
        const path = await t.http().get(`/api/users/${id}`).set(bearer(admin)).expect(400);
        expect(path.body.errorMessage).toBe('id must be a UUID');
      }
      const query = await t.http().get('/api/audit').query({ entityId: 'null' }).set(bearer(admin)).expect(400);
      expect(query.body.errorMessage).toBe('entityId must be a UUID');
      for (const attentionLineId of [null, 'not-a-uuid', 42, { id: line }]) {
        const body = await t.http().post('/api/webchat/conversations').send({ attentionLineId, name: 'Ids' }).expect(400);
        expect(body.body.errorMessage).toBe('attentionLineId must be a UUID');
      }
      expect(await conversationsOf(line)).toBe(0);
    });
  });

  describe('file uploads', () => {
    it('answers a phone-list import sent as JSON, a form or multipart with 415 at once, storing nothing', async () => {
      const bodies: [string, string][] = [
        ['application/json', '{"rows":[["+50688880000"]]}'],
        ['application/x-www-form-urlencoded', 'phone=%2B50688880000'],
        [
          'multipart/form-data; boundary=x',
          '--x\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nphone\r\n--x--\r\n',
        ],
        ['text/plain', 'phone\n+50688880000\n'],
      ];
      for (const [contentType, body] of bodies) {
        const response = await t
          .http()
          .post('/api/phone-lists/imports')
          .query({ name: 'Wrong type' })
          .set(bearer(admin))
          .set('Content-Type', contentType)
          .timeout(5_000)
          .send(body)
          .expect(415);
        expect(response.body.errorMessage).toMatch(
          /^The file must be sent as the raw request body with Content-Type application\/octet-stream/,
        );
      }
      expect(await t.dataSource.query(`SELECT 1 FROM phone_list_imports WHERE client_id = $1`, [tenant.client.id])).toEqual([]);
    });
  });

  describe('survey answers', () => {
    it('records each question once for a poll response, and bounds the answer set', async () => {
      const poll = await createPoll(t.dataSource, tenant);
      const duplicate = await t
        .http()
        .post(`/api/polls/${poll.pollId}/responses`)
        .set(bearer(admin))
        .send({
          answers: [
            { questionId: poll.scaleQuestionId, value: '9' },
            { questionId: poll.scaleQuestionId, value: '10' },
          ],
        })
        .expect(400);
      expect(duplicate.body.errorMessage).toBe('answers must answer each question once');
      const flood = await t
        .http()
        .post(`/api/polls/${poll.pollId}/responses`)
        .set(bearer(admin))
        .send({ answers: Array.from({ length: 101 }, () => ({ questionId: poll.textQuestionId, value: 'spam' })) })
        .expect(400);
      expect(flood.body.errorMessage).toBe('answers must contain no more than 100 elements');
      expect(await t.dataSource.query(`SELECT 1 FROM poll_responses WHERE poll_id = $1`, [poll.pollId])).toEqual([]);
    });

    it('lets a visitor answer each survey question once', async () => {
      const poll = await createPoll(t.dataSource, tenant);
      const surveyed = await createLine(t.dataSource, tenant, 'Surveyed line', { pollId: poll.pollId });
      const campaignId = await createCampaign(t.dataSource, tenant, 2);
      const agent = await createStaff(t, tenant, 'AGENT', [surveyed]);
      await t.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId }).expect(200);
      const started = await t.http().post('/api/webchat/conversations').send({ attentionLineId: surveyed, name: 'Surveyed' }).expect(200);
      const visitor = bearer(started.body.data.visitorToken);
      const id = started.body.data.conversation.id as string;
      await t.http().post('/api/webchat/conversation/menu').set(visitor).send({ queryTypeId: 'sales', submenuId: 'new' }).expect(200);
      await eventually(
        async () => expect((await t.dataSource.query(`SELECT status FROM conversations WHERE id = $1`, [id]))[0].status).toBe('Active'),
        { timeoutMs: 20_000 },
      );
      await t.http().post(`/api/agent/conversations/${id}/close`).set(bearer(agent.token)).send({ disposition: 'sold' }).expect(200);

      const answer = { questionId: poll.scaleQuestionId, answer: '9', last: false };
      await t.http().post('/api/webchat/conversation/survey').set(visitor).send(answer).expect(200);
      const again = await t
        .http()
        .post('/api/webchat/conversation/survey')
        .set(visitor)
        .send({ ...answer, answer: '3' })
        .expect(400);
      expect(again.body.errorMessage).toBe('questionId was already answered');
      // Sent at once, still one answer.
      const racing = await Promise.all(
        [1, 2, 3].map(() =>
          t
            .http()
            .post('/api/webchat/conversation/survey')
            .set(visitor)
            .send({ questionId: poll.textQuestionId, answer: 'Twice?', last: false }),
        ),
      );
      expect(racing.map((r) => r.status).sort()).toEqual([200, 400, 400]);
      expect(
        await t.dataSource.query(`SELECT question_id, value FROM poll_responses WHERE conversation_id = $1 ORDER BY value`, [id]),
      ).toEqual([
        { question_id: poll.scaleQuestionId, value: '9' },
        { question_id: poll.textQuestionId, value: 'Twice?' },
      ]);
      const [{ snapshot }] = await t.dataSource.query(`SELECT snapshot FROM conversations WHERE id = $1`, [id]);
      expect(snapshot.context.surveyAnswers).toHaveLength(2);
    });
  });

  describe('every route of the OpenAPI document', () => {
    it('answers hostile variants of every operation below 500, in time, in the envelope, and stays healthy', async () => {
      const fuzzTenant = await createTenant(t.dataSource);
      const fuzzAdmin = await createUser(t.dataSource, fuzzTenant, { role: 'ADMIN' });
      const adminToken = (await login(t, fuzzAdmin.email, fuzzAdmin.password)).accessToken;
      const fuzzLine = await createLine(t.dataSource, fuzzTenant, 'Fuzzed line');
      const started = await t.http().post('/api/webchat/conversations').send({ attentionLineId: fuzzLine, name: 'Fuzz' }).expect(200);
      const visitorToken = started.body.data.visitorToken as string;
      const doc = (await t.http().get('/api/docs-json').expect(200)).body as OpenApiDocument;
      const fuzzer = new OpenApiFuzzer(doc);
      const operations = operationsOf(doc);
      expect(operations.length).toBeGreaterThan(150);
      // Routes that could end or change the caller's own session or account get a throwaway administrator each.
      const throwaway = new Map<string, string>();
      for (const op of operations.filter((candidate) => /\/auth\/|\/users\//.test(candidate.path) && candidate.secured)) {
        const own = await createUser(t.dataSource, fuzzTenant, { role: 'ADMIN' });
        throwaway.set(`${op.method} ${op.path}`, (await login(t, own.email, own.password)).accessToken);
      }
      const tokenFor = (request: FuzzRequest): string | undefined => {
        const { operation } = request;
        // The visitor routes take the visitor token (the OpenAPI document lists them as public).
        if (operation.path.startsWith('/api/webchat/conversation/') || operation.path === '/api/webchat/conversation') return visitorToken;
        if (!operation.secured) return undefined;
        return throwaway.get(`${operation.method} ${operation.path}`) ?? adminToken;
      };
      const requests = operations.flatMap((op) => fuzzer.requests(op));
      const { failures, statuses } = await runFuzz(t.url, requests, tokenFor, { timeoutMs: 10_000 });
      expect(failures).toEqual([]);
      // The hostile variants were answered as refusals, not waved through.
      expect(statuses.get(400) ?? 0).toBeGreaterThan(requests.length / 2);
      await t.http().get('/api/health').expect(200);
      await t.http().get('/api/auth/user-info').set(bearer(adminToken)).expect(200);
    }, 300_000);
  });
});
