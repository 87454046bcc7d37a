import { randomBytes, randomUUID } from 'node:crypto';
import { runPhoneListImport } from '../../worker/src/phone-lists/phone-list-import';
import { xlsx } from '../../worker/src/phone-lists/testing/xlsx-fixture';
import { twoTenants, type TwoTenants } from './support/factories';
import { ALWAYS_OPEN, createPhoneList } from './support/outbound';
import { bearer, startTestApp, type TestApp } from './support/test-app';

// Argon2 hashing and logins in beforeAll are slow on shared CI machines.
jest.setTimeout(30_000);

const unique = () => randomBytes(4).toString('hex');
const csvLines = (text: string) =>
  text
    .replace(/^\uFEFF/, '')
    .trimEnd()
    .split('\r\n');

/** Issue 24 item 8: refusals carry machine-readable forms; downloaded files speak the requester's language. */
describe('API refusals and files in the user language (e2e)', () => {
  let t: TestApp;
  let f: TwoTenants;

  beforeAll(async () => {
    t = await startTestApp();
    f = await twoTenants(t);
  });
  afterAll(() => t.close());

  it('answers a bad admin form body with 400 and one issue per field: rule and values, beside the English message', async () => {
    const users = (await t.http().get('/api/users').set(bearer(f.adminA)).expect(200)).body.data.items as { id: string }[];
    const response = await t
      .http()
      .patch(`/api/users/${users[0]!.id}`)
      .set(bearer(f.adminA))
      .send({ name: 'x'.repeat(161), roleId: 'not-a-role', nickname: 'extra' })
      .expect(400);
    expect(response.body).toMatchObject({ statusCode: 400, errorCode: 'validation' });
    expect(response.body.errorMessage).toContain('roleId must be a UUID');
    expect(Object.keys(response.body.data.fields)).toEqual(expect.arrayContaining(['name', 'roleId', 'nickname']));
    expect(response.body.data.issues).toEqual(
      expect.arrayContaining([
        { field: 'name', rule: 'isLength', params: { min: 1, max: 160 } },
        { field: 'roleId', rule: 'isUuid' },
        { field: 'nickname', rule: 'whitelistValidation' },
      ]),
    );
  });

  it('keys a hand-written refusal (a campaign identifier already used) and names its field', async () => {
    const body = {
      name: `Keyed ${unique()}`,
      description: 'Keyed refusals',
      fromDate: '2026-03-01',
      toDate: '2026-04-30',
      identifier: `KEY${Math.floor(Math.random() * 1e9)}`,
      allowedChatsPerAgent: 2,
      templateCampaign: false,
      customer: 'ACME',
    };
    const first = await t.http().post('/api/campaigns').set(bearer(f.adminA)).send(body);
    expect(first.body).toMatchObject({ statusCode: 200 });
    const again = await t
      .http()
      .post('/api/campaigns')
      .set(bearer(f.adminA))
      .send({ ...body, name: `Other ${unique()}` })
      .expect(409);
    expect(again.body).toMatchObject({
      errorCode: 'conflict',
      errorMessage: 'identifier is already used by another campaign',
      data: { messageKey: 'campaignIdentifierTaken', fields: { identifier: ['identifier is already used by another campaign'] } },
    });
  });

  it('writes the phone-list errors file in Spanish by default and in English when asked', async () => {
    const state = (
      await t
        .http()
        .post('/api/phone-lists/imports')
        .query({ name: `Errors ${unique()}`, fileName: 'list.xlsx', defaultCountry: 'CR' })
        .set(bearer(f.adminA))
        .set('Content-Type', 'application/octet-stream')
        .send(xlsx([['phone'], ['8888-7777'], ['888-7777'], ['+50688887777']]))
        .expect(200)
    ).body.data as { id: string };
    await runPhoneListImport(t.dataSource, state.id);
    const path = `/api/phone-lists/imports/${state.id}/errors.csv`;
    const spanish = await t.http().get(path).set(bearer(f.adminA)).expect(200);
    expect(csvLines(spanish.text)).toEqual([
      '"Línea","Valor","Problema"',
      '3,"888-7777","El teléfono debe tener al menos 8 dígitos"',
      '4,"\'+50688887777","Repite la línea 2"',
    ]);
    const english = await t.http().get(path).set(bearer(f.adminA)).set('Accept-Language', 'en-GB,en;q=0.9').expect(200);
    expect(csvLines(english.text)).toEqual([
      '"Line","Value","Problem"',
      '3,"888-7777","phone must have at least 8 digits"',
      '4,"\'+50688887777","duplicate of line 2"',
    ]);
    // Another tenant's import is not found, whatever the language.
    await t.http().get(path).set(bearer(f.adminB)).set('Accept-Language', 'en').expect(404);
  });

  it('labels states, outcomes and dispositions of the outbound results CSV in the requester language', async () => {
    const list = await createPhoneList(t.dataSource, f.tenantA, [{ phone: '+34911000201', name: 'Ana' }]);
    const campaign = (
      await t
        .http()
        .post('/api/outbound/campaigns')
        .set(bearer(f.adminA))
        .send({ name: `Labels ${unique()}`, phoneListId: list, mode: 'progressive', callingWindows: ALWAYS_OPEN })
        .expect(200)
    ).body.data as { id: string };
    const [contact] = (await t.dataSource.query(`SELECT id FROM outbound_contacts WHERE campaign_id = $1`, [campaign.id])) as {
      id: string;
    }[];
    const insertCall = (attempt: number, status: string, outcome: string | null, disposition: string | null) =>
      t.dataSource.query(
        `INSERT INTO outbound_calls (id, tenant_id, campaign_id, contact_id, phone, attempt, status, snapshot, version, last_event,
           outcome, disposition, created_at, finished_at)
         VALUES ($1, $2, $3, $4, '+34911000201', $5, $6, '{}', 1, 'test', $7, $8, now() + $9::int * interval '1 second', now())`,
        [randomUUID(), f.tenantA.client.id, campaign.id, contact!.id, attempt, status, outcome, disposition, attempt],
      );
    await insertCall(1, 'busy', 'busy', null);
    await insertCall(2, 'done', 'done', 'callback');
    const cells = (text: string) => csvLines(text).map((line) => line.split(',').slice(2, 6));
    const spanish = await t.http().get(`/api/outbound/campaigns/${campaign.id}/results.csv`).set(bearer(f.adminA)).expect(200);
    expect(cells(spanish.text)).toEqual([
      ['Intento', 'Estado', 'Resultado', 'Tipificación'],
      ['1', 'Ocupado', 'Ocupado', ''],
      ['2', 'Finalizada', 'Finalizada', 'Volver a llamar'],
    ]);
    const russian = await t
      .http()
      .get(`/api/outbound/campaigns/${campaign.id}/results.csv`)
      .set(bearer(f.adminA))
      .set('Accept-Language', 'ru')
      .expect(200);
    expect(cells(russian.text)).toEqual([
      ['Попытка', 'Статус', 'Исход', 'Результат обработки'],
      ['1', 'Занято', 'Занято', ''],
      ['2', 'Готово', 'Готово', 'Перезвонить'],
    ]);
  });
});
