import { randomInt } from 'node:crypto';
import { AttentionLine } from '../../src/modules/attention-lines/attention-line.entity';
import { AuditLog } from '../../src/modules/admin/audit-log.entity';
import { resolveInboundNumber } from '../../../worker/src/voice/inbound-numbers';
import { twoTenants, type TestTenant } from '../support/factories';
import { bearer, startTestApp, type TestApp } from '../support/test-app';

jest.setTimeout(30_000);

/** A number no other suite holds (the column is unique across the platform). */
const freshDigits = () => `3493${String(randomInt(0, 10_000_000)).padStart(7, '0')}`;

describe('Trunk inbound numbers (e2e)', () => {
  let t: TestApp;
  let adminA: string;
  let adminB: string;
  let agentA: string;
  let tenantA: TestTenant;
  let tenantB: TestTenant;
  let trunkA: string;
  let trunkB: string;
  let ivrA: string;
  let lineA: string;
  let lineB: string;

  const createTrunk = async (token: string, name: string) =>
    (
      await t
        .http()
        .post('/api/trunks')
        .set(bearer(token))
        .send({ name, host: 'sip.example.com', port: 5060, transport: 'udp', maxConcurrentCalls: 10 })
        .expect(200)
    ).body.data.id as string;
  const add = (token: string, trunkId: string, body: Record<string, unknown>) =>
    t.http().post(`/api/trunks/${trunkId}/numbers`).set(bearer(token)).send(body);
  const list = async (token: string, trunkId: string) =>
    (await t.http().get(`/api/trunks/${trunkId}/numbers`).set(bearer(token)).expect(200)).body.data as { number: string; id: string }[];

  beforeAll(async () => {
    t = await startTestApp();
    ({ adminA, adminB, agentA, tenantA, tenantB } = await twoTenants(t));
    trunkA = await createTrunk(adminA, 'Carrier A');
    trunkB = await createTrunk(adminB, 'Carrier B');
    ivrA = (await t.http().post('/api/ivrs').set(bearer(adminA)).send({ name: 'Welcome' }).expect(200)).body.data.id;
    const line = async (tenant: TestTenant, name: string) =>
      (
        await t.dataSource
          .getRepository(AttentionLine)
          .save({ clientId: tenant.client.id, name, type: 'inbound', channel: 'WebChat', internal: false })
      ).id;
    lineA = await line(tenantA, 'Phone sales');
    lineB = await line(tenantB, 'Phone B');
  });
  afterAll(() => t.close());

  it('adds numbers sent to an IVR and to a line, normalised to E.164, lists them with their target, and the voice server finds them', async () => {
    const digits = freshDigits();
    const spaced = `+${digits.slice(0, 2)} ${digits.slice(2, 5)}-${digits.slice(5)}`;
    const toIvr = (await add(adminA, trunkA, { number: spaced, targetType: 'ivr', targetId: ivrA }).expect(200)).body.data;
    expect(toIvr).toMatchObject({ trunkId: trunkA, number: `+${digits}`, ivrId: ivrA, attentionLineId: null, targetName: 'Welcome' });
    const other = freshDigits();
    const toLine = (await add(adminA, trunkA, { number: other, targetType: 'line', targetId: lineA }).expect(200)).body.data;
    expect(toLine).toMatchObject({ number: `+${other}`, ivrId: null, attentionLineId: lineA, targetName: 'Phone sales' });

    const numbers = await list(adminA, trunkA);
    expect(numbers.map((n) => n.number).sort()).toEqual([`+${digits}`, `+${other}`].sort());

    const db = { query: (sql: string, params: unknown[]) => t.dataSource.query(sql, params) };
    expect(await resolveInboundNumber(db, digits)).toMatchObject({ tenantId: tenantA.client.id, trunkId: trunkA, ivrId: ivrA });
    expect(await resolveInboundNumber(db, `+${other}`)).toMatchObject({ attentionLineId: lineA, ivrId: null });

    const audit = await t.dataSource.getRepository(AuditLog).find({ where: { entityId: trunkA, entityType: 'trunk', action: 'update' } });
    expect(audit.map((a) => (a.after as { inboundNumberAdded?: string })?.inboundNumberAdded)).toEqual(
      expect.arrayContaining([`+${digits}`, `+${other}`]),
    );
  });

  it('answers 400 naming the field for a bad number, a missing or unknown target and a foreign target', async () => {
    for (const number of ['', '12', '+0034911', 'abc123456789', '+1234567890123456']) {
      const bad = await add(adminA, trunkA, { number, targetType: 'ivr', targetId: ivrA }).expect(400);
      expect(Object.keys(bad.body.data.fields)).toEqual(['number']);
    }
    const noType = await add(adminA, trunkA, { number: freshDigits(), targetType: 'queue', targetId: ivrA }).expect(400);
    expect(Object.keys(noType.body.data.fields)).toEqual(['targetType']);
    const noTarget = await add(adminA, trunkA, { number: freshDigits(), targetType: 'line' }).expect(400);
    expect(Object.keys(noTarget.body.data.fields)).toEqual(['targetId']);
    const foreign = await add(adminA, trunkA, { number: freshDigits(), targetType: 'line', targetId: lineB }).expect(400);
    expect(foreign.body.data.fields.targetId).toEqual(['targetId points at an attention line that does not exist in this tenant']);
    const garbage = await add(adminA, trunkA, { number: freshDigits(), targetType: 'ivr', targetId: 'x' }).expect(400);
    expect(Object.keys(garbage.body.data.fields)).toEqual(['targetId']);
    const wrongType = await add(adminA, trunkA, { number: 34911, targetType: 'ivr', targetId: ivrA }).expect(400);
    expect(wrongType.body.errorCode).toBe('validation');
  });

  it("refuses a number already taken: naming the own trunk, and only 'not available' for another tenant's", async () => {
    const digits = freshDigits();
    await add(adminA, trunkA, { number: `+${digits}`, targetType: 'line', targetId: lineA }).expect(200);
    const again = await add(adminA, trunkA, { number: digits, targetType: 'ivr', targetId: ivrA }).expect(409);
    expect(again.body.errorMessage).toBe(`number +${digits} is already answered by the trunk "Carrier A"`);
    expect(again.body.data).toMatchObject({ messageKey: 'inboundNumberTaken', fields: { number: [expect.any(String)] } });

    const theirs = await add(adminB, trunkB, { number: `+${digits}`, targetType: 'line', targetId: lineB }).expect(409);
    expect(theirs.body.errorMessage).toBe('this number is not available');
    expect(theirs.body.data).toEqual({
      fields: { number: ['this number is not available'] },
      messageKey: 'inboundNumberUnavailable',
      messageParams: { number: `+${digits}` },
    });
    expect(JSON.stringify(theirs.body)).not.toContain('Carrier A');
    expect(JSON.stringify(theirs.body)).not.toContain(tenantA.client.id);
  });

  it("answers 404 for another tenant's trunk and number, and 403 to an agent", async () => {
    const digits = freshDigits();
    const mine = (await add(adminA, trunkA, { number: digits, targetType: 'line', targetId: lineA }).expect(200)).body.data;
    await t.http().get(`/api/trunks/${trunkA}/numbers`).set(bearer(adminB)).expect(404);
    await add(adminB, trunkA, { number: freshDigits(), targetType: 'line', targetId: lineB }).expect(404);
    await t.http().delete(`/api/trunks/${trunkA}/numbers/${mine.id}`).set(bearer(adminB)).expect(404);
    await t.http().delete(`/api/trunks/${trunkB}/numbers/${mine.id}`).set(bearer(adminB)).expect(404);
    await t.http().get(`/api/trunks/${trunkA}/numbers`).set(bearer(agentA)).expect(403);
    await t.http().get(`/api/trunks/not-a-uuid/numbers`).set(bearer(adminA)).expect(400);
    expect((await list(adminA, trunkA)).some((n) => n.id === mine.id)).toBe(true);
  });

  it('removes a number, frees the numbers of a deleted trunk, and refuses deleting an IVR a number sends calls to', async () => {
    const db = { query: (sql: string, params: unknown[]) => t.dataSource.query(sql, params) };
    const digits = freshDigits();
    const row = (await add(adminA, trunkA, { number: digits, targetType: 'line', targetId: lineA }).expect(200)).body.data;
    await t.http().delete(`/api/trunks/${trunkA}/numbers/${row.id}`).set(bearer(adminA)).expect(200);
    expect((await list(adminA, trunkA)).some((n) => n.id === row.id)).toBe(false);
    expect(await resolveInboundNumber(db, digits)).toBeNull();

    const ivr = (await t.http().post('/api/ivrs').set(bearer(adminA)).send({ name: 'Held menu' }).expect(200)).body.data.id;
    const temp = await createTrunk(adminA, 'Temporary');
    const held = freshDigits();
    await add(adminA, temp, { number: held, targetType: 'ivr', targetId: ivr }).expect(200);
    const inUse = await t.http().delete(`/api/ivrs/${ivr}`).set(bearer(adminA)).expect(409);
    expect(inUse.body.errorMessage).toBe(`The number +${held} of the trunk "Temporary" sends calls to this IVR`);
    expect(inUse.body.data.messageKey).toBe('ivrHasNumbers');

    await t.http().delete(`/api/trunks/${temp}`).set(bearer(adminA)).expect(200);
    expect(await resolveInboundNumber(db, held)).toBeNull();
    // Freed: another tenant may take it now.
    await add(adminB, trunkB, { number: held, targetType: 'line', targetId: lineB }).expect(200);
    await t.http().delete(`/api/ivrs/${ivr}`).set(bearer(adminA)).expect(200);
  });

  it('documents the inbound number endpoints in OpenAPI', async () => {
    const doc = (await t.http().get('/api/docs-json').expect(200)).body;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/trunks/{id}/numbers', '/api/trunks/{id}/numbers/{numberId}']));
  });
});
