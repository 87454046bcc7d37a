import type { conversationMachine, ConversationContext, IntentOf } from '@centralita/domain';
import type { OutboxEffect } from '../outbox';
import type { RealtimeConfig } from '../realtime-config';
import type { ConversationRow } from '../views';
import { cancelTimerEffects, routeLineEffect, TIMER_KINDS, timerEffect } from './effect-builders';

export type ConversationIntent = IntentOf<typeof conversationMachine>;

/** The queue waits a line's queue timeout is chosen from: the line's own, else its tenant's, else the default. */
export interface QueueWait {
  attentionLineId: string;
  /** attention_line_routing.queue_timeout_seconds, when the line has one. */
  lineSeconds: number | null;
  /** The tenant's platform setting maxQueueWaitSeconds, when set. */
  tenantSeconds: number | null;
  defaultSeconds: number;
}

/** Every value the conversation's plain effects depend on, read before conversationIntentEffects runs. */
export interface ConversationEffectPolicy {
  /** Read only when the step schedules a queue timeout (see readConversationPolicy); null otherwise. */
  queueWait: QueueWait | null;
  inactivityTimeoutSeconds: number;
  surveyExpirySeconds: number;
  /** The clock a snoozed inactivity timer's remaining time is counted against (ms). */
  now: number;
}

/** Reads the line's and the tenant's queue waits (MachineRows.readQueueWait on the step's manager). */
export type QueueWaitReader = (attentionLineId: string, tenantId: string) => Promise<{ line: number | null; tenant: number | null }>;

/**
 * Reads the policy for a step's intents: the queue wait only when the step schedules a queue
 * timeout (one read, for the line it names), the rest from the process's configuration.
 */
export async function readConversationPolicy(
  readQueueWait: QueueWaitReader,
  after: ConversationRow,
  intents: readonly ConversationIntent[],
  config: Pick<RealtimeConfig, 'defaultQueueTimeoutSeconds' | 'inactivityTimeoutSeconds' | 'surveyExpirySeconds'>,
  now: number,
): Promise<ConversationEffectPolicy> {
  const scheduled = intents.find((intent) => intent.type === 'scheduleQueueTimeout');
  let queueWait: QueueWait | null = null;
  if (scheduled) {
    const { attentionLineId } = scheduled.params;
    const wait = await readQueueWait(attentionLineId, after.tenant_id);
    queueWait = { attentionLineId, lineSeconds: wait.line, tenantSeconds: wait.tenant, defaultSeconds: config.defaultQueueTimeoutSeconds };
  }
  return {
    queueWait,
    inactivityTimeoutSeconds: config.inactivityTimeoutSeconds,
    surveyExpirySeconds: config.surveyExpirySeconds,
    now,
  };
}

/** A line without its own timeout waits the tenant's "max queue wait", else the default. */
export function queueTimeoutSeconds(wait: QueueWait): number {
  return wait.lineSeconds ?? wait.tenantSeconds ?? wait.defaultSeconds;
}

/**
 * The outbox effects of a conversation step's plain intents (routing jobs, timers and their
 * cancellations), in intent order, from the row before and after the step and the policy read up
 * front: no I/O, no clock. Intents whose work writes rows or calls other modules inside the step's
 * transaction (releaseAgent, startInquest) are the host's (runInTransactionIntents), and the
 * conversation.updated push every step writes is added by the host too.
 */
export function conversationIntentEffects(
  before: ConversationRow,
  after: ConversationRow,
  intents: readonly ConversationIntent[],
  policy: ConversationEffectPolicy,
): OutboxEffect[] {
  const previous = before.snapshot.context as unknown as ConversationContext;
  const effects: OutboxEffect[] = [];
  for (const intent of intents) {
    switch (intent.type) {
      case 'enqueueRouting':
        effects.push(routeLineEffect(intent.params.tenantId, intent.params.attentionLineId));
        break;
      case 'dequeueRouting':
        // The queue moved: the line's router re-pushes positions and waits (and routes what it can).
        effects.push(routeLineEffect(before.tenant_id, intent.params.attentionLineId));
        break;
      case 'scheduleQueueTimeout': {
        const { conversationId, attentionLineId, armedAt } = intent.params;
        const wait = policy.queueWait;
        if (wait?.attentionLineId !== attentionLineId) {
          throw new Error(`No queue wait was read for line ${attentionLineId} (readConversationPolicy)`);
        }
        effects.push(
          timerEffect(
            TIMER_KINDS.queueTimeout,
            conversationId,
            armedAt,
            queueTimeoutSeconds(wait),
            'conversation',
            'conversation.queueTimedOut',
          ),
        );
        break;
      }
      case 'cancelQueueTimeout':
        effects.push(...cancelTimerEffects(TIMER_KINDS.queueTimeout, intent.params.conversationId, previous.queuedAt));
        break;
      case 'scheduleInactivityTimeout': {
        const { conversationId, armedAt, snoozed } = intent.params;
        // Messages do not touch the timer; one that fires after newer activity comes back here
        // snoozed, for what is left of the timeout counted from that activity.
        const timeout = policy.inactivityTimeoutSeconds;
        const seconds = snoozed ? Math.max(0, (armedAt + timeout * 1000 - policy.now) / 1000) : timeout;
        effects.push(
          timerEffect(TIMER_KINDS.inactivity, conversationId, armedAt, seconds, 'conversation', 'conversation.inactivityTimedOut'),
        );
        break;
      }
      case 'cancelInactivityTimeout':
        effects.push(...cancelTimerEffects(TIMER_KINDS.inactivity, intent.params.conversationId, intent.params.armedAt));
        break;
      case 'scheduleSurveyExpiry': {
        const { conversationId, armedAt } = intent.params;
        effects.push(
          timerEffect(
            TIMER_KINDS.surveyExpiry,
            conversationId,
            armedAt,
            policy.surveyExpirySeconds,
            'conversation',
            'conversation.surveyExpired',
          ),
        );
        break;
      }
      case 'cancelSurveyExpiry':
        effects.push(...cancelTimerEffects(TIMER_KINDS.surveyExpiry, intent.params.conversationId, previous.closedAt));
        break;
      // Pushed by the conversation.updated event every transition writes.
      case 'notifyAgent':
      case 'notifyClosed':
        break;
      // Run by the host in the step's transaction.
      case 'releaseAgent':
      case 'startInquest':
        break;
      default:
        // A new intent must be given its effect here (or be run by the host): this stops compiling until it is.
        intent satisfies never;
    }
  }
  return effects;
}
