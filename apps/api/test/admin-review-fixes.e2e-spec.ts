import type { StartChatResult } from '@centralita/contracts';
import { runPhoneListImport } from '../../worker/src/phone-lists/phone-list-import';
import { xlsx } from '../../worker/src/phone-lists/testing/xlsx-fixture';
import { PredefinedMessage } from '../src/modules/predefined-messages/predefined-message.entity';
import { twoTenants, type TestTenant } from './support/factories';
import { createLine, createStaff, data, type StaffMember } from './support/realtime';
import { bearer, startTestApp, type TestApp } from './support/test-app';

/** Fixes from the administration and supervision review (names of deleted rows, note length, shortcuts, import codes). */

const campaign = (overrides: Record<string, unknown> = {}) => ({
  name: 'Reused',
  description: 'Identifier reused after a delete',
  fromDate: '2026-03-01',
  toDate: '2026-04-30',
  identifier: `RE${Math.floor(Math.random() * 1e9)}`,
  allowedChatsPerAgent: 2,
  templateCampaign: false,
  customer: null,
  ...overrides,
});
const line = (name: string) => ({ name, type: 'inbound', channel: 'WhatsApp', internal: false, businessHours: [] });

// Argon2 hashing and logins in beforeAll are slow on shared CI machines.
jest.setTimeout(30_000);

