import { describe, expect, it } from '@jest/globals';
import type { AnyStateNode } from 'xstate';
import { DomainError } from '../domain-error';
import {
  AGENT_STATUSES,
  AUTO_AWAY_REASON,
  agentPresenceMachine,
  canTakeConversation,
  describeAgentState,
  freeCapacity,
  inCallCandidate,
  routingCandidate,
  type AgentPresenceEvent,
  type AgentPresenceSnapshot,
} from './agent-presence.machine';
import { initial, persist, restore, step, type Actor } from './machine-step';

const T0 = Date.UTC(2025, 0, 15, 9, 0, 0);
const agent: Actor = { kind: 'agent', id: 'agent-a' };
const otherAgent: Actor = { kind: 'agent', id: 'agent-b' };
const supervisor: Actor = { kind: 'supervisor', id: 'supervisor-1' };
const system: Actor = { kind: 'system' };
const PAUSE_REASONS = ['lunch', 'training'];

type EventBody = AgentPresenceEvent extends infer E ? (E extends AgentPresenceEvent ? Omit<E, 'at' | 'actor'> : never) : never;

let clock = T0;
/** Events one second apart, so every timestamp in a scenario is distinct. */
function event(body: EventBody, actor: Actor = agent): AgentPresenceEvent {
  clock += 1000;
  return { ...body, at: clock, actor } as AgentPresenceEvent;
}

function send(snapshot: AgentPresenceSnapshot, body: EventBody, actor?: Actor) {
  return step(agentPresenceMachine, snapshot, event(body, actor));
}

function after(snapshot: AgentPresenceSnapshot, ...bodies: EventBody[]): AgentPresenceSnapshot {
  return bodies.reduce((current, body) => {
    const result = send(current, body);
    if (!result.changed) throw new Error(`Setup event ${body.type} was refused in ${describeAgentState(current)}`);
    return result.snapshot;
  }, snapshot);
}

function loggedOut(capacity = 3): AgentPresenceSnapshot {
  clock = T0;
  return initial(agentPresenceMachine, {
    agentId: 'agent-a',
    tenantId: 'tenant-1',
    capacity,
    pauseReasons: PAUSE_REASONS,
    at: T0,
    actor: system,
  }).snapshot;
}

const available = (capacity = 3) => after(loggedOut(capacity), { type: 'agent.loggedIn' });
const assign = (conversationId: string): EventBody => ({ type: 'agent.conversationAssigned', conversationId });
const holding = (...conversationIds: string[]) => after(available(), ...conversationIds.map(assign));
const paused = () => after(available(), { type: 'agent.paused', reasonId: 'lunch' });
const inCall = () => after(available(), { type: 'agent.callStarted' });
const afterCallWork = () => after(inCall(), { type: 'agent.callEnded', disposition: 'callback' });
const waiting = () => after(available(), { type: 'agent.outboundWaitStarted' });
const disconnected = () => after(available(), { type: 'agent.disconnected' });

const statusAfter = (snapshot: AgentPresenceSnapshot, body: EventBody, actor?: Actor) =>
  describeAgentState(send(snapshot, body, actor).snapshot);
const refused = (snapshot: AgentPresenceSnapshot, body: EventBody, actor?: Actor) => {
  const result = send(snapshot, body, actor);
  return result.changed === false && result.snapshot === snapshot && result.intents.length === 0 && result.record === null;
};

function leafStateNames(node: AnyStateNode): string[] {
  const children = Object.values(node.states);
  return children.length === 0 ? [node.key] : children.flatMap(leafStateNames);
}

