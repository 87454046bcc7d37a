import { describe, expect, it } from '@jest/globals';
import type { ConversationView } from '@centralita/contracts';
import { canConversation } from './machines';
import { agentRefusal, transferFailure, transferTargets } from './transfer';

const conversation = (over: Partial<ConversationView> = {}): ConversationView => ({
  id: 'c1',
  version: 3,
  tenantId: 't1',
  channel: 'webchat',
  status: 'Active',
  attentionLineId: 'line-a',
  agentId: 'agent-1',
  priority: 0,
  customerName: 'Ada',
  customerEmail: null,
  closeReason: null,
  disposition: null,
  lastEvent: 'conversation.assigned',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...over,
});
const lines = [
  { id: 'line-a', name: 'Sales' },
  { id: 'line-b', name: 'Support' },
];
const agents = [
  { id: 'agent-1', name: 'Me' },
  { id: 'agent-2', name: 'Other' },
];
const me = { kind: 'agent' as const, id: 'agent-1' };
const supervisor = { kind: 'supervisor' as const, id: 'sup' };

describe(transferTargets.name, () => {
  it("never offers the agent the conversation's current line, although the machine would accept it", () => {
    const view = conversation();
    // The machine lets an Active conversation go back to its own line's queue...
    expect(
      canConversation(view, me, { type: 'conversation.transferred', to: { kind: 'line', attentionLineId: 'line-a', pollId: null } }),
    ).toBe(true);
    // ...but the dialog offers only the other lines and the other agents.
    expect(transferTargets(view, me, lines, agents)).toEqual({ lines: [lines[1]], agents: [agents[1]] });
  });

  it('offers a supervisor neither the current line nor the agent holding the conversation', () => {
    expect(transferTargets(conversation(), supervisor, lines, agents)).toEqual({ lines: [lines[1]], agents: [agents[1]] });
    const queued = conversation({ status: 'LiningUp', agentId: null });
    expect(transferTargets(queued, supervisor, lines, agents).lines).toEqual([lines[1]]);
  });

  it('offers nothing for a closed conversation', () => {
    expect(transferTargets(conversation({ status: 'Closed' }), me, lines, agents)).toEqual({ lines: [], agents: [] });
  });
});

describe(agentRefusal.name, () => {
  it('lets an available or busy colleague with room take a chat', () => {
    expect(agentRefusal({ status: 'available', activeCount: 0, capacity: 2 })).toBeNull();
    expect(agentRefusal({ status: 'busy', activeCount: 1, capacity: 2 })).toBeNull();
  });

  it('names the state of a colleague who cannot take one now, and a full one', () => {
    expect(agentRefusal({ status: 'paused', activeCount: 0, capacity: 2 })).toEqual({ kind: 'state', status: 'paused' });
    expect(agentRefusal({ status: 'afterCallWork', activeCount: 0, capacity: 2 })).toEqual({ kind: 'state', status: 'afterCallWork' });
    expect(agentRefusal({ status: 'busy', activeCount: 2, capacity: 2 })).toEqual({ kind: 'full' });
  });

  it('refuses nobody it knows nothing about (the supervisor board passes names only)', () => {
    expect(agentRefusal({})).toBeNull();
  });
});

describe(transferFailure.name, () => {
  it('reads the receiving agent’s state from an illegal agent.conversationAssigned', () => {
    expect(transferFailure({ code: 'illegal_transition', data: { event: 'agent.conversationAssigned', state: 'paused' } })).toEqual({
      kind: 'agentState',
      status: 'paused',
    });
  });

  it('calls any other refused step or a vanished target a change meanwhile, and leaves other errors alone', () => {
    expect(transferFailure({ code: 'illegal_transition', data: { event: 'conversation.transferred', state: 'Closed' } })).toEqual({
      kind: 'gone',
    });
    expect(transferFailure({ status: 404, code: 'not_found' })).toEqual({ kind: 'gone' });
    expect(transferFailure({ status: 400, code: 'validation' })).toBeNull();
  });
});
