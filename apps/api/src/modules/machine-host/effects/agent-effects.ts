import type { agentPresenceMachine, AgentPresenceContext, IntentOf } from '@centralita/domain';
import type { OutboxEffect } from '../outbox';
import type { RealtimeConfig } from '../realtime-config';
import type { AgentRow } from '../views';
import { agentPush, cancelTimerEffects, routeAgentEffect, TIMER_KINDS, timerEffect } from './effect-builders';

export type AgentIntent = IntentOf<typeof agentPresenceMachine>;

/** Every value an agent step's effects depend on: the process's configured durations. */
export type AgentEffectPolicy = Pick<RealtimeConfig, 'afterCallWorkSeconds' | 'disconnectGraceSeconds'>;

/**
 * The outbox effects of an agent step's intents (routing's look at the agent, timers and their
 * cancellations), in intent order, from the context before the step and the row after it: no I/O.
 * requeueConversations is not an effect after commit: the host re-queues in the step's transaction.
 */
export function agentIntentEffects(
  previous: AgentPresenceContext,
  row: AgentRow,
  intents: readonly AgentIntent[],
  policy: AgentEffectPolicy,
): OutboxEffect[] {
  const effects: OutboxEffect[] = [];
  for (const intent of intents) {
    switch (intent.type) {
      case 'requestAssignment':
        effects.push(routeAgentEffect(row));
        break;
      case 'requeueConversations':
        break;
      case 'scheduleAfterCallWorkEnd': {
        const { agentId, armedAt } = intent.params;
        effects.push(
          timerEffect(TIMER_KINDS.afterCallWork, agentId, armedAt, policy.afterCallWorkSeconds, 'agent', 'agent.afterCallWorkEnded'),
        );
        break;
      }
      case 'cancelAfterCallWorkEnd':
        effects.push(...cancelTimerEffects(TIMER_KINDS.afterCallWork, intent.params.agentId, previous.lastStateChangeAt));
        break;
      case 'scheduleDisconnectGrace': {
        const { agentId, armedAt } = intent.params;
        effects.push(
          timerEffect(
            TIMER_KINDS.disconnectGrace,
            agentId,
            armedAt,
            policy.disconnectGraceSeconds,
            'agent',
            'agent.disconnectGraceExpired',
          ),
        );
        break;
      }
      case 'cancelDisconnectGrace':
        effects.push(...cancelTimerEffects(TIMER_KINDS.disconnectGrace, intent.params.agentId, previous.disconnectedAt));
        break;
      default:
        // A new intent must be given its effect here (or be run by the host): this stops compiling until it is.
        intent satisfies never;
    }
  }
  return effects;
}

/**
 * Every effect of an agent step, from the row before and after it: its intents' effects
 * (agentIntentEffects), a refresh of the queues' "agents available" when the state changed without
 * capacity offered (a pause, a logout…), and the agent.updated push last. No I/O.
 */
export function agentStepEffects(
  before: AgentRow,
  after: AgentRow,
  eventType: string,
  intents: readonly AgentIntent[],
  policy: AgentEffectPolicy,
): OutboxEffect[] {
  const effects = agentIntentEffects(before.snapshot.context as unknown as AgentPresenceContext, after, intents, policy);
  // A chat let go during a call frees room the line's chats-during-call rule may give again (the
  // machine offers capacity only in ready; routing applies the blended rule).
  const freedOnCall = after.status === 'inCall' && eventType === 'agent.conversationReleased';
  if ((before.status !== after.status || freedOnCall) && !intents.some((intent) => intent.type === 'requestAssignment')) {
    effects.push(routeAgentEffect(after));
  }
  effects.push(agentPush(after));
  return effects;
}
