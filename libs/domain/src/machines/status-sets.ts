import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { CONVERSATION_STATUSES, conversationMachine, type ConversationStatus } from './conversation.machine';
import { AGENT_STATUSES, agentPresenceMachine, type AgentStatus } from './agent-presence.machine';

/**
 * Named groups of statuses read from the machine definitions, so a query, a view or a guard that
 * needs "the open conversations" or "the agents who may receive one" asks the machine instead of
 * repeating a list that drifts when a state is added. A status is a leaf state (describe*State).
 */

function leavesOf(node: AnyStateNode): AnyStateNode[] {
  const children = Object.values(node.states);
  return children.length === 0 ? [node] : children.flatMap(leavesOf);
}

/** The node and every state above it, from the root down. */
function ancestry(node: AnyStateNode): AnyStateNode[] {
  const chain: AnyStateNode[] = [];
  for (let current: AnyStateNode | undefined = node; current; current = current.parent) chain.unshift(current);
  return chain;
}

/** The leaf states (statuses) at or below the state `path` of `machine`, in definition order. */
export function leafStatesUnder(machine: AnyStateMachine, path: readonly string[]): string[] {
  let node: AnyStateNode = machine.root;
  for (const key of path) {
    const child = node.states[key] as AnyStateNode | undefined;
    if (!child) throw new Error(`Machine ${machine.id} has no state ${path.join('.')}`);
    node = child;
  }
  return leavesOf(node).map((leaf) => leaf.key);
}

/**
 * The leaf states in which `eventType` has a transition (on the leaf or any state above it): the
 * statuses where the machine may take that event, guards permitting.
 */
export function leafStatesHandling(machine: AnyStateMachine, eventType: string): string[] {
  return leavesOf(machine.root)
    .filter((leaf) => ancestry(leaf).some((node) => Object.prototype.hasOwnProperty.call(node.config.on ?? {}, eventType)))
    .map((leaf) => leaf.key);
}

function inOrder<T extends string>(all: readonly T[], chosen: readonly string[]): readonly T[] {
  return all.filter((status) => chosen.includes(status));
}

/**
 * Conversations still open to their customer: the states that take a customer message (the menu,
 * the queue, an agent). A contact has at most one (uq_conversations_open_contact); the others,
 * the survey and closed, refuse a message.
 */
export const OPEN_CONVERSATION_STATUSES: readonly ConversationStatus[] = inOrder(
  CONVERSATION_STATUSES,
  leafStatesHandling(conversationMachine, 'conversation.messageReceived'),
);

/** Conversations whose customer can no longer write: the survey and closed. */
export const ENDED_CONVERSATION_STATUSES: readonly ConversationStatus[] = CONVERSATION_STATUSES.filter(
  (status) => !OPEN_CONVERSATION_STATUSES.includes(status),
);

/** Whether a stored status (a row's, a view's) is one of OPEN_CONVERSATION_STATUSES. */
export function isOpenConversationStatus(status: string): boolean {
  return (OPEN_CONVERSATION_STATUSES as readonly string[]).includes(status);
}

/** Agents ready for conversations (spec §4 `ready`): available, or busy with room left. */
export const READY_AGENT_STATUSES: readonly AgentStatus[] = inOrder(
  AGENT_STATUSES,
  leafStatesUnder(agentPresenceMachine, ['loggedIn', 'offCall', 'ready']),
);

/** Whether a stored presence status is one of READY_AGENT_STATUSES. */
export function isReadyAgentStatus(status: string): boolean {
  return (READY_AGENT_STATUSES as readonly string[]).includes(status);
}

/**
 * Agents the machine lets routing give a conversation (capacity permitting): the ready ones and,
 * for blended lines that allow it, agents on an inbound call.
 */
export const ASSIGNABLE_AGENT_STATUSES: readonly AgentStatus[] = inOrder(
  AGENT_STATUSES,
  leafStatesHandling(agentPresenceMachine, 'agent.conversationAssigned'),
);

/**
 * A status list as a SQL literal list, `('a', 'b')`, for `status IN …` where a literal must stay
 * (partial-index predicates) or reads best. Only plain state names are accepted: no quoting games.
 */
export function sqlStatusList(statuses: readonly string[]): string {
  if (statuses.length === 0) throw new Error('An empty status list matches nothing');
  for (const status of statuses) if (!/^[A-Za-z]+$/.test(status)) throw new Error(`Not a state name: ${status}`);
  return `(${statuses.map((status) => `'${status}'`).join(', ')})`;
}
