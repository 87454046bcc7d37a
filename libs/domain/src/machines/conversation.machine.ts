import { and, assign, setup, type SnapshotFrom } from 'xstate';
import { DomainError } from '../domain-error';
import { intent } from './intent';
import { leafState, type Actor, type Stamped } from './machine-step';

/**
 * Conversation lifecycle (spec §4): Transitory (menu or bot) → LiningUp (queued on an attention
 * line) → Active (with one agent) → Inquest (post-conversation poll) → Closed (final).
 * State names are the spec's status names, so the stored status is the state value itself.
 *
 * Timers are the host's (BullMQ delayed jobs). Each schedule intent carries `armedAt`; the timer
 * event must echo it, so a timer that fires after its state was left and re-entered is refused.
 */
export const CONVERSATION_STATUSES = ['Transitory', 'LiningUp', 'Active', 'Inquest', 'Closed'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

/** Reasons the machine sets itself; `conversation.closed` carries the business ones ('resolved', 'spam'…). */
export const CLOSE_REASONS = { abandoned: 'abandoned', queueTimeout: 'queue_timeout', inactivity: 'inactivity' } as const;

export type TransferTarget = { kind: 'line'; attentionLineId: string; pollId: string | null } | { kind: 'agent'; agentId: string };

export interface TransferRecord {
  at: number;
  by: Actor;
  fromAttentionLineId: string | null;
  fromAgentId: string | null;
  to: TransferTarget;
}

export interface SurveyAnswer {
  questionId: string;
  answer: string;
  at: number;
}

export interface ConversationContext {
  id: string;
  tenantId: string;
  /** Channel code as named in @centralita/contracts (webchat, whatsapp, email…). */
  channel: string;
  queryTypeId: string | null;
  submenuId: string | null;
  attentionLineId: string | null;
  /** The current line's poll; a conversation closed from Active goes to Inquest only when set. */
  pollId: string | null;
  /** Owner while Active; kept afterwards as the agent who served it; null until assigned or after a transfer to a line. */
  agentId: string | null;
  /** Higher is served first (see `orderQueue`). */
  priority: number;
  createdAt: number;
  queuedAt: number | null;
  assignedAt: number | null;
  /**
   * A phone conversation: when the agent's phone answered (`conversation.callAnswered`); assignment
   * only rings it. Undefined on conversations that never had a call answered.
   */
  callAnsweredAt?: number | null;
  lastActivityAt: number;
  /**
   * The activity time the live inactivity timer was armed for (its job id carries it). Messages only
   * move lastActivityAt; when the timer fires after newer activity it is re-armed for the remainder
   * instead of closing, so a busy chat costs no timer work per message. Snapshots written before
   * this field existed armed at lastActivityAt (undefined reads as that).
   */
  inactivityArmedAt?: number | null;
  closedAt: number | null;
  closeReason: string | null;
  closedBy: Actor | null;
  disposition: string | null;
  transfers: TransferRecord[];
  surveyAnswers: SurveyAnswer[];
}

export interface ConversationInput extends Stamped {
  id: string;
  tenantId: string;
  channel: string;
}

export type ConversationEvent = Stamped &
  (
    | {
        type: 'conversation.menuCompleted';
        queryTypeId: string;
        submenuId: string;
        attentionLineId: string;
        pollId: string | null;
        priority?: number;
      }
    | { type: 'conversation.assigned'; agentId: string }
    /**
     * An agent starts the conversation themselves (an outbound email, /emails/SendEmail): it skips
     * the menu and the queue and goes straight to Active with that agent, on the account's line.
     * The host reserves the agent's capacity in the same transaction (agent.conversationAssigned).
     */
    | { type: 'conversation.agentStarted'; agentId: string; attentionLineId: string }
    | { type: 'conversation.transferred'; to: TransferTarget }
    | { type: 'conversation.abandoned' }
    | { type: 'conversation.queueTimedOut'; armedAt: number }
    | { type: 'conversation.inactivityTimedOut'; armedAt: number }
    /** attentionLineId: from the menu (Transitory) only, the line the closing choice named (an IVR voicemail's line). */
    | { type: 'conversation.closed'; reason: string; disposition?: string; attentionLineId?: string }
    | { type: 'conversation.surveyAnswered'; questionId: string; answer: string; last: boolean }
    | { type: 'conversation.surveyExpired'; armedAt: number }
    | { type: 'conversation.messageReceived' }
    /**
     * Telephony: the agent's phone answered the call of this (phone) conversation. Assignment only
     * rings the agent; the queue stay ends here for the speed of answer (kpi/queue-kpis.ts).
     */
    | { type: 'conversation.callAnswered' }
  );

type ConversationEventOf<TType extends ConversationEvent['type']> = Extract<ConversationEvent, { type: TType }>;

function hasText(...values: (string | null | undefined)[]): boolean {
  return values.every((value) => typeof value === 'string' && value.trim().length > 0);
}

/** Reads a field the current state guarantees (e.g. the line while LiningUp). */
function present<T>(value: T | null, field: string): T {
  if (value === null) throw new DomainError('machine.invalidInput', `Conversation has no ${field} in a state that requires one`);
  return value;
}

function createContext(input: ConversationInput): ConversationContext {
  if (!hasText(input.id, input.tenantId, input.channel)) {
    throw new DomainError('machine.invalidInput', 'A conversation needs an id, a tenant and a channel');
  }
  return {
    id: input.id,
    tenantId: input.tenantId,
    channel: input.channel,
    queryTypeId: null,
    submenuId: null,
    attentionLineId: null,
    pollId: null,
    agentId: null,
    priority: 0,
    createdAt: input.at,
    queuedAt: null,
    assignedAt: null,
    lastActivityAt: input.at,
    inactivityArmedAt: null,
    closedAt: null,
    closeReason: null,
    closedBy: null,
    disposition: null,
    transfers: [],
    surveyAnswers: [],
  };
}

const conversationSetup = setup({
  types: {} as { context: ConversationContext; events: ConversationEvent; input: ConversationInput },
  actions: {
    enqueueRouting: intent<{ conversationId: string; tenantId: string; attentionLineId: string; priority: number; queuedAt: number }>(),
    dequeueRouting: intent<{ conversationId: string; attentionLineId: string }>(),
    scheduleQueueTimeout: intent<{ conversationId: string; attentionLineId: string; armedAt: number }>(),
    cancelQueueTimeout: intent<{ conversationId: string }>(),
    notifyAgent: intent<{ conversationId: string; agentId: string }>(),
    releaseAgent: intent<{ conversationId: string; agentId: string; disposition: string | null }>(),
    scheduleInactivityTimeout: intent<{ conversationId: string; armedAt: number; snoozed: boolean }>(),
    cancelInactivityTimeout: intent<{ conversationId: string; armedAt: number }>(),
    startInquest: intent<{ conversationId: string; pollId: string; agentId: string | null }>(),
    scheduleSurveyExpiry: intent<{ conversationId: string; armedAt: number }>(),
    cancelSurveyExpiry: intent<{ conversationId: string }>(),
    notifyClosed: intent<{ conversationId: string; reason: string; closedBy: Actor }>(),
  },
  guards: {
    // Spec §5: a query type and a submenu must be selected.
    menuChoiceComplete: ({ event }) =>
      event.type === 'conversation.menuCompleted' && hasText(event.queryTypeId, event.submenuId, event.attentionLineId),
    carriesAgent: ({ event }) => event.type === 'conversation.assigned' && hasText(event.agentId),
    /** Started by the agent it names (or for them by a supervisor or the system), on a line. */
    agentStartIsValid: ({ event }) =>
      event.type === 'conversation.agentStarted' &&
      hasText(event.agentId, event.attentionLineId) &&
      (event.actor.kind === 'supervisor' ||
        event.actor.kind === 'system' ||
        (event.actor.kind === 'agent' && event.actor.id === event.agentId)),
    isTransferToLine: ({ event }) =>
      event.type === 'conversation.transferred' && event.to.kind === 'line' && hasText(event.to.attentionLineId),
    isTransferToAnotherLine: ({ context, event }) =>
      event.type === 'conversation.transferred' && event.to.kind === 'line' && event.to.attentionLineId !== context.attentionLineId,
    isTransferToAnotherAgent: ({ context, event }) =>
      event.type === 'conversation.transferred' &&
      event.to.kind === 'agent' &&
      hasText(event.to.agentId) &&
      event.to.agentId !== context.agentId,
    /** An agent may act only on the conversation they hold; customers, supervisors and the system always may. */
    actorMayAct: ({ context, event }) => event.actor.kind !== 'agent' || (context.agentId !== null && event.actor.id === context.agentId),
    actorIsSupervisorOrSystem: ({ event }) => event.actor.kind === 'supervisor' || event.actor.kind === 'system',
    actorIsNotAgent: ({ event }) => event.actor.kind !== 'agent',
    lineHasPoll: ({ context }) => context.pollId !== null,
    queueTimerIsCurrent: ({ context, event }) => event.type === 'conversation.queueTimedOut' && event.armedAt === context.queuedAt,
    /** The live timer fired and nothing happened since it was armed: the customer went silent. */
    inactivityTimerIsCurrent: ({ context, event }) =>
      event.type === 'conversation.inactivityTimedOut' &&
      event.armedAt === armedInactivity(context) &&
      context.lastActivityAt === event.armedAt,
    /** The live timer fired but the customer wrote since: re-arm it for the rest of the timeout. */
    inactivityTimerIsSnoozed: ({ context, event }) =>
      event.type === 'conversation.inactivityTimedOut' &&
      event.armedAt === armedInactivity(context) &&
      context.lastActivityAt > event.armedAt,
    surveyTimerIsCurrent: ({ context, event }) => event.type === 'conversation.surveyExpired' && event.armedAt === context.closedAt,
    answerIsComplete: ({ event }) => event.type === 'conversation.surveyAnswered' && hasText(event.questionId, event.answer),
    isLastAnswer: ({ event }) => event.type === 'conversation.surveyAnswered' && event.last,
  },
});

const touch = conversationSetup.assign({ lastActivityAt: ({ event }) => event.at });

/** The live inactivity timer's armedAt (older snapshots armed it at lastActivityAt). */
function armedInactivity(context: ConversationContext): number {
  return context.inactivityArmedAt ?? context.lastActivityAt;
}

/**
 * Arms the inactivity timer for the last activity. On entering Active the whole timeout runs from
 * now (a new agent gets a full window); re-armed after newer activity (`snoozed`), only what is left
 * of the timeout counted from that activity.
 */
const armInactivity = (snoozed: boolean) => [
  conversationSetup.assign({ inactivityArmedAt: ({ context }) => context.lastActivityAt }),
  {
    type: 'scheduleInactivityTimeout' as const,
    params: ({ context }: { context: ConversationContext }) => ({ conversationId: context.id, armedAt: context.lastActivityAt, snoozed }),
  },
];

/** Closes for a reason the machine decides (abandonment, a timer). */
const closeFor = (reason: string) =>
  conversationSetup.assign({ closeReason: reason, closedBy: ({ event }) => event.actor, closedAt: ({ event }) => event.at });

const closeAsRequested = conversationSetup.assign(({ context, event }) => {
  const { reason, disposition } = event as ConversationEventOf<'conversation.closed'>;
  return { closeReason: reason, closedBy: event.actor, closedAt: event.at, disposition: disposition ?? context.disposition };
});

/** A menu's last choice can name the line the conversation belongs to though nobody is queued (a voicemail left for it). */
const closeFromMenu = conversationSetup.assign(({ context, event }) => {
  const { attentionLineId } = event as ConversationEventOf<'conversation.closed'>;
  return { attentionLineId: attentionLineId ?? context.attentionLineId };
});

const transferToLine = conversationSetup.assign(({ context, event }) => {
  const { to, at, actor } = event as ConversationEventOf<'conversation.transferred'> & { to: { kind: 'line' } };
  return {
    attentionLineId: to.attentionLineId,
    pollId: to.pollId,
    agentId: null,
    assignedAt: null,
    queuedAt: at,
    transfers: [...context.transfers, { at, by: actor, fromAttentionLineId: context.attentionLineId, fromAgentId: context.agentId, to }],
  };
});

const transferToAgent = conversationSetup.assign(({ context, event }) => {
  const { to, at, actor } = event as ConversationEventOf<'conversation.transferred'> & { to: { kind: 'agent' } };
  return {
    agentId: to.agentId,
    assignedAt: at,
    lastActivityAt: at,
    transfers: [...context.transfers, { at, by: actor, fromAttentionLineId: context.attentionLineId, fromAgentId: context.agentId, to }],
  };
});

const recordAnswer = conversationSetup.assign({
  surveyAnswers: ({ context, event }) => {
    const { questionId, answer, at } = event as ConversationEventOf<'conversation.surveyAnswered'>;
    return [...context.surveyAnswers, { questionId, answer, at }];
  },
});

export const conversationMachine = conversationSetup.createMachine({
  id: 'conversation',
  context: ({ input }) => createContext(input),
  initial: 'Transitory',
  states: {
    Transitory: {
      on: {
        'conversation.menuCompleted': {
          guard: 'menuChoiceComplete',
          target: 'LiningUp',
          actions: assign(({ event }) => ({
            queryTypeId: event.queryTypeId,
            submenuId: event.submenuId,
            attentionLineId: event.attentionLineId,
            pollId: event.pollId,
            priority: event.priority ?? 0,
            queuedAt: event.at,
            lastActivityAt: event.at,
          })),
        },
        'conversation.agentStarted': {
          guard: 'agentStartIsValid',
          target: 'Active',
          actions: assign(({ event }) => ({
            attentionLineId: event.attentionLineId,
            agentId: event.agentId,
            assignedAt: event.at,
            lastActivityAt: event.at,
          })),
        },
        'conversation.messageReceived': { actions: touch },
        'conversation.abandoned': { target: 'Closed', actions: closeFor(CLOSE_REASONS.abandoned) },
        // The customer ends the menu, or the bot resolves it: nobody was served, so no poll.
        'conversation.closed': { guard: 'actorIsNotAgent', target: 'Closed', actions: [closeAsRequested, closeFromMenu] },
      },
    },
    LiningUp: {
      entry: [
        {
          type: 'enqueueRouting',
          params: ({ context }) => ({
            conversationId: context.id,
            tenantId: context.tenantId,
            attentionLineId: present(context.attentionLineId, 'attention line'),
            priority: context.priority,
            queuedAt: present(context.queuedAt, 'queue time'),
          }),
        },
        {
          type: 'scheduleQueueTimeout',
          params: ({ context }) => ({
            conversationId: context.id,
            attentionLineId: present(context.attentionLineId, 'attention line'),
            armedAt: present(context.queuedAt, 'queue time'),
          }),
        },
      ],
      exit: [
        {
          type: 'dequeueRouting',
          params: ({ context }) => ({ conversationId: context.id, attentionLineId: present(context.attentionLineId, 'attention line') }),
        },
        { type: 'cancelQueueTimeout', params: ({ context }) => ({ conversationId: context.id }) },
      ],
      on: {
        'conversation.assigned': {
          guard: 'carriesAgent',
          target: 'Active',
          actions: assign(({ event }) => ({ agentId: event.agentId, assignedAt: event.at, lastActivityAt: event.at })),
        },
        // A supervisor or the overflow policy moves a waiting customer to another line.
        'conversation.transferred': {
          guard: and(['isTransferToLine', 'isTransferToAnotherLine', 'actorIsSupervisorOrSystem']),
          target: 'LiningUp',
          reenter: true,
          actions: transferToLine,
        },
        'conversation.abandoned': { target: 'Closed', actions: closeFor(CLOSE_REASONS.abandoned) },
        'conversation.queueTimedOut': { guard: 'queueTimerIsCurrent', target: 'Closed', actions: closeFor(CLOSE_REASONS.queueTimeout) },
        // Customers who leave a queue abandon it; closing a queued conversation is for supervisors (spam, purge).
        'conversation.closed': { guard: 'actorIsSupervisorOrSystem', target: 'Closed', actions: closeAsRequested },
        'conversation.messageReceived': { actions: touch },
      },
    },
    Active: {
      entry: [
        { type: 'notifyAgent', params: ({ context }) => ({ conversationId: context.id, agentId: present(context.agentId, 'agent') }) },
        ...armInactivity(false),
      ],
      // Runs before the transition's own assignments, so it releases the agent who is leaving.
      exit: [
        {
          type: 'releaseAgent',
          params: ({ context, event }) => ({
            conversationId: context.id,
            agentId: present(context.agentId, 'agent'),
            disposition: event.type === 'conversation.closed' ? (event.disposition ?? null) : null,
          }),
        },
        {
          type: 'cancelInactivityTimeout',
          params: ({ context }) => ({ conversationId: context.id, armedAt: armedInactivity(context) }),
        },
      ],
      on: {
        // The live timer stays: when it fires it sees this newer activity and re-arms (below).
        'conversation.messageReceived': { actions: touch },
        'conversation.transferred': [
          { guard: and(['isTransferToLine', 'actorMayAct']), target: 'LiningUp', actions: transferToLine },
          // Direct to the named agent: the host first books the slot with agent.conversationAssigned
          // on the target's presence, in the same transaction, so capacity is never exceeded.
          { guard: and(['isTransferToAnotherAgent', 'actorMayAct']), target: 'Active', reenter: true, actions: transferToAgent },
        ],
        // A silent customer is not asked to answer a poll.
        'conversation.inactivityTimedOut': [
          { guard: 'inactivityTimerIsCurrent', target: 'Closed', actions: closeFor(CLOSE_REASONS.inactivity) },
          { guard: 'inactivityTimerIsSnoozed', actions: armInactivity(true) },
        ],
        'conversation.callAnswered': {
          guard: 'actorIsSupervisorOrSystem',
          actions: conversationSetup.assign(({ event }) => ({ callAnsweredAt: event.at, lastActivityAt: event.at })),
        },
        'conversation.closed': [
          { guard: and(['actorMayAct', 'lineHasPoll']), target: 'Inquest', actions: closeAsRequested },
          { guard: 'actorMayAct', target: 'Closed', actions: closeAsRequested },
        ],
      },
    },
    Inquest: {
      entry: [
        {
          type: 'startInquest',
          params: ({ context }) => ({ conversationId: context.id, pollId: present(context.pollId, 'poll'), agentId: context.agentId }),
        },
        {
          type: 'scheduleSurveyExpiry',
          params: ({ context }) => ({ conversationId: context.id, armedAt: present(context.closedAt, 'close time') }),
        },
      ],
      exit: { type: 'cancelSurveyExpiry', params: ({ context }) => ({ conversationId: context.id }) },
      on: {
        'conversation.surveyAnswered': [
          { guard: and(['answerIsComplete', 'isLastAnswer']), target: 'Closed', actions: recordAnswer },
          { guard: 'answerIsComplete', actions: recordAnswer },
        ],
        'conversation.surveyExpired': { guard: 'surveyTimerIsCurrent', target: 'Closed' },
      },
    },
    Closed: {
      type: 'final',
      entry: {
        type: 'notifyClosed',
        params: ({ context }) => ({
          conversationId: context.id,
          reason: present(context.closeReason, 'close reason'),
          closedBy: present(context.closedBy, 'closing actor'),
        }),
      },
    },
  },
});

export type ConversationSnapshot = SnapshotFrom<typeof conversationMachine>;

export function describeConversationState(snapshot: ConversationSnapshot): ConversationStatus {
  return leafState(snapshot.value) as ConversationStatus;
}
