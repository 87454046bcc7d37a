import { describe, expect, it } from '@jest/globals';
import type { ConversationView } from '@centralita/contracts';
import { isHeldBy, nextSelection } from './useAgentDesk';

const view = (id: string, over: Partial<ConversationView> = {}): ConversationView => ({
  id,
  version: 1,
  tenantId: 't',
  channel: 'webchat',
  status: 'Active',
  attentionLineId: 'l',
  agentId: 'me',
  priority: 0,
  customerName: id,
  customerEmail: null,
  closeReason: null,
  disposition: null,
  lastEvent: 'conversation.assigned',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...over,
});

describe(nextSelection.name, () => {
  it('keeps the open chat while the agent holds it', () => {
    expect(nextSelection('b', [view('a'), view('b')])).toBe('b');
  });

  it('opens the oldest held chat when the open one left or none was open', () => {
    expect(nextSelection('gone', [view('a'), view('b')])).toBe('a');
    expect(nextSelection(null, [view('a')])).toBe('a');
    expect(nextSelection('gone', [])).toBeNull();
  });
});

describe(isHeldBy.name, () => {
  it('holds only an Active chat assigned to the agent', () => {
    expect(isHeldBy(view('a'), 'me')).toBe(true);
    expect(isHeldBy(view('a', { agentId: 'other' }), 'me')).toBe(false);
    expect(isHeldBy(view('a', { status: 'LiningUp', agentId: null }), 'me')).toBe(false);
    expect(isHeldBy(view('a', { status: 'Inquest' }), 'me')).toBe(false);
  });
});
