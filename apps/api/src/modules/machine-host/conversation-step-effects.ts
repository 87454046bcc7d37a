import { isOpenConversationStatus, type Actor, type AgentPresenceContext } from '@centralita/domain';
import type { EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import type { ConversationHooks } from './conversation-hooks';
import { conversationIntentEffects, readConversationPolicy, type ConversationIntent } from './effects/conversation-effects';
import type { AgentEventInput } from './machine-bindings';
import type { MachineRows } from './machine-rows';
import { isIllegalTransition } from './machine-runner';
import type { OutboxEffect } from './outbox';
import type { RealtimeConfig } from './realtime-config';
import type { AgentRow, ConversationRow } from './views';

/** Steps the agent a conversation lets go of, in the conversation's transaction (MachineHostService.dispatchAgent). */
export type ReleaseAgent = (
  manager: EntityManager,
  agentId: string,
  input: Extract<AgentEventInput, { type: 'agent.conversationReleased' }>,
  actor: Actor,
  locked: AgentRow | undefined,
) => Promise<{ outboxIds: string[] }>;

/**
 * A conversation step's effects, worked out in its transaction before its row is written: the plain
 * ones from the pure conversationIntentEffects (its policy read first, through MachineRows), then
 * the intents whose work belongs in the step's transaction (the agent's release, the release and
 * close hooks).
 */
export class ConversationStepEffects {
  constructor(
    private readonly rows: MachineRows,
    private readonly hooks: ConversationHooks,
    private readonly config: RealtimeConfig,
    private readonly releaseAgent: ReleaseAgent,
  ) {}

  /**
   * A conversation step's effects: the plain ones from the pure conversationIntentEffects (policy
   * read first), then those of the intents that run in this transaction (runInTransactionIntents).
   * Plain effects are jobs only, so running the transaction's work after them changes no socket
   * push's order.
   */
  async effects(
    manager: EntityManager,
    before: ConversationRow,
    after: ConversationRow,
    intents: ConversationIntent[],
    actor: Actor,
    outboxIds: string[],
    /** Agents' rows this transaction holds (see planWithAgentsLocked), by user id. */
    agents: Map<string, AgentRow> = new Map(),
  ): Promise<OutboxEffect[]> {
    const readQueueWait = (attentionLineId: string, tenantId: string) => this.rows.readQueueWait(manager, attentionLineId, tenantId);
    const policy = await readConversationPolicy(readQueueWait, after, intents, this.config, Date.now());
    const effects = conversationIntentEffects(before, after, intents, policy);
    effects.push(...(await this.runInTransactionIntents(manager, before, after, intents, actor, outboxIds, agents)));
    return effects;
  }

  /**
   * The conversation intents that must run in the step's transaction (releaseAgent, startInquest)
   * and the close that happens once: the agent's release is stepped here so their load is exact the
   * moment the conversation leaves them (its outbox ids go to `outboxIds`), and the release and
   * close hooks answer the effects to write with the step.
   */
  private async runInTransactionIntents(
    manager: EntityManager,
    before: ConversationRow,
    after: ConversationRow,
    intents: ConversationIntent[],
    actor: Actor,
    outboxIds: string[],
    agents: Map<string, AgentRow>,
  ): Promise<OutboxEffect[]> {
    const effects: OutboxEffect[] = [];
    for (const intent of intents) {
      if (intent.type === 'releaseAgent') {
        const { agentId, conversationId, disposition } = intent.params;
        effects.push(...(await this.hooks.released(manager, before, after)));
        const agent = agents.get(agentId);
        // Re-queued by the agent's own logout, in this transaction: nothing left to release.
        if (agent && !(agent.snapshot.context as unknown as AgentPresenceContext).activeConversationIds.includes(conversationId)) continue;
        try {
          const released = await this.releaseAgent(
            manager,
            agentId,
            { type: 'agent.conversationReleased', conversationId, ...(disposition ? { disposition } : {}) },
            actor,
            agent,
          );
          outboxIds.push(...released.outboxIds);
        } catch (error) {
          // The agent already let go (logged out, requeued): nothing to release.
          if (!isIllegalTransition(error) && !(error instanceof AppException && error.code === 'not_found')) throw error;
        }
      } else if (intent.type === 'startInquest') {
        // Closed by someone, the customer only answers the poll now.
        effects.push(...(await this.hooks.closed(manager, after)));
      }
    }
    // Closed: once, whichever way (an Inquest ending reaches Closed again and is not a new close).
    if (after.status === 'Closed' && isOpenConversationStatus(before.status)) effects.push(...(await this.hooks.closed(manager, after)));
    return effects;
  }
}