describe('Administration and supervision review fixes (e2e)', () => {
  let t: TestApp;
  let tenantA: TestTenant;
  let adminA: string;
  let adminB: string;

  beforeAll(async () => {
    t = await startTestApp();
    ({ tenantA, adminA, adminB } = await twoTenants(t));
  });
  afterAll(() => t.close());

  describe("names of deleted rows are free again (live ones still aren't)", () => {
    it("reuses a deleted attention line's name, and answers 409 while a live line holds it", async () => {
      const name = `Line ${Math.random().toString(36).slice(2, 8)}`;
      const first = data<{ id: string }>(await t.http().post('/api/attention-lines').set(bearer(adminA)).send(line(name)));
      const clash = await t.http().post('/api/attention-lines').set(bearer(adminA)).send(line(name)).expect(409);
      expect(clash.body).toMatchObject({ errorCode: 'conflict', errorMessage: 'name is already used by another attention line' });
      await t.http().delete(`/api/attention-lines/${first.id}`).set(bearer(adminA)).expect(200);

      const again = data<{ id: string; name: string }>(await t.http().post('/api/attention-lines').set(bearer(adminA)).send(line(name)));
      expect(again).toMatchObject({ name });
      expect(again.id).not.toBe(first.id);
      // Renaming another line onto the live one is still refused.
      const other = data<{ id: string }>(
        await t
          .http()
          .post('/api/attention-lines')
          .set(bearer(adminA))
          .send(line(`${name} 2`)),
      );
      await t.http().put(`/api/attention-lines/${other.id}`).set(bearer(adminA)).send(line(name)).expect(409);
      // Another tenant may always use it.
      await t.http().post('/api/attention-lines').set(bearer(adminB)).send(line(name)).expect(200);
    });

    it("reuses a deleted campaign's identifier, and answers 409 while a live campaign holds it", async () => {
      const body = campaign();
      const first = data<{ id: string }>(await t.http().post('/api/campaigns').set(bearer(adminA)).send(body));
      expect((await t.http().post('/api/campaigns').set(bearer(adminA)).send(body).expect(409)).body.errorCode).toBe('conflict');
      await t.http().delete(`/api/campaigns/${first.id}`).set(bearer(adminA)).expect(200);

      const again = data<{ id: string; identifier: string }>(await t.http().post('/api/campaigns').set(bearer(adminA)).send(body));
      expect(again.identifier).toBe(body.identifier);
      const [{ count }] = await t.dataSource.query(
        `SELECT count(*)::int AS count FROM campaigns WHERE client_id = $1 AND identifier = $2`,
        [tenantA.client.id, body.identifier],
      );
      expect(count).toBe(2);
      expect((await t.http().post('/api/campaigns').set(bearer(adminA)).send(body).expect(409)).body.errorCode).toBe('conflict');
    });
  });

  describe('private notes', () => {
    let supervisor: StaffMember;
    let conversationId: string;

    beforeAll(async () => {
      supervisor = await createStaff(t, tenantA, 'SUPER');
      const lineId = await createLine(t.dataSource, tenantA, `Notes ${Math.random().toString(36).slice(2, 8)}`);
      const started = data<StartChatResult>(
        await t.http().post('/api/webchat/conversations').send({ attentionLineId: lineId, name: 'Ada' }),
      );
      conversationId = started.conversation.id;
    });

    it('accepts 500 characters, as the console does, and refuses 501 naming the field', async () => {
      const ok = await t
        .http()
        .post(`/api/conversations/${conversationId}/notes`)
        .set(bearer(supervisor.token))
        .send({ text: 'n'.repeat(500) });
      expect(ok.status).toBe(200);
      const refused = await t
        .http()
        .post(`/api/conversations/${conversationId}/notes`)
        .set(bearer(supervisor.token))
        .send({ text: 'n'.repeat(501) })
        .expect(400);
      expect(refused.body.errorMessage).toBe('text must be at most 500 characters');
      expect(Object.keys(refused.body.data.fields)).toEqual(['text']);
      const [{ count }] = await t.dataSource.query(`SELECT count(*)::int AS count FROM conversation_notes WHERE conversation_id = $1`, [
        conversationId,
      ]);
      expect(count).toBe(1);
    });
  });

  describe('predefined message shortcuts', () => {
    it("stores '/hello' as 'hello' (the desk adds the slash)", async () => {
      const shortcut = `hello${Math.floor(Math.random() * 1e6)}`;
      const created = data<{ id: string; shortcut: string }>(
        await t
          .http()
          .post('/api/predefined-messages')
          .set(bearer(adminA))
          .send({ message: 'Hello!', shortcut: `/${shortcut}`, scope: 'tenant' }),
      );
      expect(created.shortcut).toBe(shortcut);
      expect((await t.dataSource.getRepository(PredefinedMessage).findOneByOrFail({ id: created.id })).shortcut).toBe(shortcut);
    });

    it('refuses a shortcut the desk could not match, naming the field', async () => {
      const refused = await t
        .http()
        .post('/api/predefined-messages')
        .set(bearer(adminA))
        .send({ message: 'Hi', shortcut: 'hi there!', scope: 'tenant' })
        .expect(400);
      expect(refused.body.data.fields).toEqual({ shortcut: ['shortcut is not in the expected format'] });
      expect(await t.dataSource.getRepository(PredefinedMessage).countBy({ shortcut: 'hi there!' })).toBe(0);
    });
  });

  describe('phone list import refusals', () => {
    const upload = (name: string, file: Buffer) =>
      t
        .http()
        .post('/api/phone-lists/imports')
        .query({ name, fileName: 'list.xlsx', defaultCountry: 'CR' })
        .set(bearer(adminA))
        .set('Content-Type', 'application/octet-stream')
        .send(file)
        .expect(200);

    it('answer a stable code next to the English text, for the console to translate', async () => {
      const formula = (await upload('Formula', xlsx([['phone'], ['=1+1']]))).body.data;
      await runPhoneListImport(t.dataSource, formula.id);
      expect((await t.http().get(`/api/phone-lists/imports/${formula.id}`).set(bearer(adminA)).expect(200)).body.data).toMatchObject({
        status: 'failed',
        failure: expect.stringContaining('formulas'),
        failureCode: 'formulas',
      });

      const bad = (await upload('Bad rows', xlsx([['phone'], ['888-7777']]))).body.data;
      await runPhoneListImport(t.dataSource, bad.id);
      expect((await t.http().get(`/api/phone-lists/imports/${bad.id}`).set(bearer(adminA)).expect(200)).body.data).toMatchObject({
        status: 'failed',
        errorRows: 1,
        failureCode: 'rows_invalid',
      });

      const fine = (await upload('Fine', xlsx([['phone'], ['8888-7777']]))).body.data;
      expect(fine.failureCode).toBeNull();
    });
  });
});
