import { OUTBOUND_QUEUES, type DialerCampaignView, type Envelope, type OutboundCallEventJob } from '@centralita/contracts';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { eventually } from '../../../test/support/eventually';
import { OutboundEventsService } from '../src/modules/outbound/outbound-events.service';
import { createTenant, createUser, type TestTenant } from './support/factories';
import { ALWAYS_OPEN, createPhoneList } from './support/outbound';
import { createSuiteDatabase, type SuiteDatabase } from './support/suite-database';
import { bearer, login, startTestApp, type TestApp } from './support/test-app';

/**
 * Carrier events reach the API out of order and are consumed by two API processes, each applying
 * eight jobs at once: every call must still go through its states in the dialer's order, once.
 */
const PREFIX = `${process.env.QUEUE_PREFIX ?? 'centralita'}-order`;
const CALLS = 24;

describe('outbound carrier events across two API processes (e2e)', () => {
  let a: TestApp;
  let b: TestApp;
  let database: SuiteDatabase;
  let redis: Redis;
  let queue: Queue<OutboundCallEventJob>;
  let tenant: TestTenant;
  let campaign: DialerCampaignView;

  beforeAll(async () => {
    // Own queues, and no outbox poller (see outbound-dialer)...
    const poll = process.env.OUTBOX_POLL_MS;
    process.env.OUTBOX_POLL_MS = '3600000';
    // ...and a database of their own (see suite-database.ts).
    database = await createSuiteDatabase();
    [a, b] = await Promise.all([
      startTestApp({ queuePrefix: PREFIX, databaseUrl: database.url, outboundEventsConcurrency: 8 }),
      startTestApp({ queuePrefix: PREFIX, databaseUrl: database.url, outboundEventsConcurrency: 8 }),
    ]);
    if (poll === undefined) delete process.env.OUTBOX_POLL_MS;
    else process.env.OUTBOX_POLL_MS = poll;
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
    queue = new Queue(OUTBOUND_QUEUES.callEvents, { connection: redis, prefix: PREFIX });

    tenant = await createTenant(a.dataSource);
    const admin = await createUser(a.dataSource, tenant, { role: 'ADMIN' });
    const token = (await login(a, admin.email, admin.password)).accessToken;
    const phones = Array.from({ length: CALLS }, (_, i) => ({ phone: `+3491300${String(i).padStart(4, '0')}`, name: `C${i}` }));
    const listId = await createPhoneList(a.dataSource, tenant, phones);
    const created = await a
      .http()
      .post('/api/outbound/campaigns')
      .set(bearer(token))
      .send({ name: 'Order', phoneListId: listId, mode: 'progressive', callingWindows: ALWAYS_OPEN });
    campaign = (created.body as Envelope<DialerCampaignView>).data!;
    expect((await a.http().post(`/api/outbound/campaigns/${campaign.id}/start`).set(bearer(token))).status).toBe(200);
  });

  afterAll(async () => {
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    redis.disconnect();
    await Promise.all([a.close(), b.close()]);
    await database.drop();
  });

  it('applies each call’s events in the dialer’s order whoever consumes them, and a re-delivered event once', async () => {
    const contacts = (await a.dataSource.query(`SELECT id, phone FROM outbound_contacts WHERE campaign_id = $1 ORDER BY phone`, [
      campaign.id,
    ])) as { id: string; phone: string }[];
    expect(contacts).toHaveLength(CALLS);
    const at = Date.now();
    const jobs: { id: string; job: OutboundCallEventJob }[] = [];
    const callIds: string[] = [];
    for (const [i, contact] of contacts.entries()) {
      const callId = (await a.dataSource.query(`SELECT gen_random_uuid() AS id`))[0].id as string;
      callIds.push(callId);
      const create: OutboundCallEventJob = {
        kind: 'create',
        callId,
        tenantId: tenant.client.id,
        campaignId: campaign.id,
        contactId: contact.id,
        phone: contact.phone,
        attempt: 1,
        abandonThresholdMs: 2000,
        at,
      };
      // Half the calls end busy (ringing, busy), half reach an answering machine (ringing, answered).
      const outcome: OutboundCallEventJob =
        i % 2 === 0 ? { kind: 'busy', callId, at: at + 20 } : { kind: 'answered', callId, by: 'machine', at: at + 20 };
      // Newest first: each call's last event is queued before its first and before the call exists.
      jobs.push(
        { id: `${callId}.2`, job: outcome },
        { id: `${callId}.1`, job: { kind: 'ringing', callId, at: at + 10 } },
        { id: `${callId}.0`, job: create },
      );
    }
    await queue.addBulk(
      jobs.map(({ id, job }) => ({
        name: job.kind,
        data: job,
        opts: { jobId: id, attempts: 5, backoff: { type: 'exponential', delay: 200 } },
      })),
    );

    const rows = await eventually(
      async () => {
        const found = (await a.dataSource.query(`SELECT id, status, outcome, carrier_seq FROM outbound_calls WHERE id = ANY($1::uuid[])`, [
          callIds,
        ])) as { id: string; status: string; outcome: string | null; carrier_seq: number }[];
        expect(found).toHaveLength(CALLS);
        for (const row of found) expect(row.carrier_seq).toBe(2);
        return found;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    const outcomes = new Map(rows.map((row) => [row.id, row.outcome]));
    callIds.forEach((id, i) => expect(outcomes.get(id)).toBe(i % 2 === 0 ? 'busy' : 'answeringMachine'));

    // Every call's log: the states in the dialer's order, versions 1, 2, 3, … with no gap or repeat.
    const log = (await a.dataSource.query(
      `SELECT entity_id, event, version FROM transition_log WHERE entity_type = 'outbound_call' AND entity_id = ANY($1::uuid[]) ORDER BY entity_id, version`,
      [callIds],
    )) as { entity_id: string; event: string; version: number }[];
    for (const [i, callId] of callIds.entries()) {
      const mine = log.filter((row) => row.entity_id === callId);
      expect(mine.map((row) => row.version)).toEqual(mine.map((_, k) => k + 1));
      const events = mine.map((row) => row.event);
      expect(events.slice(0, 3)).toEqual(['xstate.init', 'call.dialed', 'call.ringing']);
      expect(events[3]).toBe(i % 2 === 0 ? 'call.busy' : 'call.answered');
    }

    // The same carrier event delivered again (a stalled job run twice) changes nothing.
    const before = (await a.dataSource.query(`SELECT version FROM outbound_calls WHERE id = $1`, [callIds[1]]))[0].version as number;
    await b.app.get(OutboundEventsService).apply({ kind: 'ringing', callId: callIds[1], at: at + 10 }, `${callIds[1]}.1`);
    await a.app.get(OutboundEventsService).apply({ kind: 'answered', callId: callIds[1], by: 'machine', at: at + 20 }, `${callIds[1]}.2`);
    const after = (await a.dataSource.query(`SELECT version, carrier_seq FROM outbound_calls WHERE id = $1`, [callIds[1]]))[0];
    expect(after).toEqual({ version: before, carrier_seq: 2 });
  });
});
