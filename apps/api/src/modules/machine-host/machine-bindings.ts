import {
  agentPresenceMachine,
  conversationMachine,
  describeAgentState,
  describeConversationState,
  type AgentLogData,
  type AgentPresenceContext,
  type AgentPresenceEvent,
  type ConversationContext,
  type ConversationEvent,
  type ConversationLogData,
  type TransitionRecord,
} from '@centralita/domain';
import type { MachineBinding, StepPlan } from './machine-runner';
import type { OutboxEffect } from './outbox';
import type { ColumnTypes } from './versioned-write';
import type { AgentRow, ConversationRow } from './views';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type ConversationEventInput = DistributiveOmit<ConversationEvent, 'at' | 'actor'>;
export type AgentEventInput = DistributiveOmit<AgentPresenceEvent, 'at' | 'actor'>;

/** A conversation event stepped in memory (planStep on the conversation binding). */
export type ConversationStepPlan = StepPlan<typeof conversationMachine, ConversationRow, ConversationEventInput>;

/** An agent event stepped in memory with its effects, ready to be written (MachineHostService.planAgentStep). */
export interface AgentStepPlan extends StepPlan<typeof agentPresenceMachine, AgentRow, AgentEventInput> {
  effects: OutboxEffect[];
  /**
   * Conversations the step hands back to their lines (the agent left holding them): the host
   * re-queues them in the step's own transaction (see dispatchAgent), never after it.
   */
  requeue: string[];
}

/** The PostgreSQL types of the columns the conversation binding sets (for writeVersionedBatch). */
export const CONVERSATION_COLUMN_TYPES: ColumnTypes = {
  status: 'text',
  attention_line_id: 'uuid',
  agent_id: 'uuid',
  priority: 'int',
  queued_at: 'timestamptz',
  closed_at: 'timestamptz',
  snapshot: 'jsonb',
  last_event: 'text',
  updated_at: 'timestamptz',
};
/** The PostgreSQL types of the columns the agent-presence binding sets (for writeVersionedBatch). */
export const AGENT_COLUMN_TYPES: ColumnTypes = {
  status: 'text',
  capacity: 'int',
  active_count: 'int',
  snapshot: 'jsonb',
  last_event: 'text',
  state_since: 'timestamptz',
  updated_at: 'timestamptz',
};

/** What the KPIs read on each conversation log row besides the transition (libs/domain/src/kpi/kpi-log.ts). */
export function conversationLogData(context: ConversationContext): ConversationLogData {
  return { channel: context.channel, attentionLineId: context.attentionLineId, agentId: context.agentId };
}

/** The conversations an agent step hands back to their lines (a logout holding some). */
export function requeuedBy(intents: readonly { type: string; params: unknown }[]): string[] {
  return intents.flatMap((intent) =>
    intent.type === 'requeueConversations' ? (intent.params as { conversationIds: string[] }).conversationIds : [],
  );
}

/** What the KPIs read on each agent log row besides the transition; null when there is nothing. */
export function agentLogData(
  record: TransitionRecord,
  context: AgentPresenceContext,
  input: AgentEventInput,
  requeue: string[],
): AgentLogData | null {
  const data: AgentLogData = {};
  if (record.to === 'paused') data.pauseReasonId = context.pauseReasonId;
  // The conversation an assignment or a release is about, and what a logout handed back.
  if (input.type === 'agent.conversationAssigned' || input.type === 'agent.conversationReleased')
    data.conversationId = input.conversationId;
  // The call's line and channel, when telephony gave them (per-line call AHT reads the row entering inCall).
  if (input.type === 'agent.callStarted') {
    if (input.attentionLineId) data.attentionLineId = input.attentionLineId;
    if (input.channel) data.channel = input.channel;
    if (input.conversationId) data.conversationId = input.conversationId;
  }
  if (requeue.length > 0) data.conversationIds = requeue;
  return Object.keys(data).length > 0 ? data : null;
}

const stamp = (value: number | null): Date | null => (value === null ? null : new Date(value));

/** The conversation machine on `conversations`, keyed by id. */
export const conversationBinding: MachineBinding<typeof conversationMachine, ConversationRow, ConversationEventInput> = {
  machine: conversationMachine,
  table: 'conversations',
  keyColumn: 'id',
  keyOf: (row) => row.id,
  entity: 'conversation',
  noun: 'the conversation',
  statusOf: describeConversationState,
  derive: (current, { snapshot, context, record, input }) => ({
    ...current,
    status: describeConversationState(snapshot),
    attention_line_id: context.attentionLineId,
    agent_id: context.agentId,
    priority: context.priority,
    queued_at: stamp(context.queuedAt),
    closed_at: stamp(context.closedAt),
    last_event: input.type,
    updated_at: new Date(record.at),
  }),
  columns: (next, snapshotJson) => [
    ['status', next.status],
    ['attention_line_id', next.attention_line_id],
    ['agent_id', next.agent_id],
    ['priority', next.priority],
    ['queued_at', next.queued_at],
    ['closed_at', next.closed_at],
    ['snapshot', snapshotJson],
    ['last_event', next.last_event],
    ['updated_at', next.updated_at],
  ],
  logData: ({ context }) => conversationLogData(context),
  initialLogData: conversationLogData,
};

/** The agent-presence machine on `agent_presence`, keyed by user id. */
export const agentBinding: MachineBinding<typeof agentPresenceMachine, AgentRow, AgentEventInput> = {
  machine: agentPresenceMachine,
  table: 'agent_presence',
  keyColumn: 'user_id',
  keyOf: (row) => row.user_id,
  entity: 'agent',
  noun: 'the agent',
  statusOf: describeAgentState,
  derive: (current, { snapshot, context, input }) => ({
    ...current,
    status: describeAgentState(snapshot),
    capacity: context.capacity,
    active_count: context.activeConversationIds.length,
    last_event: input.type,
    state_since: new Date(context.lastStateChangeAt),
  }),
  columns: (next, snapshotJson) => [
    ['status', next.status],
    ['capacity', next.capacity],
    ['active_count', next.active_count],
    ['snapshot', snapshotJson],
    ['last_event', next.last_event],
    ['state_since', next.state_since],
    // The write's own time, as the row had before the runner: presence rows carry no step time.
    ['updated_at', new Date()],
  ],
  logData: ({ record, context, input, intents }) => agentLogData(record, context, input, requeuedBy(intents)),
  initialLogData: () => null,
};
