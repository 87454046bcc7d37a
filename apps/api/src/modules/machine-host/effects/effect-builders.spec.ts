import type { SocketEmit } from '../outbox';
import type { ConversationRow } from '../views';
import { conversationPush } from './effect-builders';

const AT = 1_700_000_000_000;

function row(overrides: Partial<ConversationRow> = {}): ConversationRow {
  return {
    id: 'c1',
    tenant_id: 't1',
    channel: 'webchat',
    entry_line_id: 'l1',
    attention_line_id: 'l1',
    agent_id: 'a1',
    status: 'Active',
    priority: 0,
    queued_at: null,
    customer_name: 'Ana',
    customer_email: null,
    visitor_id: null,
    snapshot: { value: 'Active', status: 'active', context: {} },
    version: 3,
    last_event: 'conversation.assigned',
    created_at: new Date(AT),
    updated_at: new Date(AT),
    closed_at: null,
    ...overrides,
  };
}

function staffRooms(effect: ReturnType<typeof conversationPush>): string[] {
  const emits = (effect.payload as { emits: SocketEmit[] }).emits;
  return emits.find((emit) => emit.namespace === 'staff')!.rooms;
}

describe('conversationPush', () => {
  const touched = row({ version: 4, last_event: 'conversation.messageReceived', updated_at: new Date(AT + 5_000) });

  it('pushes a touch-only step to the conversation and its agent, not to the tenant or line rooms', () => {
    expect(staffRooms(conversationPush(touched, row())).sort()).toEqual(['agent:a1', 'conversation:c1']);
  });

  it('pushes a step that changes what a view shows to the tenant and line rooms too', () => {
    const closed = row({ version: 4, status: 'Closed', last_event: 'conversation.closed', updated_at: new Date(AT + 5_000) });
    expect(staffRooms(conversationPush(closed, row())).sort()).toEqual(['agent:a1', 'conversation:c1', 'line:l1', 'tenant:t1']);
    const assigned = row({ version: 4, agent_id: 'a2' });
    expect(staffRooms(conversationPush(assigned, row())).sort()).toEqual([
      'agent:a1',
      'agent:a2',
      'conversation:c1',
      'line:l1',
      'tenant:t1',
    ]);
  });

  it('pushes a new conversation (no previous row) to every room', () => {
    expect(staffRooms(conversationPush(row(), null)).sort()).toEqual(['agent:a1', 'conversation:c1', 'line:l1', 'tenant:t1']);
  });
});