describe(agentPresenceMachine.id, () => {
  describe('creation', () => {
    it('starts logged out with the campaign capacity and the tenant pause reasons', () => {
      const snapshot = loggedOut(4);
      expect(describeAgentState(snapshot)).toBe('loggedOut');
      expect(snapshot.context).toMatchObject({ capacity: 4, pauseReasons: PAUSE_REASONS, activeConversationIds: [], busyFlag: false });
    });

    it('stamps its creation time as the last state change', () => {
      expect(loggedOut().context.lastStateChangeAt).toBe(T0);
    });

    it.each([0, 6, 2.5])('refuses a capacity of %p chats', (capacity) => {
      expect(() => loggedOut(capacity)).toThrow(DomainError);
    });

    it('lists exactly the statuses of its leaf states', () => {
      expect([...leafStateNames(agentPresenceMachine.root)].sort()).toEqual([...AGENT_STATUSES].sort());
    });
  });

  describe('loggedOut', () => {
    it('becomes available on login and asks routing for work', () => {
      const result = send(loggedOut(), { type: 'agent.loggedIn' });
      expect(describeAgentState(result.snapshot)).toBe('available');
      expect(result.snapshot.context.idleSince).toBe(clock);
      expect(result.intents).toEqual([{ type: 'requestAssignment', params: { agentId: 'agent-a', tenantId: 'tenant-1', freeSlots: 3 } }]);
      expect(result.record).toEqual({ from: 'loggedOut', to: 'available', event: 'agent.loggedIn', at: clock, actor: agent });
    });

    it('takes the capacity and pause reasons of the campaign logged into', () => {
      const result = send(loggedOut(), { type: 'agent.loggedIn', capacity: 5, pauseReasons: ['meeting'] });
      expect(result.snapshot.context).toMatchObject({ capacity: 5, pauseReasons: ['meeting'] });
    });

    it('refuses a login into a campaign allowing more than 5 chats', () => {
      expect(refused(loggedOut(), { type: 'agent.loggedIn', capacity: 6 })).toBe(true);
    });

    it.each<EventBody>([
      assign('c-1'),
      { type: 'agent.paused', reasonId: 'lunch' },
      { type: 'agent.callStarted' },
      { type: 'agent.busySet' },
    ])('refuses $type before login', (body) => {
      expect(refused(loggedOut(), body)).toBe(true);
    });

    it('accepts a capacity change while logged out', () => {
      expect(send(loggedOut(), { type: 'agent.capacityChanged', capacity: 2 }, system).snapshot.context.capacity).toBe(2);
    });
  });

  describe('available and busy', () => {
    it('becomes busy with its first conversation', () => {
      const result = send(available(), assign('c-1'), system);
      expect(describeAgentState(result.snapshot)).toBe('busy');
      expect(result.snapshot.context).toMatchObject({ activeConversationIds: ['c-1'], idleSince: clock });
      expect(result.record).toMatchObject({ from: 'available', to: 'busy' });
    });

    it('keeps taking conversations while busy below capacity', () => {
      expect(holding('c-1', 'c-2', 'c-3').context.activeConversationIds).toEqual(['c-1', 'c-2', 'c-3']);
    });

    it('refuses a conversation beyond capacity', () => {
      expect(refused(holding('c-1', 'c-2', 'c-3'), assign('c-4'))).toBe(true);
    });

    it('refuses the same conversation twice', () => {
      expect(refused(holding('c-1'), assign('c-1'))).toBe(true);
    });

    it('refuses a conversation while the busy flag is set', () => {
      expect(refused(after(available(), { type: 'agent.busySet' }), assign('c-1'))).toBe(true);
    });

    it('shows busy when flagged with no conversation, and available again when cleared', () => {
      const flagged = after(available(), { type: 'agent.busySet' });
      expect(describeAgentState(flagged)).toBe('busy');
      const cleared = send(flagged, { type: 'agent.busyCleared' });
      expect(describeAgentState(cleared.snapshot)).toBe('available');
      expect(cleared.intents).toEqual([{ type: 'requestAssignment', params: { agentId: 'agent-a', tenantId: 'tenant-1', freeSlots: 3 } }]);
    });

    it('refuses setting the busy flag twice', () => {
      expect(refused(after(available(), { type: 'agent.busySet' }), { type: 'agent.busySet' })).toBe(true);
    });

    it('refuses clearing a busy flag that is not set', () => {
      expect(refused(available(), { type: 'agent.busyCleared' })).toBe(true);
    });

    it('becomes available when its last conversation is released, keeping the disposition', () => {
      const result = send(holding('c-1'), { type: 'agent.conversationReleased', conversationId: 'c-1', disposition: 'solved' }, system);
      expect(describeAgentState(result.snapshot)).toBe('available');
      expect(result.snapshot.context).toMatchObject({ activeConversationIds: [], lastDisposition: 'solved' });
      expect(result.intents).toEqual([{ type: 'requestAssignment', params: { agentId: 'agent-a', tenantId: 'tenant-1', freeSlots: 3 } }]);
    });

    it('asks for work as soon as a slot frees while still busy', () => {
      const result = send(holding('c-1', 'c-2', 'c-3'), { type: 'agent.conversationReleased', conversationId: 'c-2' }, system);
      expect(describeAgentState(result.snapshot)).toBe('busy');
      expect(result.snapshot.context.activeConversationIds).toEqual(['c-1', 'c-3']);
      expect(result.intents).toEqual([{ type: 'requestAssignment', params: { agentId: 'agent-a', tenantId: 'tenant-1', freeSlots: 1 } }]);
    });

    it('refuses releasing a conversation it does not hold', () => {
      expect(refused(holding('c-1'), { type: 'agent.conversationReleased', conversationId: 'c-9' })).toBe(true);
    });

    it('goes into a call, keeping its chats', () => {
      const result = send(holding('c-1'), { type: 'agent.callStarted' });
      expect(describeAgentState(result.snapshot)).toBe('inCall');
      expect(result.snapshot.context.activeConversationIds).toEqual(['c-1']);
    });

    it('starts waiting for the dialer', () => {
      expect(statusAfter(available(), { type: 'agent.outboundWaitStarted' })).toBe('waitingOutboundCall');
    });

    it('pauses with a reason from the list', () => {
      const result = send(available(), { type: 'agent.paused', reasonId: 'lunch' });
      expect(describeAgentState(result.snapshot)).toBe('paused');
      expect(result.snapshot.context).toMatchObject({ pauseReasonId: 'lunch', pausedBy: agent });
    });

    it('refuses a pause reason that is not offered', () => {
      expect(refused(available(), { type: 'agent.paused', reasonId: 'nap' })).toBe(true);
    });

    it('refuses auto-away chosen by hand', () => {
      expect(refused(available(), { type: 'agent.paused', reasonId: AUTO_AWAY_REASON })).toBe(true);
    });

    it('hands its conversations back to routing on logout', () => {
      const result = send(holding('c-1', 'c-2'), { type: 'agent.loggedOut' });
      expect(describeAgentState(result.snapshot)).toBe('loggedOut');
      expect(result.snapshot.context.activeConversationIds).toEqual([]);
      expect(result.intents).toEqual([{ type: 'requeueConversations', params: { agentId: 'agent-a', conversationIds: ['c-1', 'c-2'] } }]);
    });

    it('logs out with no intent when it holds nothing', () => {
      expect(send(available(), { type: 'agent.loggedOut' }).intents).toEqual([]);
    });

    it('forgets the busy flag on logout', () => {
      const back = after(after(available(), { type: 'agent.busySet' }), { type: 'agent.loggedOut' }, { type: 'agent.loggedIn' });
      expect(describeAgentState(back)).toBe('available');
    });
  });

  describe('paused', () => {
    it('resumes to available and asks routing for work', () => {
      const result = send(paused(), { type: 'agent.resumed' });
      expect(describeAgentState(result.snapshot)).toBe('available');
      expect(result.snapshot.context).toMatchObject({ pauseReasonId: null, pausedBy: null });
      expect(result.intents.map((intent) => intent.type)).toEqual(['requestAssignment']);
    });

    it('resumes to busy when it still holds conversations', () => {
      const result = send(after(holding('c-1'), { type: 'agent.paused', reasonId: 'lunch' }), { type: 'agent.resumed' });
      expect(describeAgentState(result.snapshot)).toBe('busy');
    });

    it('switches to another reason without resuming', () => {
      const result = send(paused(), { type: 'agent.paused', reasonId: 'training' });
      expect(result.snapshot.context.pauseReasonId).toBe('training');
      expect(result.record).toMatchObject({ from: 'paused', to: 'paused', event: 'agent.paused' });
    });

    it('refuses pausing again for the same reason', () => {
      expect(refused(paused(), { type: 'agent.paused', reasonId: 'lunch' })).toBe(true);
    });

    it('finishes a conversation while paused without asking for work', () => {
      const result = send(after(holding('c-1'), { type: 'agent.paused', reasonId: 'lunch' }), {
        type: 'agent.conversationReleased',
        conversationId: 'c-1',
      });
      expect(describeAgentState(result.snapshot)).toBe('paused');
      expect(result.intents).toEqual([]);
    });

    it('refuses a new conversation', () => {
      expect(refused(paused(), assign('c-1'))).toBe(true);
    });

    it('refuses resuming when not paused', () => {
      expect(refused(available(), { type: 'agent.resumed' })).toBe(true);
    });
  });

  describe('supervisor actions', () => {
    it('lets a supervisor force a pause, recorded as theirs', () => {
      const result = send(available(), { type: 'agent.forcePaused', reasonId: 'training' }, supervisor);
      expect(describeAgentState(result.snapshot)).toBe('paused');
      expect(result.snapshot.context).toMatchObject({ pauseReasonId: 'training', pausedBy: supervisor });
    });

    it('refuses a forced pause from an agent', () => {
      expect(refused(available(), { type: 'agent.forcePaused', reasonId: 'training' }, otherAgent)).toBe(true);
    });

    it('lets a supervisor log an agent out', () => {
      expect(statusAfter(paused(), { type: 'agent.forceLoggedOut' }, supervisor)).toBe('loggedOut');
    });

    it('refuses a forced logout from an agent', () => {
      expect(refused(available(), { type: 'agent.forceLoggedOut' }, otherAgent)).toBe(true);
    });
  });

  describe('calls', () => {
    it('goes to after-call work when the call ends, arming its timer', () => {
      const result = send(inCall(), { type: 'agent.callEnded', disposition: 'callback' }, system);
      expect(describeAgentState(result.snapshot)).toBe('afterCallWork');
      expect(result.snapshot.context.lastDisposition).toBe('callback');
      expect(result.intents).toEqual([{ type: 'scheduleAfterCallWorkEnd', params: { agentId: 'agent-a', armedAt: clock } }]);
    });

    it.each<EventBody>([{ type: 'agent.loggedOut' }, { type: 'agent.paused', reasonId: 'lunch' }, { type: 'agent.outboundCallEnded' }])(
      'refuses $type during a call',
      (body) => {
        expect(refused(inCall(), body)).toBe(true);
      },
    );

    it('refuses a forced pause during a call', () => {
      expect(refused(inCall(), { type: 'agent.forcePaused', reasonId: 'lunch' }, supervisor)).toBe(true);
    });

    it('takes a chat during a call within capacity when routing says the line allows it, staying in the call', () => {
      const duringCall = (id: string): EventBody => ({ type: 'agent.conversationAssigned', conversationId: id, duringCall: true });
      // Anything else (a transfer to an agent on a call) is refused.
      expect(refused(inCall(), assign('c-1'))).toBe(true);
      const result = send(inCall(), duringCall('c-1'));
      expect(describeAgentState(result.snapshot)).toBe('inCall');
      expect(result.snapshot.context.activeConversationIds).toEqual(['c-1']);
      expect(result.intents).toEqual([]);
      expect(inCallCandidate(result.snapshot)).toMatchObject({ agentId: 'agent-a', activeConversations: 1 });
      expect(routingCandidate(result.snapshot)).toBeNull();
      const full = after(after(result.snapshot, duringCall('c-2')), duringCall('c-3'));
      expect(refused(full, duringCall('c-4'))).toBe(true);
      expect(inCallCandidate(full)).toBeNull();
    });

    it('finishes a chat during a call', () => {
      const inCallWithChat = after(holding('c-1'), { type: 'agent.callStarted' });
      expect(
        send(inCallWithChat, { type: 'agent.conversationReleased', conversationId: 'c-1' }).snapshot.context.activeConversationIds,
      ).toEqual([]);
    });
  });

  describe('afterCallWork', () => {
    it('ends when the agent says so', () => {
      const result = send(afterCallWork(), { type: 'agent.afterCallWorkEnded' });
      expect(describeAgentState(result.snapshot)).toBe('available');
      expect(result.intents.map((intent) => intent.type)).toEqual(['cancelAfterCallWorkEnd', 'requestAssignment']);
    });

    it('ends when its timer fires', () => {
      const before = afterCallWork();
      expect(statusAfter(before, { type: 'agent.afterCallWorkEnded', armedAt: before.context.lastStateChangeAt }, system)).toBe(
        'available',
      );
    });

    it('refuses a timer armed for an earlier call', () => {
      const before = afterCallWork();
      expect(refused(before, { type: 'agent.afterCallWorkEnded', armedAt: before.context.lastStateChangeAt - 1 }, system)).toBe(true);
    });

    it('pauses straight from wrap-up, cancelling its timer', () => {
      const result = send(afterCallWork(), { type: 'agent.paused', reasonId: 'lunch' });
      expect(describeAgentState(result.snapshot)).toBe('paused');
      expect(result.intents).toEqual([{ type: 'cancelAfterCallWorkEnd', params: { agentId: 'agent-a' } }]);
    });
  });

  describe('outbound', () => {
    it('connects a dialer call', () => {
      expect(statusAfter(waiting(), { type: 'agent.outboundCallConnected' }, system)).toBe('outboundCall');
    });

    it('goes to after-call work when the dialer call ends, keeping its disposition', () => {
      const onCall = after(waiting(), { type: 'agent.outboundCallConnected' });
      const result = send(onCall, { type: 'agent.outboundCallEnded', disposition: 'no_interest' }, system);
      expect(describeAgentState(result.snapshot)).toBe('afterCallWork');
      expect(result.snapshot.context.lastDisposition).toBe('no_interest');
    });

    it('stops waiting for the dialer when made available', () => {
      expect(statusAfter(waiting(), { type: 'agent.madeAvailable' })).toBe('available');
    });

    it('refuses made-available outside the dialer wait', () => {
      expect(refused(paused(), { type: 'agent.madeAvailable' })).toBe(true);
    });

    it('refuses a chat while waiting for the dialer', () => {
      expect(refused(waiting(), assign('c-1'))).toBe(true);
    });
  });

  describe('connection', () => {
    it('arms the grace timer on disconnect and takes no new work meanwhile', () => {
      const result = send(available(), { type: 'agent.disconnected' }, system);
      expect(result.snapshot.context.disconnectedAt).toBe(clock);
      expect(result.intents).toEqual([{ type: 'scheduleDisconnectGrace', params: { agentId: 'agent-a', armedAt: clock } }]);
      expect(canTakeConversation(result.snapshot)).toBe(false);
      expect(refused(result.snapshot, assign('c-1'))).toBe(true);
    });

    it('cancels the grace timer and asks for work on reconnect', () => {
      const result = send(disconnected(), { type: 'agent.reconnected' }, system);
      expect(result.snapshot.context.disconnectedAt).toBeNull();
      expect(result.intents.map((intent) => intent.type)).toEqual(['cancelDisconnectGrace', 'requestAssignment']);
    });

    it('refuses a second disconnect', () => {
      expect(refused(disconnected(), { type: 'agent.disconnected' })).toBe(true);
    });

    it('refuses a reconnect while connected', () => {
      expect(refused(available(), { type: 'agent.reconnected' })).toBe(true);
    });

    it('goes auto-away when the grace period runs out', () => {
      const before = disconnected();
      const result = send(before, { type: 'agent.disconnectGraceExpired', armedAt: before.context.disconnectedAt ?? 0 }, system);
      expect(describeAgentState(result.snapshot)).toBe('paused');
      expect(result.snapshot.context).toMatchObject({ pauseReasonId: AUTO_AWAY_REASON, pausedBy: system });
    });

    it('refuses a grace timer from an earlier disconnection', () => {
      const first = disconnected();
      const staleArmedAt = first.context.disconnectedAt ?? 0;
      const again = after(first, { type: 'agent.reconnected' }, { type: 'agent.disconnected' });
      expect(refused(again, { type: 'agent.disconnectGraceExpired', armedAt: staleArmedAt }, system)).toBe(true);
    });

    it('keeps an existing pause reason when the grace period runs out', () => {
      const before = after(paused(), { type: 'agent.disconnected' });
      expect(refused(before, { type: 'agent.disconnectGraceExpired', armedAt: before.context.disconnectedAt ?? 0 }, system)).toBe(true);
    });

    it('leaves a call to telephony when the grace period runs out', () => {
      const before = after(inCall(), { type: 'agent.disconnected' });
      expect(refused(before, { type: 'agent.disconnectGraceExpired', armedAt: before.context.disconnectedAt ?? 0 }, system)).toBe(true);
    });

    it('cancels the grace timer on logout', () => {
      expect(send(disconnected(), { type: 'agent.loggedOut' }).intents).toEqual([
        { type: 'cancelDisconnectGrace', params: { agentId: 'agent-a' } },
      ]);
    });
  });

  describe('capacity', () => {
    it('asks for work when the campaign allows more chats', () => {
      const result = send(holding('c-1', 'c-2', 'c-3'), { type: 'agent.capacityChanged', capacity: 5 }, system);
      expect(result.intents).toEqual([{ type: 'requestAssignment', params: { agentId: 'agent-a', tenantId: 'tenant-1', freeSlots: 2 } }]);
    });

    it.each([0, 6, 3])('refuses a change to %p chats', (capacity) => {
      expect(refused(available(3), { type: 'agent.capacityChanged', capacity }, system)).toBe(true);
    });

    it('keeps conversations above a lowered capacity but takes no more', () => {
      const lowered = after(holding('c-1', 'c-2', 'c-3'), { type: 'agent.capacityChanged', capacity: 2 });
      expect(lowered.context.activeConversationIds).toHaveLength(3);
      expect(freeCapacity(lowered)).toBe(0);
      expect(refused(lowered, assign('c-4'))).toBe(true);
    });
  });

  describe('routing view', () => {
    it('offers all slots of an available agent', () => {
      const snapshot = available(3);
      expect([canTakeConversation(snapshot), freeCapacity(snapshot)]).toEqual([true, 3]);
      expect(routingCandidate(snapshot)).toEqual({
        agentId: 'agent-a',
        activeConversations: 0,
        capacity: 3,
        idleSince: snapshot.context.idleSince,
      });
    });

    it('offers the remaining slots of a busy agent', () => {
      expect(freeCapacity(holding('c-1'))).toBe(2);
    });

    it.each<[string, () => AgentPresenceSnapshot]>([
      ['full', () => holding('c-1', 'c-2', 'c-3')],
      ['flagged busy', () => after(available(), { type: 'agent.busySet' })],
      ['paused', paused],
      ['in a call', inCall],
      ['disconnected', disconnected],
      ['logged out', () => loggedOut()],
    ])('offers nothing when %s', (_label, make) => {
      const snapshot = make();
      expect([canTakeConversation(snapshot), freeCapacity(snapshot), routingCandidate(snapshot)]).toEqual([false, 0, null]);
    });
  });

  describe('persistence', () => {
    it.each<[string, () => AgentPresenceSnapshot]>([
      ['loggedOut', () => loggedOut()],
      ['busy', () => holding('c-1')],
      ['paused', paused],
      ['afterCallWork', afterCallWork],
      ['waitingOutboundCall', waiting],
    ])('restores a %s snapshot from JSON with the same value and context', (_status, make) => {
      const original = make();
      const restored = restore(agentPresenceMachine, JSON.parse(JSON.stringify(persist(agentPresenceMachine, original))));
      expect(restored.value).toEqual(original.value);
      expect(restored.context).toStrictEqual(original.context);
    });

    it('behaves the same after a JSON round trip', () => {
      const original = holding('c-1', 'c-2');
      const restored = restore(agentPresenceMachine, JSON.parse(JSON.stringify(persist(agentPresenceMachine, original))));
      const release = event({ type: 'agent.conversationReleased', conversationId: 'c-1' });
      expect(step(agentPresenceMachine, restored, release)).toEqual({
        ...step(agentPresenceMachine, original, release),
        snapshot: expect.anything(),
      });
      expect(restored.can(event(assign('c-2')))).toBe(false);
    });
  });
});
