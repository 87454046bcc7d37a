import { describe, expect, it } from '@jest/globals';
import type { ConversationView } from '@centralita/contracts';
import { canConversation } from './machines';
import { transferTargets } from './transfer';

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
