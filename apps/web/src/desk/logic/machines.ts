import type { AgentView, ConversationView } from '@centralita/contracts';
import {
  agentPresenceMachine,
  conversationMachine,
  type Actor,
  type AgentPresenceEvent,
  type AgentPresenceSnapshot,
  type ConversationEvent,
  type ConversationSnapshot,
} from '@centralita/domain';

/**
 * The API pushes views (status, version, ids), not machine snapshots. The console rebuilds the
 * smallest snapshot that the machine's guards read, from the view, and asks the machine itself
 * (`snapshot.can(event)`) whether an action is possible. Context the view does not carry (timers'
 * armedAt, transfer history) is only read by events the console never sends, so it is left empty.
 */

type Distributive<T> = T extends unknown ? Omit<T, 'at' | 'actor'> : never;
export type ConversationCommand = Distributive<ConversationEvent>;
export type AgentCommand = Distributive<AgentPresenceEvent>;

export function conversationSnapshot(view: ConversationView): ConversationSnapshot {
  const createdAt = Date.parse(view.createdAt) || 0;
  return conversationMachine.resolveState({
    value: view.status as never,
    context: {
      id: view.id,
      tenantId: view.tenantId,
      channel: view.channel,
      queryTypeId: null,
      submenuId: null,
      attentionLineId: view.attentionLineId,
      pollId: null,
      agentId: view.agentId,
      priority: view.priority,
      createdAt,
      queuedAt: null,
      assignedAt: null,
      lastActivityAt: createdAt,
      closedAt: null,
      closeReason: view.closeReason,
      closedBy: null,
      disposition: view.disposition,
      transfers: [],
      surveyAnswers: [],
    },
  });
}

export function canConversation(view: ConversationView | null | undefined, actor: Actor, command: ConversationCommand): boolean {
  if (!view) return false;
  try {
    return conversationSnapshot(view).can({ ...command, at: Date.now(), actor } as ConversationEvent);
  } catch {
    return false;
  }
}

const AGENT_STATE_VALUES: Record<string, unknown> = {
  loggedOut: 'loggedOut',
  available: { loggedIn: { offCall: { ready: 'available' } } },
  busy: { loggedIn: { offCall: { ready: 'busy' } } },
  paused: { loggedIn: { offCall: 'paused' } },
  afterCallWork: { loggedIn: { offCall: 'afterCallWork' } },
  waitingOutboundCall: { loggedIn: { offCall: 'waitingOutboundCall' } },
  inCall: { loggedIn: 'inCall' },
  outboundCall: { loggedIn: 'outboundCall' },
};

/** A logged-out stand-in for an agent who never logged in (GET /api/agent/presence answers 404). */
export function loggedOutView(agentId: string, tenantId: string): AgentView {
  return {
    agentId,
    tenantId,
    version: 0,
    name: '',
    status: 'loggedOut',
    pauseReasonId: null,
    capacity: 1,
    activeCount: 0,
    stateSince: new Date(0).toISOString(),
    lastEvent: 'xstate.init',
  };
}

export function agentSnapshot(view: AgentView, pauseReasons: readonly string[]): AgentPresenceSnapshot {
  const since = Date.parse(view.stateSince) || 0;
  const value = AGENT_STATE_VALUES[view.status] ?? 'loggedOut';
  return agentPresenceMachine.resolveState({
    value: value as never,
    context: {
      agentId: view.agentId,
      tenantId: view.tenantId,
      capacity: Math.min(Math.max(view.capacity, 1), 5),
      pauseReasons: [...pauseReasons],
      // The view carries the count, not the ids; the guards only compare lengths and membership.
      activeConversationIds: Array.from({ length: view.activeCount }, (_, i) => `held-${i}`),
      busyFlag: view.status === 'busy' && view.activeCount === 0,
      pauseReasonId: view.pauseReasonId,
      pausedBy: null,
      disconnectedAt: null,
      lastStateChangeAt: since,
      idleSince: since,
      lastDisposition: null,
    },
  });
}

export function canAgent(
  view: AgentView | null | undefined,
  pauseReasons: readonly string[],
  actor: Actor,
  command: AgentCommand,
): boolean {
  if (!view) return false;
  try {
    return agentSnapshot(view, pauseReasons).can({ ...command, at: Date.now(), actor } as AgentPresenceEvent);
  } catch {
    return false;
  }
}

/** "Available" is one button for three machine events; the API picks the one that applies. */
export function canBecomeAvailable(view: AgentView | null | undefined, pauseReasons: readonly string[], actor: Actor): boolean {
  if (!view) return false;
  if (view.status === 'loggedOut') return canAgent(view, pauseReasons, actor, { type: 'agent.loggedIn' });
  return (
    canAgent(view, pauseReasons, actor, { type: 'agent.resumed' }) ||
    canAgent(view, pauseReasons, actor, { type: 'agent.afterCallWorkEnded' }) ||
    canAgent(view, pauseReasons, actor, { type: 'agent.madeAvailable' })
  );
}
