import { describe, expect, it, jest } from '@jest/globals';
import { createActor } from 'xstate';
import { DomainError } from '../domain-error';
import {
  CLOSE_REASONS,
  CONVERSATION_STATUSES,
  conversationMachine,
  describeConversationState,
  type ConversationEvent,
  type ConversationSnapshot,
} from './conversation.machine';
import { initial, persist, restore, step, type Actor } from './machine-step';

const T0 = Date.UTC(2025, 0, 15, 9, 0, 0);
const customer: Actor = { kind: 'customer', id: 'customer-1' };
const system: Actor = { kind: 'system' };
const supervisor: Actor = { kind: 'supervisor', id: 'supervisor-1' };
const agentA: Actor = { kind: 'agent', id: 'agent-a' };
const agentB: Actor = { kind: 'agent', id: 'agent-b' };

type EventBody = ConversationEvent extends infer E ? (E extends ConversationEvent ? Omit<E, 'at' | 'actor'> : never) : never;

let clock = T0;
/** Events one second apart, so every timestamp in a scenario is distinct. */
function event(body: EventBody, actor: Actor = system): ConversationEvent {
  clock += 1000;
  return { ...body, at: clock, actor } as ConversationEvent;
}

function send(snapshot: ConversationSnapshot, body: EventBody, actor?: Actor) {
  return step(conversationMachine, snapshot, event(body, actor));
}

function after(snapshot: ConversationSnapshot, body: EventBody, actor?: Actor): ConversationSnapshot {
  const result = send(snapshot, body, actor);
  if (!result.changed) throw new Error(`Setup event ${body.type} was refused in ${describeConversationState(snapshot)}`);
  return result.snapshot;
}

function created(): ConversationSnapshot {
  clock = T0;
  return initial(conversationMachine, { id: 'conversation-1', tenantId: 'tenant-1', channel: 'webchat', at: T0, actor: customer }).snapshot;
}

const menuChoice = (pollId: string | null = null): EventBody => ({
  type: 'conversation.menuCompleted',
  queryTypeId: 'billing',
  submenuId: 'invoices',
  attentionLineId: 'line-1',
  pollId,
});

function queued(pollId: string | null = null): ConversationSnapshot {
  return after(created(), menuChoice(pollId), customer);
}

function active(pollId: string | null = null): ConversationSnapshot {
  return after(queued(pollId), { type: 'conversation.assigned', agentId: 'agent-a' });
}

function inInquest(): ConversationSnapshot {
  return after(active('poll-1'), { type: 'conversation.closed', reason: 'resolved', disposition: 'sale' }, agentA);
}

function closed(): ConversationSnapshot {
  return after(queued(), { type: 'conversation.abandoned' }, customer);
}

const intentTypes = (result: { intents: { type: string }[] }) => result.intents.map((intent) => intent.type);

