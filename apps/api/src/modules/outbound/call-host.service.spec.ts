import type { OutboundCallEventJob } from '@centralita/contracts';
import type { Actor } from '@centralita/domain';
import { Logger } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { MachineHostService } from '../machine-host/machine-host.service';
import { FakeMachineRows } from '../machine-host/machine-rows.fake';
import type { OutboxRelay } from '../machine-host/outbox-relay.service';
import { loadRealtimeConfig } from '../machine-host/realtime-config';
import { CallHostService } from './call-host.service';
import { CampaignHostService } from './campaign-host.service';
import { FakeOutboundMachineRows } from './outbound-machine-rows.fake';
import type { OutboundQueues } from './outbound-queues.service';
import { SYSTEM, WRAP_UP_SECONDS, type CampaignRow } from './outbound-rows';
import { OutboundTransactions } from './outbound-transaction.service';
import { refusal } from '../../common/refusal.testing';

const supervisor: Actor = { kind: 'supervisor', id: 's1' };
const agentActor = (id: string): Actor => ({ kind: 'agent', id });
const T0 = Date.UTC(2026, 0, 5, 10);

describe(CallHostService.name, () => {
  let machineRows: FakeMachineRows;
  let rows: FakeOutboundMachineRows;
  let host: MachineHostService;
  let campaigns: CampaignHostService;
  let calls: CallHostService;
  /** Commits and enqueued timer jobs, in the order they happened. */
  let happened: string[];
  let jobs: { name: string; data: OutboundCallEventJob; opts: { jobId: string; delay: number } }[];
  const outside = { name: 'outside' } as unknown as EntityManager;

  beforeEach(async () => {
    machineRows = new FakeMachineRows();
    rows = new FakeOutboundMachineRows(machineRows.agents);
    happened = [];
    jobs = [];
    const dataSource = {
      manager: outside,
      transaction: async <T>(work: (manager: EntityManager) => Promise<T>) => {
        const value = await work({ name: 'transaction' } as unknown as EntityManager);
        happened.push('commit');
        return value;
      },
    } as unknown as DataSource;
    host = new MachineHostService(dataSource, { kick: jest.fn() } as unknown as OutboxRelay, loadRealtimeConfig({}), machineRows);
    const queues = {
      events: {
        add: (name: string, data: OutboundCallEventJob, opts: { jobId: string; delay: number }) => {
          happened.push(`enqueue:${opts.jobId}`);
          jobs.push({ name, data, opts });
          return Promise.resolve();
        },
      },
    } as unknown as OutboundQueues;
    const tx = new OutboundTransactions(host, queues);
    campaigns = new CampaignHostService(tx, rows);
    calls = new CallHostService(tx, host, campaigns, rows);
    await addRunningCampaign('camp-1');
  });

  /** A running campaign of tenant t1 (created and started through its host). */
  async function addRunningCampaign(id: string, columns: Partial<CampaignRow> = {}): Promise<void> {
    const created = await campaigns.createCampaign(outside, id, 't1', 'progressive', supervisor);
    rows.addDraftCampaign(id, 't1', created, { retry_delays: { busy: 60 }, ...columns }, new Date(T0));
    await campaigns.dispatchCampaign(id, { type: 'campaign.started' }, supervisor);
  }

  /** The dialer reserved the contact (and its number) for the call, then reports the call created. */
  function createCall(callId: string, contact: { id?: string; phone?: string; previewAgentId?: string; attempt?: number } = {}) {
    const contactId = contact.id ?? `contact-${callId}`;
    const phone = contact.phone ?? '+34600000001';
    if (!rows.contacts.has(contactId)) {
      rows.addContact({
        id: contactId,
        campaign_id: 'camp-1',
        name: 'Ana',
        active_call_id: callId,
        dialer_owner: 'dialer-1',
        preview_agent_id: contact.previewAgentId ?? null,
      });
    }
    rows.liveNumbers.set(callId, phone);
    return calls.createCall({
      kind: 'create',
      callId,
      tenantId: 't1',
      campaignId: 'camp-1',
      contactId,
      phone,
      attempt: contact.attempt ?? 1,
      abandonThresholdMs: 2000,
      at: T0,
    });
  }

  /** An agent of t1 logged in and waiting for an outbound call. */
  async function waitingAgent(userId: string): Promise<void> {
    await host.ensureAgent(outside, userId, 't1', 2, []);
    await host.dispatch('agent', userId, { type: 'agent.loggedIn' }, agentActor(userId));
    await host.dispatch('agent', userId, { type: 'agent.outboundWaitStarted' }, agentActor(userId));
  }

  const answer = (callId: string, at = T0 + 5000) =>
    calls.dispatchCall(callId, { type: 'call.answered', by: 'human' }, SYSTEM, undefined, at);
  const stepsOf = (id: string) => rows.logOf(id).map((row) => [row.record.event, row.record.to, row.version]);

  it('creates a call queued and steps it to dialing, one log row per step', async () => {
    const call = await createCall('call-1');

    expect(call).toMatchObject({ id: 'call-1', status: 'dialing', version: 2, last_event: 'call.dialed' });
    expect(rows.calls.get('call-1')).toMatchObject({ status: 'dialing', version: 2 });
    expect(stepsOf('call-1')).toEqual([
      ['xstate.init', 'queued', 1],
      ['call.dialed', 'dialing', 2],
    ]);
    // The call is pushed to the tenant's room with the contact's name.
    const pushed = rows.outbox.map(
      (record) => JSON.parse(record.payload) as { emits: { rooms: string[]; data: { contactName: string } }[] },
    );
    expect(pushed.at(-1)!.emits[0]).toMatchObject({ rooms: ['tenant:t1'], data: { contactName: 'Ana' } });
  });

  it('ignores a create reported twice', async () => {
    await createCall('call-1');
    const logged = rows.log.length;

    expect(await createCall('call-1')).toBeNull();
    expect(rows.log).toHaveLength(logged);
    expect(rows.calls.get('call-1')!.version).toBe(2);
    // Not a refused insert: the call keeps its contact and number.
    expect(rows.contacts.get('contact-call-1')!.active_call_id).toBe('call-1');
    expect(rows.liveNumbers.has('call-1')).toBe(true);
  });

  it('frees the contact and the number of a call the table refuses', async () => {
    await createCall('call-1', { phone: '+34600000001' });

    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);

    // Same number, still live on call-1: the live-number key refuses the insert.
    const refused = await createCall('call-2', { phone: '+34600000001' });

    expect(warn).toHaveBeenCalledWith('call call-2 refused: its number or attempt is already live');
    warn.mockRestore();

    expect(refused).toBeNull();
    expect(rows.calls.has('call-2')).toBe(false);
    expect(rows.logOf('call-2')).toEqual([]);
    expect(rows.contacts.get('contact-call-2')).toMatchObject({ active_call_id: null, dialer_owner: null, preview_agent_id: null });
    expect(rows.liveNumbers.has('call-2')).toBe(false);
    // call-1 keeps its contact and number.
    expect(rows.contacts.get('contact-call-1')!.active_call_id).toBe('call-1');
    expect(rows.liveNumbers.has('call-1')).toBe(true);
  });

  it('books the agent who waits for a call answered by a person', async () => {
    await waitingAgent('u1');
    await createCall('call-1');

    const connected = await answer('call-1');

    expect(connected).toMatchObject({ status: 'connected', agent_id: 'u1' });
    expect(machineRows.agents.get('u1')).toMatchObject({ status: 'outboundCall', last_event: 'agent.outboundCallConnected' });
    expect(stepsOf('call-1').map(([event]) => event)).toEqual(['xstate.init', 'call.dialed', 'call.answered', 'call.agentConnected']);
    // The match is made under the tenant's dialer lock, taken before the waiting agent is read.
    const matching = rows.statements.indexOf('lockDialerMatching:t1');
    expect(matching).toBeGreaterThan(-1);
    expect(rows.statements.indexOf('lockWaitingCampaignAgent:camp-1')).toBeGreaterThan(matching);
  });

  it('leaves a call answered by a person unmatched when nobody waits', async () => {
    await host.ensureAgent(outside, 'u1', 't1', 2, []);
    await host.dispatch('agent', 'u1', { type: 'agent.loggedIn' }, agentActor('u1'));
    await createCall('call-1');

    const answered = await answer('call-1');

    expect(answered).toMatchObject({ status: 'answeredByHuman', agent_id: null });
    expect(machineRows.agents.get('u1')!.status).toBe('available');
  });

  it('hands a previewed contact only to its preview agent', async () => {
    await waitingAgent('u1');
    await createCall('call-1', { previewAgentId: 'u2' });

    // u1 waits, but the record is u2's.
    expect(await answer('call-1')).toMatchObject({ status: 'answeredByHuman', agent_id: null });
    expect(await calls.offerAnsweredCall(outside, work(), 'u1', 't1')).toBeNull();

    await waitingAgent('u2');
    const offered = await calls.offerAnsweredCall(outside, work(), 'u2', 't1');

    expect(offered).toMatchObject({ id: 'call-1', status: 'connected', agent_id: 'u2' });
    expect(machineRows.agents.get('u2')!.status).toBe('outboundCall');
    expect(machineRows.agents.get('u1')!.status).toBe('waitingOutboundCall');
  });

  it('books the preview agent when they wait as the call is answered', async () => {
    await waitingAgent('u1');
    await waitingAgent('u2');
    await createCall('call-1', { previewAgentId: 'u2' });

    expect(await answer('call-1')).toMatchObject({ status: 'connected', agent_id: 'u2' });
    expect(machineRows.agents.get('u1')!.status).toBe('waitingOutboundCall');
  });

  it('skips an answered call another transaction holds when offering one to a waiting agent', async () => {
    await createCall('call-1');
    await answer('call-1');
    await waitingAgent('u1');
    rows.heldElsewhere.add('outbound_calls:call-1');

    expect(await calls.offerAnsweredCall(outside, work(), 'u1', 't1')).toBeNull();
    expect(machineRows.agents.get('u1')!.status).toBe('waitingOutboundCall');
  });

  it('enqueues the abandon timer after the answer commits, with its job id', async () => {
    await createCall('call-1');
    happened.length = 0;

    await answer('call-1', T0 + 5000);

    expect(happened).toEqual(['commit', `enqueue:abd.call-1.${T0 + 5000}`]);
    expect(jobs).toEqual([
      {
        name: 'abandonTimer',
        data: { kind: 'abandonTimer', callId: 'call-1', armedAt: T0 + 5000 },
        opts: expect.objectContaining({ jobId: `abd.call-1.${T0 + 5000}`, delay: 2000 }) as unknown,
      },
    ]);
  });

  it('releases the agent into wrap-up at hang-up and enqueues the wrap-up timer after commit', async () => {
    await waitingAgent('u1');
    await createCall('call-1');
    await answer('call-1');
    happened.length = 0;
    jobs.length = 0;

    const wrapping = await calls.dispatchCall('call-1', { type: 'call.hungUp' }, SYSTEM, undefined, T0 + 60_000);

    expect(wrapping).toMatchObject({ status: 'wrapUp', agent_id: 'u1' });
    expect(machineRows.agents.get('u1')!.status).toBe('afterCallWork');
    expect(happened).toEqual(['commit', `enqueue:wrp.call-1.${T0 + 60_000}`]);
    expect(jobs[0]).toMatchObject({
      name: 'wrapUpTimer',
      data: { kind: 'wrapUpTimer', callId: 'call-1', armedAt: T0 + 60_000 },
      opts: { jobId: `wrp.call-1.${T0 + 60_000}`, delay: WRAP_UP_SECONDS * 1000 },
    });
  });

  it('books a retry on the contact for an outcome the campaign retries', async () => {
    await createCall('call-1');
    await createCall('call-2', { phone: '+34600000002' });

    const busy = await calls.dispatchCall('call-1', { type: 'call.busy' }, SYSTEM, undefined, T0 + 3000);

    expect(busy).toMatchObject({ status: 'busy', outcome: 'busy' });
    expect(rows.contacts.get('contact-call-1')).toMatchObject({
      active_call_id: null,
      dialer_owner: null,
      last_outcome: 'busy',
      finished: false,
      next_attempt_at: new Date(T0 + 3000 + 60_000),
    });
    expect(rows.liveNumbers.has('call-1')).toBe(false);
    expect(rows.campaigns.get('camp-1')!.status).toBe('running');
  });

  it('finishes the contact for an outcome the campaign does not retry', async () => {
    await createCall('call-1');
    await createCall('call-2', { phone: '+34600000002' });

    await calls.dispatchCall('call-1', { type: 'call.notAnswered' }, SYSTEM, undefined, T0 + 3000);

    expect(rows.contacts.get('contact-call-1')).toMatchObject({ active_call_id: null, last_outcome: 'noAnswer', finished: true });
    expect(rows.contacts.get('contact-call-1')!.next_attempt_at).toBeNull();
  });

  it('finishes a contact who asked not to be called even when the outcome would be retried', async () => {
    await createCall('call-1');
    await createCall('call-2', { phone: '+34600000002' });
    rows.contacts.get('contact-call-1')!.disposition = 'doNotCall';

    await calls.dispatchCall('call-1', { type: 'call.busy' }, SYSTEM, undefined, T0 + 3000);

    expect(rows.contacts.get('contact-call-1')).toMatchObject({ last_outcome: 'busy', finished: true });
  });

  it('completes the campaign when the last outcome leaves no contact to call', async () => {
    await waitingAgent('u1');
    await createCall('call-1');
    await answer('call-1');
    await calls.dispatchCall('call-1', { type: 'call.hungUp' }, SYSTEM, undefined, T0 + 60_000);

    const done = await calls.dispatchCall('call-1', { type: 'call.dispositioned', disposition: 'sale' }, agentActor('u1'));

    expect(done).toMatchObject({ status: 'done', outcome: 'done', disposition: 'sale' });
    expect(rows.contacts.get('contact-call-1')).toMatchObject({ finished: true, last_outcome: 'done' });
    expect(rows.campaigns.get('camp-1')).toMatchObject({ status: 'completed', last_event: 'campaign.completed' });
    expect(rows.logOf('camp-1').at(-1)!.record).toMatchObject({ event: 'campaign.completed', to: 'completed' });
  });

  it('keeps the campaign running while a callback is pending', async () => {
    await createCall('call-1');
    rows.callbacks.push({ campaign_id: 'camp-1', status: 'pending' });

    await calls.dispatchCall('call-1', { type: 'call.notAnswered' }, SYSTEM, undefined, T0 + 3000);

    expect(rows.contacts.get('contact-call-1')!.finished).toBe(true);
    expect(rows.campaigns.get('camp-1')!.status).toBe('running');
  });

  it('refuses an event the call does not take in its state and writes nothing', async () => {
    await waitingAgent('u1');
    await createCall('call-1');
    const logged = rows.log.length;
    const queued = rows.outbox.length;
    happened.length = 0;

    const refused = await refusal(calls.dispatchCall('call-1', { type: 'call.agentConnected', agentId: 'u1' }, SYSTEM));

    expect(refused).toEqual({ code: 'illegal_transition', message: 'call.agentConnected is not allowed while the call is dialing' });
    expect(rows.log).toHaveLength(logged);
    expect(rows.outbox).toHaveLength(queued);
    expect(rows.calls.get('call-1')).toMatchObject({ status: 'dialing', version: 2 });
    expect(machineRows.agents.get('u1')!.status).toBe('waitingOutboundCall');
    expect(jobs).toEqual([]);
  });

  it('answers conflict when the call changed between its lock and its write', async () => {
    await createCall('call-1');
    rows.interfere('outbound_calls', 'call-1');

    const refused = await refusal(calls.dispatchCall('call-1', { type: 'call.ringing' }, SYSTEM));

    expect(refused.code).toBe('conflict');
    expect(rows.refused).toHaveLength(1);
    expect(stepsOf('call-1').map(([event]) => event)).toEqual(['xstate.init', 'call.dialed']);
  });

  it("answers not_found for another tenant's call", async () => {
    await createCall('call-1');

    expect((await refusal(calls.dispatchCall('call-1', { type: 'call.ringing' }, SYSTEM, 't2'))).code).toBe('not_found');
    expect((await refusal(calls.dispatchCall('no-such-call', { type: 'call.ringing' }, SYSTEM))).code).toBe('not_found');
    expect(rows.calls.get('call-1')).toMatchObject({ status: 'dialing', version: 2 });
  });
});

/** A Work for the seams that run inside a caller's transaction. */
function work() {
  return { outbox: [], timers: [], boards: new Set<string>(), deadlines: [] };
}
