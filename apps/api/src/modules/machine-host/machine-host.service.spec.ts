import type { Actor } from '@centralita/domain';
import type { DataSource, EntityManager } from 'typeorm';
import { MachineHostService } from './machine-host.service';
import { FakeMachineRows } from './machine-rows.fake';
import type { OutboxRelay } from './outbox-relay.service';
import { loadRealtimeConfig } from './realtime-config';
import { refusal } from '../../common/refusal.testing';

const system: Actor = { kind: 'system' };
const agent: Actor = { kind: 'agent', id: 'u1' };
const menuCompleted = {
  type: 'conversation.menuCompleted',
  queryTypeId: 'q1',
  submenuId: 's1',
  attentionLineId: 'l1',
  pollId: null,
} as const;

describe(MachineHostService.name, () => {
  let rows: FakeMachineRows;
  let host: MachineHostService;
  let kick: jest.Mock;
  // The data source's own manager (writes alone) and a transaction's: the fake ignores both.
  const outside = { name: 'outside' } as unknown as EntityManager;

  /** A process's host on the shared rows (each keeps its own agent rows). */
  const hostOn = (relayKick: jest.Mock) => {
    const dataSource = {
      manager: outside,
      transaction: <T>(work: (manager: EntityManager) => Promise<T>) => work({ name: 'transaction' } as unknown as EntityManager),
    } as unknown as DataSource;
    return new MachineHostService(dataSource, { kick: relayKick } as unknown as OutboxRelay, loadRealtimeConfig({}), rows);
  };

  beforeEach(() => {
    rows = new FakeMachineRows();
    kick = jest.fn();
    host = hostOn(kick);
  });

  const newAgent = (userId = 'u1') => host.ensureAgent(outside, userId, 't1', 2, ['lunch']);
  const newConversation = () =>
    host.createConversation(
      outside,
      { id: 'c1', tenantId: 't1', channel: 'webchat', entryLineId: 'l1', customerName: 'Ana', customerEmail: null, visitorId: null },
      { kind: 'customer' },
    );
  /** Routing's way of giving c1 (lining up) to u1 (ready): both planned on locked rows, written together. */
  const assign = () =>
    host.transaction(async (manager, outbox) => {
      const conversation = await host.lockConversation(manager, 'c1');
      const agentRow = await host.lockAgent(manager, 'u1');
      const agentStep = host.planAgentStep(agentRow, { type: 'agent.conversationAssigned', conversationId: 'c1' }, system);
      const conversationStep = await host.planLockedConversationStep(
        manager,
        conversation,
        { type: 'conversation.assigned', agentId: 'u1' },
        system,
      );
      outbox.push(...conversationStep.outboxIds, ...(await host.writeLockedSteps(manager, [agentStep], [conversationStep.write])));
    });

  it('creates an agent once, with its first log row', async () => {
    await newAgent();
    await newAgent();
    expect(rows.agents.get('u1')).toMatchObject({ status: 'loggedOut', version: 1, capacity: 2 });
    expect(rows.logOf('u1').map((row) => [row.record.event, row.version])).toEqual([['xstate.init', 1]]);
  });

  it('reads and steps an agent event alone again when another writer moved its version', async () => {
    await newAgent();
    await host.dispatch('agent', 'u1', { type: 'agent.loggedIn' }, agent);
    // Another process steps the agent: the row this process kept is one version behind.
    rows.moveVersion('agent_presence', 'u1');
    rows.reads.length = 0;

    const paused = await host.dispatch('agent', 'u1', { type: 'agent.paused', reasonId: 'lunch' }, agent);

    expect(rows.refused).toHaveLength(1);
    expect(rows.reads).toEqual(['readAgent:u1']);
    expect(paused).toMatchObject({ status: 'paused', version: 4 });
    expect(rows.logOf('u1').map((row) => [row.record.event, row.version])).toEqual([
      ['xstate.init', 1],
      ['agent.loggedIn', 2],
      ['agent.paused', 4],
    ]);
    expect(kick).toHaveBeenCalledTimes(2);
  });

  it('reads a kept agent row the machine refuses again before answering', async () => {
    await newAgent();
    await host.dispatch('agent', 'u1', { type: 'agent.loggedIn' }, agent);
    // Another process logs the agent out: this one's kept row still says ready, where a login is refused.
    await hostOn(jest.fn()).dispatch('agent', 'u1', { type: 'agent.loggedOut' }, agent);
    rows.reads.length = 0;

    const loggedIn = await host.dispatch('agent', 'u1', { type: 'agent.loggedIn' }, agent);

    expect(rows.reads).toEqual(['readAgent:u1']);
    expect(loggedIn).toMatchObject({ status: 'available', version: 4, last_event: 'agent.loggedIn' });
  });

  it('answers illegal_transition from a fresh read when the table refuses it too', async () => {
    await newAgent();
    await host.dispatch('agent', 'u1', { type: 'agent.loggedIn' }, agent);
    rows.reads.length = 0;

    const refused = await refusal(host.dispatch('agent', 'u1', { type: 'agent.loggedIn' }, agent));

    expect(refused.code).toBe('illegal_transition');
    // Refused on the kept row first, then on the row read again.
    expect(rows.reads).toEqual(['readAgent:u1']);
  });

  it("re-queues the conversations a logging-out agent holds, in the logout's transaction", async () => {
    await newAgent();
    await host.dispatch('agent', 'u1', { type: 'agent.loggedIn' }, agent);
    await newConversation();
    await host.dispatch('conversation', 'c1', menuCompleted, system);
    await assign();
    expect(rows.conversations.get('c1')).toMatchObject({ status: 'Active', agent_id: 'u1' });
    rows.reads.length = 0;

    const loggedOut = await host.dispatch('agent', 'u1', { type: 'agent.loggedOut' }, agent);

    expect(loggedOut).toMatchObject({ status: 'loggedOut', active_count: 0 });
    // Read alone, then the requeuing path: the held conversations locked before the agent (the lock order).
    expect(rows.reads.slice(0, 3)).toEqual(['readAgent:u1', 'lockHeldConversations:u1', 'lockAgent:u1']);
    expect(rows.conversations.get('c1')).toMatchObject({ status: 'LiningUp', agent_id: null, attention_line_id: 'l1' });
    const lastAgentLog = rows.logOf('u1').at(-1)!;
    expect(lastAgentLog.record.event).toBe('agent.loggedOut');
    expect(lastAgentLog.data).toEqual({ conversationIds: ['c1'] });
    expect(rows.logOf('c1').at(-1)!.record).toMatchObject({ event: 'conversation.transferred', from: 'Active', to: 'LiningUp' });
  });

  it('writes nothing for a conversation event its machine refuses', async () => {
    await newConversation();
    const logged = rows.log.length;
    const queued = rows.outbox.length;

    const refused = await refusal(host.dispatch('conversation', 'c1', { type: 'conversation.assigned', agentId: 'u1' }, system));

    expect(refused).toEqual({
      code: 'illegal_transition',
      message: 'conversation.assigned is not allowed while the conversation is Transitory',
    });
    expect(rows.log).toHaveLength(logged);
    expect(rows.outbox).toHaveLength(queued);
    expect(rows.conversations.get('c1')).toMatchObject({ status: 'Transitory', version: 1 });
  });

  it("answers not_found for another tenant's conversation or agent", async () => {
    await newConversation();
    await newAgent();

    expect((await refusal(host.dispatch('conversation', 'c1', menuCompleted, system, 't2'))).code).toBe('not_found');
    expect((await refusal(host.dispatchConversationAlone('c1', menuCompleted, system, 't2'))).code).toBe('not_found');
    expect((await refusal(host.dispatch('agent', 'u1', { type: 'agent.loggedIn' }, agent, 't2'))).code).toBe('not_found');
    expect(rows.conversations.get('c1')!.version).toBe(1);
    expect(rows.agents.get('u1')!.version).toBe(1);
  });

  it('reads and steps a conversation event alone again when its version moved', async () => {
    await newConversation();
    rows.interfere('conversations', 'c1', 1);

    const queued = await host.dispatchConversationAlone('c1', menuCompleted, system, 't1');

    expect(rows.refused).toHaveLength(1);
    expect(rows.reads.filter((read) => read === 'readConversation:c1')).toHaveLength(2);
    expect(queued).toMatchObject({ status: 'LiningUp', version: 3 });
    expect(rows.logOf('c1').map((row) => [row.record.event, row.version])).toEqual([
      ['xstate.init', 1],
      ['conversation.menuCompleted', 3],
    ]);
    expect(kick).toHaveBeenCalledTimes(1);
  });

  it('gives a conversation event alone up with conflict when its version keeps moving', async () => {
    await newConversation();
    rows.interfere('conversations', 'c1', 100);

    const refused = await refusal(host.dispatchConversationAlone('c1', menuCompleted, system, 't1'));

    expect(refused.code).toBe('conflict');
    expect(rows.refused).toHaveLength(8);
    expect(rows.logOf('c1').map((row) => row.record.event)).toEqual(['xstate.init']);
    expect(kick).not.toHaveBeenCalled();
  });
});