describe(conversationMachine.id, () => {
  describe('creation', () => {
    it('starts in Transitory with one log row and no intents', () => {
      const result = initial(conversationMachine, { id: 'c-1', tenantId: 't-1', channel: 'whatsapp', at: T0, actor: customer });
      expect(describeConversationState(result.snapshot)).toBe('Transitory');
      expect(result.intents).toEqual([]);
      expect(result.record).toEqual({ from: null, to: 'Transitory', event: 'xstate.init', at: T0, actor: customer });
    });

    it('refuses to create a conversation without a tenant', () => {
      expect(() => initial(conversationMachine, { id: 'c-1', tenantId: ' ', channel: 'webchat', at: T0, actor: customer })).toThrow(
        DomainError,
      );
    });

    it('lists exactly the statuses of its states', () => {
      expect(Object.keys(conversationMachine.root.states)).toEqual([...CONVERSATION_STATUSES]);
    });
  });

  describe('Transitory', () => {
    it('queues on the chosen line once query type and submenu are chosen', () => {
      const result = send(created(), menuChoice('poll-1'), customer);
      expect(describeConversationState(result.snapshot)).toBe('LiningUp');
      expect(result.snapshot.context).toMatchObject({
        queryTypeId: 'billing',
        submenuId: 'invoices',
        attentionLineId: 'line-1',
        pollId: 'poll-1',
        priority: 0,
        queuedAt: clock,
      });
      expect(result.intents).toEqual([
        {
          type: 'enqueueRouting',
          params: { conversationId: 'conversation-1', tenantId: 'tenant-1', attentionLineId: 'line-1', priority: 0, queuedAt: clock },
        },
        { type: 'scheduleQueueTimeout', params: { conversationId: 'conversation-1', attentionLineId: 'line-1', armedAt: clock } },
      ]);
      expect(result.record).toEqual({
        from: 'Transitory',
        to: 'LiningUp',
        event: 'conversation.menuCompleted',
        at: clock,
        actor: customer,
      });
    });

    it('keeps the priority the menu gives', () => {
      const result = send(created(), { ...menuChoice(), priority: 5 } as EventBody, customer);
      expect(result.snapshot.context.priority).toBe(5);
    });

    it('refuses a menu choice without a submenu', () => {
      const before = created();
      const result = send(before, { ...menuChoice(), submenuId: '' } as EventBody, customer);
      expect(result).toEqual({ snapshot: before, changed: false, intents: [], record: null });
    });

    it('records customer activity while in the menu', () => {
      const result = send(created(), { type: 'conversation.messageReceived' }, customer);
      expect(describeConversationState(result.snapshot)).toBe('Transitory');
      expect(result.snapshot.context.lastActivityAt).toBe(clock);
    });

    it('closes as abandoned when the customer leaves the menu', () => {
      const result = send(created(), { type: 'conversation.abandoned' }, customer);
      expect(result.snapshot.context).toMatchObject({ closeReason: CLOSE_REASONS.abandoned, closedBy: customer, closedAt: clock });
      expect(result.intents).toEqual([
        { type: 'notifyClosed', params: { conversationId: 'conversation-1', reason: 'abandoned', closedBy: customer } },
      ]);
    });

    it('closes without a poll when the bot resolves the query', () => {
      const result = send(created(), { type: 'conversation.closed', reason: 'resolved_by_bot' }, system);
      expect(describeConversationState(result.snapshot)).toBe('Closed');
      expect(result.snapshot.context.closeReason).toBe('resolved_by_bot');
    });

    it("closes on the line the menu's last choice names (a voicemail left for that line)", () => {
      const result = send(created(), { type: 'conversation.closed', reason: 'voicemail', attentionLineId: 'line-vm' }, system);
      expect(describeConversationState(result.snapshot)).toBe('Closed');
      expect(result.snapshot.context).toMatchObject({ closeReason: 'voicemail', attentionLineId: 'line-vm' });
    });

    it('refuses a close from an agent, who holds nothing yet', () => {
      expect(send(created(), { type: 'conversation.closed', reason: 'resolved' }, agentA).changed).toBe(false);
    });
  });

  describe('LiningUp', () => {
    it('becomes Active with the agent routing assigned', () => {
      const result = send(queued(), { type: 'conversation.assigned', agentId: 'agent-a' });
      expect(describeConversationState(result.snapshot)).toBe('Active');
      expect(result.snapshot.context).toMatchObject({ agentId: 'agent-a', assignedAt: clock, lastActivityAt: clock });
      expect(result.intents).toEqual([
        { type: 'dequeueRouting', params: { conversationId: 'conversation-1', attentionLineId: 'line-1' } },
        { type: 'cancelQueueTimeout', params: { conversationId: 'conversation-1' } },
        { type: 'notifyAgent', params: { conversationId: 'conversation-1', agentId: 'agent-a' } },
        { type: 'scheduleInactivityTimeout', params: { conversationId: 'conversation-1', armedAt: clock, snoozed: false } },
      ]);
      expect(result.snapshot.context.inactivityArmedAt).toBe(clock);
    });

    it('refuses an assignment that names no agent', () => {
      expect(send(queued(), { type: 'conversation.assigned', agentId: '' }).changed).toBe(false);
    });

    it('moves to another line when a supervisor transfers it', () => {
      const result = send(
        queued(),
        { type: 'conversation.transferred', to: { kind: 'line', attentionLineId: 'line-2', pollId: 'poll-2' } },
        supervisor,
      );
      expect(describeConversationState(result.snapshot)).toBe('LiningUp');
      expect(result.snapshot.context).toMatchObject({ attentionLineId: 'line-2', pollId: 'poll-2', queuedAt: clock });
      expect(result.snapshot.context.transfers).toEqual([
        {
          at: clock,
          by: supervisor,
          fromAttentionLineId: 'line-1',
          fromAgentId: null,
          to: { kind: 'line', attentionLineId: 'line-2', pollId: 'poll-2' },
        },
      ]);
      expect(intentTypes(result)).toEqual(['dequeueRouting', 'cancelQueueTimeout', 'enqueueRouting', 'scheduleQueueTimeout']);
      expect(result.intents[0]).toEqual({
        type: 'dequeueRouting',
        params: { conversationId: 'conversation-1', attentionLineId: 'line-1' },
      });
      expect(result.record).toMatchObject({ from: 'LiningUp', to: 'LiningUp', event: 'conversation.transferred' });
    });

    it('refuses a transfer to the line it already waits on', () => {
      const result = send(
        queued(),
        { type: 'conversation.transferred', to: { kind: 'line', attentionLineId: 'line-1', pollId: null } },
        supervisor,
      );
      expect(result.changed).toBe(false);
    });

    it('refuses a transfer by an agent, who does not hold a queued conversation', () => {
      const result = send(
        queued(),
        { type: 'conversation.transferred', to: { kind: 'line', attentionLineId: 'line-2', pollId: null } },
        agentA,
      );
      expect(result.changed).toBe(false);
    });

    it('refuses a transfer to a named agent, which is an assignment', () => {
      const result = send(queued(), { type: 'conversation.transferred', to: { kind: 'agent', agentId: 'agent-a' } }, supervisor);
      expect(result.changed).toBe(false);
    });

    it('closes as abandoned when the customer leaves the queue', () => {
      const result = send(queued(), { type: 'conversation.abandoned' }, customer);
      expect(result.snapshot.context).toMatchObject({ closeReason: 'abandoned', closedBy: customer, agentId: null });
      expect(intentTypes(result)).toEqual(['dequeueRouting', 'cancelQueueTimeout', 'notifyClosed']);
    });

    it('closes with queue_timeout when its queue timer fires', () => {
      const before = queued();
      const result = send(before, { type: 'conversation.queueTimedOut', armedAt: before.context.queuedAt ?? 0 });
      expect(describeConversationState(result.snapshot)).toBe('Closed');
      expect(result.snapshot.context).toMatchObject({ closeReason: CLOSE_REASONS.queueTimeout, closedBy: system });
    });

    it('refuses a queue timer armed on the line it was transferred from', () => {
      const first = queued();
      const firstArmedAt = first.context.queuedAt ?? 0;
      const moved = after(
        first,
        { type: 'conversation.transferred', to: { kind: 'line', attentionLineId: 'line-2', pollId: null } },
        supervisor,
      );
      expect(send(moved, { type: 'conversation.queueTimedOut', armedAt: firstArmedAt }).changed).toBe(false);
    });

    it('lets a supervisor close a queued conversation', () => {
      const result = send(queued(), { type: 'conversation.closed', reason: 'spam' }, supervisor);
      expect(result.snapshot.context).toMatchObject({ closeReason: 'spam', closedBy: supervisor });
    });

    it('refuses a close from the customer, who abandons instead', () => {
      expect(send(queued(), { type: 'conversation.closed', reason: 'bye' }, customer).changed).toBe(false);
    });

    it('records customer activity while queued', () => {
      const result = send(queued(), { type: 'conversation.messageReceived' }, customer);
      expect(result.snapshot.context.lastActivityAt).toBe(clock);
      expect(result.intents).toEqual([]);
    });
  });

  describe('Active', () => {
    it('keeps the live inactivity timer on a message: only the activity time moves', () => {
      const before = active();
      const result = send(before, { type: 'conversation.messageReceived' }, customer);
      expect(result.snapshot.context.lastActivityAt).toBe(clock);
      expect(result.snapshot.context.inactivityArmedAt).toBe(before.context.lastActivityAt);
      expect(result.intents).toEqual([]);
    });

    it('goes back to a queue, releasing the agent, when transferred to a line', () => {
      const result = send(
        active(),
        { type: 'conversation.transferred', to: { kind: 'line', attentionLineId: 'line-2', pollId: null } },
        agentA,
      );
      expect(describeConversationState(result.snapshot)).toBe('LiningUp');
      expect(result.snapshot.context).toMatchObject({ agentId: null, assignedAt: null, attentionLineId: 'line-2' });
      expect(result.intents.slice(0, 2)).toEqual([
        { type: 'releaseAgent', params: { conversationId: 'conversation-1', agentId: 'agent-a', disposition: null } },
        { type: 'cancelInactivityTimeout', params: { conversationId: 'conversation-1', armedAt: T0 + 2000 } },
      ]);
      expect(intentTypes(result).slice(2)).toEqual(['enqueueRouting', 'scheduleQueueTimeout']);
    });

    it('may go back to the queue of its own line for another agent', () => {
      const result = send(
        active(),
        { type: 'conversation.transferred', to: { kind: 'line', attentionLineId: 'line-1', pollId: null } },
        agentA,
      );
      expect(describeConversationState(result.snapshot)).toBe('LiningUp');
    });

    it('passes straight to a named agent, releasing the first', () => {
      const result = send(active(), { type: 'conversation.transferred', to: { kind: 'agent', agentId: 'agent-b' } }, agentA);
      expect(describeConversationState(result.snapshot)).toBe('Active');
      expect(result.snapshot.context).toMatchObject({ agentId: 'agent-b', assignedAt: clock });
      expect(result.intents).toEqual([
        { type: 'releaseAgent', params: { conversationId: 'conversation-1', agentId: 'agent-a', disposition: null } },
        { type: 'cancelInactivityTimeout', params: { conversationId: 'conversation-1', armedAt: T0 + 2000 } },
        { type: 'notifyAgent', params: { conversationId: 'conversation-1', agentId: 'agent-b' } },
        // The transfer counts as activity: the new agent gets a full timeout from now.
        { type: 'scheduleInactivityTimeout', params: { conversationId: 'conversation-1', armedAt: clock, snoozed: false } },
      ]);
      expect(result.snapshot.context.transfers.at(-1)).toMatchObject({ fromAgentId: 'agent-a', to: { kind: 'agent', agentId: 'agent-b' } });
    });

    it('refuses a transfer to the agent who already holds it', () => {
      expect(send(active(), { type: 'conversation.transferred', to: { kind: 'agent', agentId: 'agent-a' } }, supervisor).changed).toBe(
        false,
      );
    });

    it('refuses a transfer by an agent who does not hold it', () => {
      expect(send(active(), { type: 'conversation.transferred', to: { kind: 'agent', agentId: 'agent-b' } }, agentB).changed).toBe(false);
    });

    it('closes with inactivity, skipping the poll, when its inactivity timer fires', () => {
      const before = active('poll-1');
      const result = send(before, { type: 'conversation.inactivityTimedOut', armedAt: before.context.lastActivityAt });
      expect(describeConversationState(result.snapshot)).toBe('Closed');
      expect(result.snapshot.context).toMatchObject({ closeReason: CLOSE_REASONS.inactivity, closedBy: system, agentId: 'agent-a' });
    });

    it('re-arms, instead of closing, when the timer fires after a newer message; an older timer is refused', () => {
      const before = active();
      const armedAt = before.context.lastActivityAt;
      const talking = after(before, { type: 'conversation.messageReceived' }, customer);
      const lastMessageAt = talking.context.lastActivityAt;
      const result = send(talking, { type: 'conversation.inactivityTimedOut', armedAt });
      expect(describeConversationState(result.snapshot)).toBe('Active');
      expect(result.snapshot.context.inactivityArmedAt).toBe(lastMessageAt);
      expect(result.intents).toEqual([
        { type: 'scheduleInactivityTimeout', params: { conversationId: 'conversation-1', armedAt: lastMessageAt, snoozed: true } },
      ]);
      // The first timer again (a duplicate delivery): no longer the live one.
      expect(send(result.snapshot, { type: 'conversation.inactivityTimedOut', armedAt }).changed).toBe(false);
      // The re-armed one, with no message since: the customer went silent.
      const closed = send(result.snapshot, { type: 'conversation.inactivityTimedOut', armedAt: lastMessageAt });
      expect(describeConversationState(closed.snapshot)).toBe('Closed');
      expect(closed.snapshot.context.closeReason).toBe(CLOSE_REASONS.inactivity);
    });

    it('treats a snapshot stored before inactivityArmedAt existed as armed at its last activity', () => {
      const before = active();
      const legacy = { ...before, context: { ...before.context, inactivityArmedAt: undefined } } as ConversationSnapshot;
      const result = send(legacy, { type: 'conversation.inactivityTimedOut', armedAt: before.context.lastActivityAt });
      expect(describeConversationState(result.snapshot)).toBe('Closed');
    });

    it('goes to Inquest, keeping reason, closer and disposition, when the line has a poll', () => {
      const result = send(active('poll-1'), { type: 'conversation.closed', reason: 'resolved', disposition: 'sale' }, agentA);
      expect(describeConversationState(result.snapshot)).toBe('Inquest');
      expect(result.snapshot.context).toMatchObject({
        closeReason: 'resolved',
        closedBy: agentA,
        closedAt: clock,
        disposition: 'sale',
        agentId: 'agent-a',
      });
      expect(result.intents).toEqual([
        { type: 'releaseAgent', params: { conversationId: 'conversation-1', agentId: 'agent-a', disposition: 'sale' } },
        { type: 'cancelInactivityTimeout', params: { conversationId: 'conversation-1', armedAt: T0 + 2000 } },
        { type: 'startInquest', params: { conversationId: 'conversation-1', pollId: 'poll-1', agentId: 'agent-a' } },
        { type: 'scheduleSurveyExpiry', params: { conversationId: 'conversation-1', armedAt: clock } },
      ]);
    });

    it('closes at once when the line has no poll', () => {
      const result = send(active(), { type: 'conversation.closed', reason: 'resolved' }, customer);
      expect(describeConversationState(result.snapshot)).toBe('Closed');
      expect(result.snapshot.context).toMatchObject({ closeReason: 'resolved', closedBy: customer, agentId: 'agent-a' });
      expect(intentTypes(result)).toEqual(['releaseAgent', 'cancelInactivityTimeout', 'notifyClosed']);
    });

    it('refuses a close from an agent who does not hold it', () => {
      expect(send(active(), { type: 'conversation.closed', reason: 'resolved' }, agentB).changed).toBe(false);
    });

    it('refuses an abandonment, which only happens in a queue', () => {
      expect(send(active(), { type: 'conversation.abandoned' }, customer).changed).toBe(false);
    });
  });

  describe('Inquest', () => {
    it('records an answer and waits for the rest of the poll', () => {
      const result = send(inInquest(), { type: 'conversation.surveyAnswered', questionId: 'q-1', answer: '5', last: false }, customer);
      expect(describeConversationState(result.snapshot)).toBe('Inquest');
      expect(result.snapshot.context.surveyAnswers).toEqual([{ questionId: 'q-1', answer: '5', at: clock }]);
      expect(result.intents).toEqual([]);
    });

    it('closes on the last answer, keeping the reason given when the conversation ended', () => {
      const result = send(inInquest(), { type: 'conversation.surveyAnswered', questionId: 'q-2', answer: 'yes', last: true }, customer);
      expect(describeConversationState(result.snapshot)).toBe('Closed');
      expect(result.snapshot.context).toMatchObject({ closeReason: 'resolved', closedBy: agentA });
      expect(result.intents).toEqual([
        { type: 'cancelSurveyExpiry', params: { conversationId: 'conversation-1' } },
        { type: 'notifyClosed', params: { conversationId: 'conversation-1', reason: 'resolved', closedBy: agentA } },
      ]);
    });

    it('refuses an empty answer', () => {
      expect(send(inInquest(), { type: 'conversation.surveyAnswered', questionId: 'q-1', answer: '', last: true }, customer).changed).toBe(
        false,
      );
    });

    it('closes when its survey timer fires', () => {
      const before = inInquest();
      const result = send(before, { type: 'conversation.surveyExpired', armedAt: before.context.closedAt ?? 0 });
      expect(describeConversationState(result.snapshot)).toBe('Closed');
    });

    it('refuses a survey timer armed for another stay', () => {
      const before = inInquest();
      expect(send(before, { type: 'conversation.surveyExpired', armedAt: (before.context.closedAt ?? 0) - 1 }).changed).toBe(false);
    });

    it('refuses chat messages, which the host reads as answers', () => {
      expect(send(inInquest(), { type: 'conversation.messageReceived' }, customer).changed).toBe(false);
    });
  });

  describe('Closed', () => {
    const everyEvent: EventBody[] = [
      menuChoice(),
      { type: 'conversation.assigned', agentId: 'agent-a' },
      { type: 'conversation.transferred', to: { kind: 'line', attentionLineId: 'line-2', pollId: null } },
      { type: 'conversation.abandoned' },
      { type: 'conversation.queueTimedOut', armedAt: T0 },
      { type: 'conversation.inactivityTimedOut', armedAt: T0 },
      { type: 'conversation.closed', reason: 'resolved' },
      { type: 'conversation.surveyAnswered', questionId: 'q', answer: 'a', last: true },
      { type: 'conversation.surveyExpired', armedAt: T0 },
      { type: 'conversation.messageReceived' },
    ];

    it.each(everyEvent.map((body) => [body.type, body] as const))('refuses %s', (_type, body) => {
      const before = closed();
      expect(send(before, body, supervisor)).toEqual({ snapshot: before, changed: false, intents: [], record: null });
    });

    it('is a final state', () => {
      expect(closed().status).toBe('done');
    });
  });

  describe('persistence', () => {
    const scenarios: [string, () => ConversationSnapshot][] = [
      ['Transitory', created],
      ['LiningUp', queued],
      ['Active', active],
      ['Inquest', inInquest],
      ['Closed', closed],
    ];

    it.each(scenarios)('restores a %s snapshot from JSON with the same value and context', (_status, make) => {
      const original = make();
      const restored = restore(conversationMachine, JSON.parse(JSON.stringify(persist(conversationMachine, original))));
      expect(restored.value).toEqual(original.value);
      expect(restored.context).toStrictEqual(original.context);
      expect(restored.status).toBe(original.status);
    });

    it('behaves the same after a JSON round trip', () => {
      const original = active('poll-1');
      const restored = restore(conversationMachine, JSON.parse(JSON.stringify(persist(conversationMachine, original))));
      const close = event({ type: 'conversation.closed', reason: 'resolved' }, agentA);
      const fromOriginal = step(conversationMachine, original, close);
      const fromRestored = step(conversationMachine, restored, close);
      expect(fromRestored.snapshot.context).toEqual(fromOriginal.snapshot.context);
      expect(fromRestored.intents).toEqual(fromOriginal.intents);
      expect(restored.can(close)).toBe(true);
    });

    it('refuses to restore something that is not a snapshot', () => {
      expect(() => restore(conversationMachine, { value: 'Active' } as never)).toThrow(DomainError);
    });
  });

  it('lets the host swap an intent for a real effect with provide', () => {
    const notifyAgent = jest.fn();
    const machine = conversationMachine.provide({ actions: { notifyAgent: (_args, params) => notifyAgent(params) } });
    const actor = createActor(machine, {
      input: { id: 'conversation-1', tenantId: 'tenant-1', channel: 'webchat', at: T0, actor: customer },
    });
    actor.start();
    actor.send(event(menuChoice(), customer));
    actor.send(event({ type: 'conversation.assigned', agentId: 'agent-b' }));
    expect(notifyAgent).toHaveBeenCalledWith({ conversationId: 'conversation-1', agentId: 'agent-b' });
    actor.stop();
  });
});

