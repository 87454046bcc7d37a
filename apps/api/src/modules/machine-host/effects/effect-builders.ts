import { QUEUES, roomName } from '@centralita/contracts';
import { timerJobId, type OutboxEffect, type SocketEmit } from '../outbox';
import { agentView, conversationView, type AgentRow, type ConversationRow } from '../views';

/** The machine a timer steps when it fires (the machine-timers worker dispatches to it). */
export type TimerEntity = 'conversation' | 'agent';

/** Timer kinds: the first part of a timer's job id (timerJobId), so a cancel finds the job it armed. */
export const TIMER_KINDS = {
  queueTimeout: 'cqt',
  inactivity: 'cin',
  surveyExpiry: 'csx',
  afterCallWork: 'acw',
  disconnectGrace: 'adg',
} as const;

/** A delayed machine-timers job that dispatches `event` to the entity when it fires. */
export function timerEffect(
  kind: string,
  entityId: string,
  armedAt: number,
  delaySeconds: number,
  entity: TimerEntity,
  eventType: string,
): OutboxEffect {
  // The event the timer sends back, stamped with when it was armed (a stale one is refused).
  const timerEvent: { type: string; armedAt: number } = { type: eventType, armedAt };
  return {
    topic: 'job',
    payload: {
      queue: QUEUES.machineTimers,
      name: eventType,
      jobId: timerJobId(kind, entityId, armedAt),
      delayMs: Math.round(delaySeconds * 1000),
      data: { entity, id: entityId, event: timerEvent },
    },
  };
}

/** Removes the timer armed at `armedAt`; nothing when none was armed. */
export function cancelTimerEffects(kind: string, entityId: string, armedAt: number | null): OutboxEffect[] {
  if (armedAt === null) return [];
  return [{ topic: 'job.remove', payload: { queue: QUEUES.machineTimers, jobId: timerJobId(kind, entityId, armedAt) } }];
}

/** Asks the line's router to route again (and re-push positions and waits). */
export function routeLineEffect(tenantId: string, attentionLineId: string): OutboxEffect {
  return { topic: 'job', payload: { queue: QUEUES.routing, name: 'line', data: { tenantId, attentionLineId } } };
}

/** Asks routing to look at one agent (offered capacity, or the queues' "agents available" changed). */
export function routeAgentEffect(row: AgentRow): OutboxEffect {
  return { topic: 'job', payload: { queue: QUEUES.routing, name: 'agent', data: { tenantId: row.tenant_id, agentId: row.user_id } } };
}

/**
 * The conversation.updated push of a step: staff in the tenant, the conversation, its line and its
 * agent (and the agent it left, so their list drops it), and the customer's widget. A touch-only
 * step (nothing a view shows changed but its version, event and time — a customer's message) goes
 * only to the conversation's rooms and its agent: the supervisor board and the line's queue show
 * nothing it changes (the board's elapsed time runs from createdAt; dashboards refresh on a timer),
 * and fanning every message out to the tenant room made its cost grow with the supervisors online.
 * Clients keep the highest version, so the next real transition brings them up to date.
 */
export function conversationPush(row: ConversationRow, previous: ConversationRow | null): OutboxEffect {
  const view = conversationView(row);
  const touchOnly = previous !== null && isTouchOnly(conversationView(previous), view);
  const staffRooms = new Set([roomName({ kind: 'conversation', id: row.id })]);
  if (!touchOnly) staffRooms.add(roomName({ kind: 'tenant', id: row.tenant_id }));
  if (row.agent_id) staffRooms.add(roomName({ kind: 'agent', id: row.agent_id }));
  if (previous?.agent_id) staffRooms.add(roomName({ kind: 'agent', id: previous.agent_id }));
  if (row.attention_line_id && !touchOnly) staffRooms.add(roomName({ kind: 'line', id: row.attention_line_id }));
  const emits: SocketEmit[] = [
    { namespace: 'staff', rooms: [...staffRooms], event: 'conversation.updated', data: view },
    { namespace: 'visitor', rooms: [roomName({ kind: 'conversation', id: row.id })], event: 'conversation.updated', data: view },
  ];
  return { topic: 'socket', payload: { emits } };
}

/** Fields every step moves; a step that changes nothing else only touched the conversation. */
const STEP_STAMPS = new Set(['version', 'lastEvent', 'updatedAt']);

function isTouchOnly(before: ReturnType<typeof conversationView>, after: ReturnType<typeof conversationView>): boolean {
  return (Object.keys(after) as (keyof typeof after)[]).every((key) => STEP_STAMPS.has(key) || before[key] === after[key]);
}

/** The agent.updated push of a step: staff in the tenant and the agent's own sockets. */
export function agentPush(row: AgentRow): OutboxEffect {
  const rooms = [roomName({ kind: 'tenant', id: row.tenant_id }), roomName({ kind: 'agent', id: row.user_id })];
  return { topic: 'socket', payload: { emits: [{ namespace: 'staff', rooms, event: 'agent.updated', data: agentView(row) }] } };
}
