import type { DialerCampaignView, Envelope } from '@centralita/contracts';
import { randomUUID } from 'node:crypto';
import { eventually } from '../../../../test/support/eventually';
import { CallHostService } from '../../src/modules/outbound/call-host.service';
import { SYSTEM } from '../../src/modules/outbound/outbound-rows';
import { createTenant, createUser } from '../support/factories';
import { ALWAYS_OPEN, createPhoneList } from '../support/outbound';
import { bearer, login, startTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 18, 6: a step's time is read once its row is locked. The outbound call's steps that carry
 * no carrier time (timers, an agent's disposition) took theirs before waiting for the call's row,
 * so a step that waited could be dated before the step it waited for.
 */
describe('outbound call steps are timed after their lock', () => {
  let t: TestApp;

  beforeAll(async () => {
    // Own queues and database, and no outbox poller (see outbound-dialer).
    const poll = process.env.OUTBOX_POLL_MS;
    process.env.OUTBOX_POLL_MS = '3600000';
    t = await startTestApp({ queuePrefix: `${process.env.QUEUE_PREFIX ?? 'centralita'}-call-time` }, { ownDatabase: true });
    if (poll === undefined) delete process.env.OUTBOX_POLL_MS;
    else process.env.OUTBOX_POLL_MS = poll;
  });
  afterAll(() => t.close());

  it('dates a step that waited for the call’s row after the wait', async () => {
    const tenant = await createTenant(t.dataSource);
    const admin = await createUser(t.dataSource, tenant, { role: 'ADMIN' });
    const token = (await login(t, admin.email, admin.password)).accessToken;
    const listId = await createPhoneList(t.dataSource, tenant, [{ phone: '+34913009999', name: 'Waits' }]);
    const created = await t
      .http()
      .post('/api/outbound/campaigns')
      .set(bearer(token))
      .send({ name: 'Timed', phoneListId: listId, mode: 'progressive', callingWindows: ALWAYS_OPEN });
    const campaign = (created.body as Envelope<DialerCampaignView>).data!;
    expect((await t.http().post(`/api/outbound/campaigns/${campaign.id}/start`).set(bearer(token))).status).toBe(200);
    const [contact] = (await t.dataSource.query(`SELECT id, phone FROM outbound_contacts WHERE campaign_id = $1`, [campaign.id])) as {
      id: string;
      phone: string;
    }[];

    const calls = t.app.get(CallHostService);
    const callId = randomUUID();
    await calls.createCall({
      kind: 'create',
      callId,
      tenantId: tenant.client.id,
      campaignId: campaign.id,
      contactId: contact.id,
      phone: contact.phone,
      attempt: 1,
      abandonThresholdMs: 2000,
      at: Date.now(),
    });

    // Another transaction holds the call's row while a step without a carrier time comes in.
    const blocker = t.dataSource.createQueryRunner();
    await blocker.connect();
    await blocker.startTransaction();
    let releasedAt = 0;
    try {
      await blocker.query(`SELECT 1 FROM outbound_calls WHERE id = $1 FOR UPDATE`, [callId]);
      const stepping = calls.dispatchCall(callId, { type: 'call.ringing' }, SYSTEM).then(
        (row) => row,
        (error: unknown) => error,
      );
      await eventually(async () => {
        const [{ waiting }] = await t.dataSource.query(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        expect(waiting).toBeGreaterThan(0);
      });
      releasedAt = Date.now();
      await blocker.commitTransaction();
      expect(await stepping).toMatchObject({ id: callId, status: 'ringing' });
    } finally {
      if (blocker.isTransactionActive) await blocker.rollbackTransaction();
      await blocker.release();
    }

    const [ringing] = (await t.dataSource.query(
      `SELECT at_ms FROM transition_log WHERE entity_type = 'outbound_call' AND entity_id = $1 AND event = 'call.ringing'`,
      [callId],
    )) as { at_ms: string }[];
    expect(Number(ringing.at_ms)).toBeGreaterThanOrEqual(releasedAt);
  });
});
