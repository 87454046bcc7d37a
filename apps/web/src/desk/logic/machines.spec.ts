import { describe, expect, it } from '@jest/globals';
import type { AgentView, ConversationView } from '@centralita/contracts';
import { canAgent, canBecomeAvailable, canConversation, loggedOutView } from './machines';

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

const agent = (over: Partial<AgentView> = {}): AgentView => ({
  agentId: 'agent-1',
  version: 2,
  tenantId: 't1',
  name: 'Agent',
  status: 'available',
  pauseReasonId: null,
  capacity: 3,
  activeCount: 0,
  stateSince: '2026-01-01T00:00:00.000Z',
  lastEvent: 'agent.loggedIn',
  ...over,
});

const me = { kind: 'agent' as const, id: 'agent-1' };
const supervisor = { kind: 'supervisor' as const, id: 'sup' };
const reasons = ['break', 'lunch'];

describe('conversation buttons from the machine', () => {
  it('lets the agent holding an Active conversation close it', () => {
    expect(canConversation(conversation(), me, { type: 'conversation.closed', reason: 'resolved', disposition: 'ok' })).toBe(true);
  });

  it('refuses another agent', () => {
    expect(canConversation(conversation(), { kind: 'agent', id: 'other' }, { type: 'conversation.closed', reason: 'resolved' })).toBe(
      false,
    );
  });

  it('refuses closing once in Inquest or Closed', () => {
    expect(canConversation(conversation({ status: 'Inquest' }), me, { type: 'conversation.closed', reason: 'resolved' })).toBe(false);
    expect(canConversation(conversation({ status: 'Closed' }), supervisor, { type: 'conversation.closed', reason: 'resolved' })).toBe(
      false,
    );
  });

  it('allows a transfer to another line but not to the same one', () => {
    const to = (attentionLineId: string) => ({
      type: 'conversation.transferred' as const,
      to: { kind: 'line' as const, attentionLineId, pollId: null },
    });
    expect(canConversation(conversation(), me, to('line-b'))).toBe(true);
    expect(canConversation(conversation({ status: 'LiningUp', agentId: null }), supervisor, to('line-a'))).toBe(false);
    expect(canConversation(conversation({ status: 'LiningUp', agentId: null }), supervisor, to('line-b'))).toBe(true);
  });

  it('allows a transfer to another agent only', () => {
    const to = (agentId: string) => ({ type: 'conversation.transferred' as const, to: { kind: 'agent' as const, agentId } });
    expect(canConversation(conversation(), me, to('agent-2'))).toBe(true);
    expect(canConversation(conversation(), me, to('agent-1'))).toBe(false);
  });

  it('answers false without a view', () => {
    expect(canConversation(null, me, { type: 'conversation.closed', reason: 'x' })).toBe(false);
  });
});

describe('presence buttons from the machine', () => {
  it('pauses an available agent with an offered reason only', () => {
    expect(canAgent(agent(), reasons, me, { type: 'agent.paused', reasonId: 'break' })).toBe(true);
    expect(canAgent(agent(), reasons, me, { type: 'agent.paused', reasonId: 'nap' })).toBe(false);
  });

  it('does not pause again with the same reason', () => {
    expect(canAgent(agent({ status: 'paused', pauseReasonId: 'break' }), reasons, me, { type: 'agent.paused', reasonId: 'break' })).toBe(
      false,
    );
    expect(canAgent(agent({ status: 'paused', pauseReasonId: 'break' }), reasons, me, { type: 'agent.paused', reasonId: 'lunch' })).toBe(
      true,
    );
  });

  it('offers Available from a pause and login when logged out', () => {
    expect(canBecomeAvailable(agent({ status: 'paused', pauseReasonId: 'break' }), reasons, me)).toBe(true);
    expect(canBecomeAvailable(agent(), reasons, me)).toBe(false);
    expect(canBecomeAvailable(loggedOutView('agent-1', 't1'), reasons, me)).toBe(true);
  });

  it('logs out from off-call states but not while logged out', () => {
    expect(canAgent(agent({ status: 'busy', activeCount: 2 }), reasons, me, { type: 'agent.loggedOut' })).toBe(true);
    expect(canAgent(loggedOutView('agent-1', 't1'), reasons, me, { type: 'agent.loggedOut' })).toBe(false);
  });

  it('lets only a supervisor force a pause or a logout', () => {
    expect(canAgent(agent(), reasons, supervisor, { type: 'agent.forcePaused', reasonId: 'break' })).toBe(true);
    expect(canAgent(agent(), reasons, me, { type: 'agent.forcePaused', reasonId: 'break' })).toBe(false);
    expect(canAgent(agent(), reasons, supervisor, { type: 'agent.forceLoggedOut' })).toBe(true);
  });
});
