import type { ConversationView } from '@centralita/contracts';
import { READY_AGENT_STATUSES, type Actor } from '@centralita/domain';
import { canConversation } from './machines';

/**
 * What the transfer dialog offers: lines other than the conversation's current one (moving a chat
 * to the line it is already on only queues it again) and agents other than the one holding it and
 * the acting agent, each still allowed by the conversation machine.
 */
export function transferTargets<L extends { id: string }, A extends { id: string }>(
  conversation: ConversationView,
  actor: Actor,
  lines: readonly L[],
  agents: readonly A[],
): { lines: L[]; agents: A[] } {
  return {
    lines: lines.filter(
      (line) =>
        line.id !== conversation.attentionLineId &&
        canConversation(conversation, actor, {
          type: 'conversation.transferred',
          to: { kind: 'line', attentionLineId: line.id, pollId: null },
        }),
    ),
    agents: agents.filter(
      (agent) =>
        agent.id !== conversation.agentId &&
        !(actor.kind === 'agent' && agent.id === actor.id) &&
        canConversation(conversation, actor, { type: 'conversation.transferred', to: { kind: 'agent', agentId: agent.id } }),
    ),
  };
}

/** Agent states that can take a transferred chat: ready for conversations, as the presence machine defines it. */
const TAKING_STATES = new Set<string>(READY_AGENT_STATUSES);

/**
 * Why a colleague cannot take a transfer now, or null when they can: not in a taking state (paused,
 * wrap-up, on an outbound call…) or no room left. The server refuses the same; asking first lets
 * the dialog disable the choice and say why instead of failing after the click.
 */
export function agentRefusal(agent: {
  status?: string;
  activeCount?: number;
  capacity?: number;
}): { kind: 'state'; status: string } | { kind: 'full' } | null {
  if (agent.status !== undefined && !TAKING_STATES.has(agent.status)) return { kind: 'state', status: agent.status };
  if (agent.activeCount !== undefined && agent.capacity !== undefined && agent.activeCount >= agent.capacity) return { kind: 'full' };
  return null;
}

/** The refusal of a transfer the server answered, as the dialog words it; null: no specific words. */
export function transferFailure(error: {
  status?: number;
  code?: string;
  data?: unknown;
}): { kind: 'agentState'; status: string } | { kind: 'gone' } | null {
  const data = (error.data ?? null) as { event?: unknown; state?: unknown } | null;
  if (error.code === 'illegal_transition' && data?.event === 'agent.conversationAssigned' && typeof data.state === 'string')
    return { kind: 'agentState', status: data.state };
  if (error.code === 'illegal_transition' || error.status === 404) return { kind: 'gone' };
  return null;
}