describe('conversation.agentStarted (an agent starts an outbound email)', () => {
  const start = (agentId = 'agent-a', attentionLineId = 'line-1'): EventBody => ({
    type: 'conversation.agentStarted',
    agentId,
    attentionLineId,
  });

  it('goes from Transitory straight to Active with the starting agent, notified, on the line, logged', () => {
    const result = send(created(), start(), agentA);
    expect(result.changed).toBe(true);
    expect(describeConversationState(result.snapshot)).toBe('Active');
    expect(result.snapshot.context).toMatchObject({ agentId: 'agent-a', attentionLineId: 'line-1', assignedAt: clock, queuedAt: null });
    expect(intentTypes(result)).toEqual(['notifyAgent', 'scheduleInactivityTimeout']);
    expect(result.intents[0]).toEqual({ type: 'notifyAgent', params: { conversationId: 'conversation-1', agentId: 'agent-a' } });
    expect(result.record).toEqual({ from: 'Transitory', to: 'Active', event: 'conversation.agentStarted', at: clock, actor: agentA });
  });

  it('lets a supervisor start it for an agent', () => {
    expect(describeConversationState(send(created(), start('agent-b'), supervisor).snapshot)).toBe('Active');
  });

  it('refuses an agent starting it for another agent, a customer, a missing agent or line', () => {
    expect(send(created(), start('agent-b'), agentA).changed).toBe(false);
    expect(send(created(), start('agent-a'), customer).changed).toBe(false);
    expect(send(created(), start(''), supervisor).changed).toBe(false);
    expect(send(created(), start('agent-a', ' '), agentA).changed).toBe(false);
  });

  it('is refused once the conversation left Transitory (queued or already active)', () => {
    expect(send(queued(), start(), agentA).changed).toBe(false);
    expect(send(active(), start('agent-b'), agentB).changed).toBe(false);
  });

  it('closes like any Active conversation, releasing the agent', () => {
    const started = after(created(), start(), agentA);
    const result = send(started, { type: 'conversation.closed', reason: 'resolved' }, agentA);
    expect(describeConversationState(result.snapshot)).toBe('Closed');
    expect(intentTypes(result)).toContain('releaseAgent');
  });
});

describe('conversation.callAnswered (telephony: the agent’s phone answered the call)', () => {
  it('is logged in Active with the answer time and nothing else: the agent keeps the conversation', () => {
    const ringing = active();
    const result = send(ringing, { type: 'conversation.callAnswered' });
    expect(result.changed).toBe(true);
    expect(result.record).toMatchObject({ from: 'Active', to: 'Active', event: 'conversation.callAnswered', at: clock });
    expect(result.snapshot.context).toMatchObject({ callAnsweredAt: clock, agentId: 'agent-a', lastActivityAt: clock });
    expect(intentTypes(result)).toEqual([]);
  });

  it('is refused from an agent or a customer, and outside Active', () => {
    expect(send(active(), { type: 'conversation.callAnswered' }, agentA).changed).toBe(false);
    expect(send(active(), { type: 'conversation.callAnswered' }, customer).changed).toBe(false);
    expect(send(queued(), { type: 'conversation.callAnswered' }).changed).toBe(false);
  });
});
