import type { Actor } from '@centralita/domain';
import type { DataSource, EntityManager } from 'typeorm';
import { MachineHostService } from '../machine-host/machine-host.service';
import { FakeMachineRows } from '../machine-host/machine-rows.fake';
import type { OutboxRelay } from '../machine-host/outbox-relay.service';
import { loadRealtimeConfig } from '../machine-host/realtime-config';
import { CampaignHostService } from './campaign-host.service';
import { FakeOutboundMachineRows } from './outbound-machine-rows.fake';
import type { OutboundQueues } from './outbound-queues.service';
import { SYSTEM, type CampaignRow } from './outbound-rows';
import { OutboundTransactions } from './outbound-transaction.service';
import { refusal } from '../../common/refusal.testing';

const supervisor: Actor = { kind: 'supervisor', id: 's1' };

describe(CampaignHostService.name, () => {
  let rows: FakeOutboundMachineRows;
  let campaigns: CampaignHostService;
  let tx: OutboundTransactions;
  const outside = { name: 'outside' } as unknown as EntityManager;
  // The campaign's window, in the future as campaign.scheduled requires.
  const startsAt = Date.now() + 60_000;
  const endsAt = startsAt + 3_600_000;

  beforeEach(async () => {
    rows = new FakeOutboundMachineRows();
    const dataSource = {
      manager: outside,
      transaction: <T>(work: (manager: EntityManager) => Promise<T>) => work({ name: 'transaction' } as unknown as EntityManager),
    } as unknown as DataSource;
    const host = new MachineHostService(
      dataSource,
      { kick: jest.fn() } as unknown as OutboxRelay,
      loadRealtimeConfig({}),
      new FakeMachineRows(),
    );
    tx = new OutboundTransactions(host, { events: { add: jest.fn() } } as unknown as OutboundQueues);
    campaigns = new CampaignHostService(tx, rows);
    await addDraft('camp-1');
  });

  /** A draft campaign of t1, its row filled as CampaignAdminService fills it, and its first log row. */
  async function addDraft(id: string, columns: Partial<CampaignRow> = {}): Promise<void> {
    const created = await campaigns.createCampaign(outside, id, 't1', 'progressive', supervisor);
    rows.addDraftCampaign(id, 't1', created, columns);
    await campaigns.logCampaignCreated(outside, id, 't1', created.record);
  }

  const schedule = (id = 'camp-1') => campaigns.dispatchCampaign(id, { type: 'campaign.scheduled', startsAt, endsAt }, supervisor);
  const eventsOf = (id: string) => rows.logOf(id).map((row) => row.record.event);

  it('logs a created campaign at version 1', () => {
    expect(rows.campaigns.get('camp-1')).toMatchObject({ status: 'draft', version: 1 });
    expect(rows.logOf('camp-1').map((row) => [row.entity, row.record.event, row.record.to, row.version])).toEqual([
      ['dialer_campaign', 'xstate.init', 'draft', 1],
    ]);
  });

  it('writes the timer its state guards with the step and wakes the sweeper for it after commit', async () => {
    const deadlines: number[] = [];
    tx.onDeadline((at) => deadlines.push(at));

    const scheduled = await schedule();

    expect(scheduled).toMatchObject({
      status: 'scheduled',
      version: 2,
      timer_event: 'campaign.startTimeReached',
      timer_at: String(startsAt),
    });
    expect(rows.campaigns.get('camp-1')).toMatchObject({ timer_event: 'campaign.startTimeReached', timer_at: String(startsAt) });
    expect(deadlines).toEqual([startsAt]);
    expect(eventsOf('camp-1')).toEqual(['xstate.init', 'campaign.scheduled']);
  });

  it('does not wake the sweeper again for a step that keeps the same deadline', async () => {
    await schedule();
    await campaigns.dispatchCampaign('camp-1', { type: 'campaign.started' }, supervisor);
    const deadlines: number[] = [];
    tx.onDeadline((at) => deadlines.push(at));

    // Paused or running, the live campaign's one timer is its window's end.
    await campaigns.dispatchCampaign('camp-1', { type: 'campaign.paused' }, supervisor);

    expect(rows.campaigns.get('camp-1')).toMatchObject({
      status: 'paused',
      timer_event: 'campaign.endTimeReached',
      timer_at: String(endsAt),
    });
    expect(deadlines).toEqual([]);
  });

  it('lists due timers oldest first, leaving out deleted campaigns and future timers', async () => {
    await schedule();
    await addDraft('camp-2');
    await campaigns.dispatchCampaign('camp-2', { type: 'campaign.scheduled', startsAt: startsAt - 1000 }, supervisor);
    await addDraft('camp-3', { deleted_at: new Date() });
    rows.campaigns.get('camp-3')!.timer_at = String(startsAt - 2000);
    rows.campaigns.get('camp-3')!.timer_event = 'campaign.startTimeReached';

    expect(await campaigns.dueTimers(outside, startsAt, 10)).toEqual(['camp-2', 'camp-1']);
    expect(await campaigns.dueTimers(outside, startsAt, 1)).toEqual(['camp-2']);
    expect(await campaigns.dueTimers(outside, startsAt - 1001, 10)).toEqual([]);
  });

  it('fires a due timer once and arms the next one the new state guards', async () => {
    await schedule();

    expect(await campaigns.fireTimer('camp-1', startsAt)).toBe(true);
    expect(await campaigns.fireTimer('camp-1', startsAt)).toBe(false);

    expect(rows.campaigns.get('camp-1')).toMatchObject({
      status: 'running',
      version: 3,
      timer_event: 'campaign.endTimeReached',
      timer_at: String(endsAt),
    });
    expect(eventsOf('camp-1')).toEqual(['xstate.init', 'campaign.scheduled', 'campaign.startTimeReached']);
    expect(rows.logOf('camp-1').at(-1)!.record.actor).toEqual(SYSTEM);
  });

  it('does not fire a timer before it is due', async () => {
    await schedule();

    expect(await campaigns.fireTimer('camp-1', startsAt - 1)).toBe(false);
    expect(rows.campaigns.get('camp-1')).toMatchObject({ status: 'scheduled', version: 2 });
  });

  it('drops a timer the machine refuses, clearing it without a step', async () => {
    await schedule();
    // A timer the state no longer guards (written by an older step): the machine refuses its event.
    rows.campaigns.get('camp-1')!.timer_at = String(startsAt - 5000);

    expect(await campaigns.fireTimer('camp-1', startsAt)).toBe(false);

    expect(rows.campaigns.get('camp-1')).toMatchObject({ status: 'scheduled', version: 2, timer_event: null, timer_at: null });
    expect(eventsOf('camp-1')).toEqual(['xstate.init', 'campaign.scheduled']);
    // The refused step is undone to its savepoint before the timer is cleared.
    const undone = rows.statements.indexOf('rollbackToSavepoint:campaign_timer');
    expect(rows.statements.indexOf('savepoint:campaign_timer')).toBeLessThan(undone);
    expect(rows.statements.indexOf('clearTimer:camp-1')).toBeGreaterThan(undone);
  });

  it('leaves a due timer whose row another process holds to that process', async () => {
    await schedule();
    rows.heldElsewhere.add('dialer_campaigns:camp-1');

    expect(await campaigns.fireTimer('camp-1', startsAt)).toBe(false);

    expect(rows.campaigns.get('camp-1')).toMatchObject({
      status: 'scheduled',
      version: 2,
      timer_event: 'campaign.startTimeReached',
      timer_at: String(startsAt),
    });
  });

  it('refuses an event the campaign does not take in its state and writes nothing', async () => {
    const refused = await refusal(campaigns.dispatchCampaign('camp-1', { type: 'campaign.resumed' }, supervisor));

    expect(refused).toEqual({ code: 'illegal_transition', message: 'campaign.resumed is not allowed while the campaign is draft' });
    expect(rows.campaigns.get('camp-1')).toMatchObject({ status: 'draft', version: 1 });
    expect(eventsOf('camp-1')).toEqual(['xstate.init']);
  });

  it('answers conflict when the campaign changed between its lock and its write', async () => {
    rows.interfere('dialer_campaigns', 'camp-1');

    const refused = await refusal(schedule());

    expect(refused.code).toBe('conflict');
    expect(rows.campaigns.get('camp-1')).toMatchObject({ status: 'draft', timer_at: null });
    expect(eventsOf('camp-1')).toEqual(['xstate.init']);
  });

  it("answers not_found for another tenant's campaign or a deleted one", async () => {
    await addDraft('camp-2', { deleted_at: new Date() });

    expect((await refusal(campaigns.dispatchCampaign('camp-1', { type: 'campaign.started' }, supervisor, 't2'))).code).toBe('not_found');
    expect((await refusal(campaigns.dispatchCampaign('camp-2', { type: 'campaign.started' }, supervisor))).code).toBe('not_found');
    expect(rows.campaigns.get('camp-1')).toMatchObject({ status: 'draft', version: 1 });
    expect(rows.campaigns.get('camp-2')).toMatchObject({ status: 'draft', version: 1 });
  });

  it('completes a live campaign with no open contact and no pending callback, and only then', async () => {
    await campaigns.dispatchCampaign('camp-1', { type: 'campaign.started' }, supervisor);
    rows.addContact({ id: 'contact-1', campaign_id: 'camp-1' });
    rows.callbacks.push({ campaign_id: 'camp-1', status: 'pending' });
    const completeIfExhausted = () =>
      tx.run(async (manager, w) => campaigns.completeIfExhausted(manager, w, rows.campaigns.get('camp-1')!));

    await completeIfExhausted();
    expect(rows.campaigns.get('camp-1')!.status).toBe('running');

    rows.contacts.get('contact-1')!.finished = true;
    await completeIfExhausted();
    expect(rows.campaigns.get('camp-1')!.status).toBe('running');

    rows.callbacks[0].status = 'done';
    await completeIfExhausted();
    expect(rows.campaigns.get('camp-1')).toMatchObject({ status: 'completed', last_event: 'campaign.completed' });
  });
});
