import { QUEUES } from '@centralita/contracts';
import type { AgentPresenceContext } from '@centralita/domain';
import type { AgentRow } from '../views';
import { agentIntentEffects, agentStepEffects, type AgentIntent } from './agent-effects';

const STATE_SINCE = 1_700_000_000_000;
const DISCONNECTED_AT = 1_700_000_100_000;

const row: AgentRow = {
  user_id: 'a1',
  tenant_id: 't1',
  name: 'Ana',
  status: 'available',
  capacity: 3,
  active_count: 0,
  snapshot: { value: {}, status: 'active', context: {} },
  version: 2,
  last_event: 'agent.loggedIn',
  state_since: new Date(STATE_SINCE),
};
const previous = (overrides: Partial<AgentPresenceContext> = {}) =>
  ({ lastStateChangeAt: STATE_SINCE, disconnectedAt: DISCONNECTED_AT, ...overrides }) as AgentPresenceContext;
const policy = { afterCallWorkSeconds: 15, disconnectGraceSeconds: 30 };
const effectsOf = (intents: AgentIntent[], context = previous()) => agentIntentEffects(context, row, intents, policy);

describe(agentIntentEffects.name, () => {
  it('asks routing to look at the agent when it offers capacity', () => {
    expect(effectsOf([{ type: 'requestAssignment', params: { agentId: 'a1', tenantId: 't1', freeSlots: 3 } }])).toEqual([
      { topic: 'job', payload: { queue: QUEUES.routing, name: 'agent', data: { tenantId: 't1', agentId: 'a1' } } },
    ]);
  });

  it('writes no effect for re-queued conversations: the host re-queues them in the transaction', () => {
    expect(effectsOf([{ type: 'requeueConversations', params: { agentId: 'a1', conversationIds: ['c1'] } }])).toEqual([]);
  });

  it('arms after-call work for the configured time and cancels the one armed when the state began', () => {
    expect(effectsOf([{ type: 'scheduleAfterCallWorkEnd', params: { agentId: 'a1', armedAt: STATE_SINCE } }])).toEqual([
      {
        topic: 'job',
        payload: {
          queue: QUEUES.machineTimers,
          name: 'agent.afterCallWorkEnded',
          jobId: `acw.a1.${STATE_SINCE}`,
          delayMs: 15_000,
          data: { entity: 'agent', id: 'a1', event: { type: 'agent.afterCallWorkEnded', armedAt: STATE_SINCE } },
        },
      },
    ]);
    expect(effectsOf([{ type: 'cancelAfterCallWorkEnd', params: { agentId: 'a1' } }])).toEqual([
      { topic: 'job.remove', payload: { queue: QUEUES.machineTimers, jobId: `acw.a1.${STATE_SINCE}` } },
    ]);
  });

  it('arms the disconnect grace and cancels the one armed at the disconnection', () => {
    expect(effectsOf([{ type: 'scheduleDisconnectGrace', params: { agentId: 'a1', armedAt: DISCONNECTED_AT } }])).toEqual([
      {
        topic: 'job',
        payload: {
          queue: QUEUES.machineTimers,
          name: 'agent.disconnectGraceExpired',
          jobId: `adg.a1.${DISCONNECTED_AT}`,
          delayMs: 30_000,
          data: { entity: 'agent', id: 'a1', event: { type: 'agent.disconnectGraceExpired', armedAt: DISCONNECTED_AT } },
        },
      },
    ]);
    expect(effectsOf([{ type: 'cancelDisconnectGrace', params: { agentId: 'a1' } }])).toEqual([
      { topic: 'job.remove', payload: { queue: QUEUES.machineTimers, jobId: `adg.a1.${DISCONNECTED_AT}` } },
    ]);
  });

  it('cancels nothing when no disconnect grace was armed', () => {
    expect(effectsOf([{ type: 'cancelDisconnectGrace', params: { agentId: 'a1' } }], previous({ disconnectedAt: null }))).toEqual([]);
  });

  it('keeps intent order', () => {
    const effects = effectsOf([
      { type: 'cancelDisconnectGrace', params: { agentId: 'a1' } },
      { type: 'requestAssignment', params: { agentId: 'a1', tenantId: 't1', freeSlots: 1 } },
    ]);
    expect(effects.map((effect) => effect.topic)).toEqual(['job.remove', 'job']);
  });
});

describe(agentStepEffects.name, () => {
  const routeAgent = { topic: 'job', payload: { queue: QUEUES.routing, name: 'agent', data: { tenantId: 't1', agentId: 'a1' } } };
  const before = (status: string): AgentRow => ({ ...row, status, snapshot: { ...row.snapshot, context: previous() as never } });
  const topics = (status: string, after: AgentRow, eventType: string, intents: AgentIntent[] = []) =>
    agentStepEffects(before(status), after, eventType, intents, policy).map((effect) =>
      effect.topic === 'socket' ? 'agent.updated' : (effect.payload as { name: string }).name,
    );

  it('refreshes routing when the state changed without capacity offered, and pushes the agent last', () => {
    expect(topics('available', { ...row, status: 'paused' }, 'agent.paused')).toEqual(['agent', 'agent.updated']);
    expect(agentStepEffects(before('available'), { ...row, status: 'paused' }, 'agent.paused', [], policy)[0]).toEqual(routeAgent);
  });

  it('leaves the refresh to the capacity offer when the step offers it', () => {
    const offer: AgentIntent = { type: 'requestAssignment', params: { agentId: 'a1', tenantId: 't1', freeSlots: 3 } };
    expect(topics('paused', row, 'agent.resumed', [offer])).toEqual(['agent', 'agent.updated']);
  });

  it('only pushes a step that kept the state', () => {
    expect(topics('available', row, 'agent.capacityChanged')).toEqual(['agent.updated']);
  });

  it('refreshes routing when a chat is let go during a call', () => {
    expect(topics('inCall', { ...row, status: 'inCall' }, 'agent.conversationReleased')).toEqual(['agent', 'agent.updated']);
  });
});
