import type { ConversationView } from '@centralita/contracts';
import type { Actor } from '@centralita/domain';
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
