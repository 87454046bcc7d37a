import { describe, expect, it } from '@jest/globals';
import { DomainError } from '../domain-error';
import { initial, persist, restore, step, type Actor } from '../machines/machine-step';
import {
  CALL_OUTCOMES,
  CARRIER_LEG_CALL_STATUSES,
  DEFAULT_ABANDON_THRESHOLD_MS,
  FINAL_CALL_STATUSES,
  OUTBOUND_CALL_STATUSES,
  describeOutboundCallState,
  outboundCallMachine,
  type OutboundCallEvent,
  type OutboundCallInput,
  type OutboundCallSnapshot,
} from './outbound-call.machine';

const T0 = Date.UTC(2025, 0, 15, 10, 0, 0);
const system: Actor = { kind: 'system' };
const agentA: Actor = { kind: 'agent', id: 'agent-a' };
const agentB: Actor = { kind: 'agent', id: 'agent-b' };
const supervisor: Actor = { kind: 'supervisor', id: 'supervisor-1' };

type EventBody = OutboundCallEvent extends infer E ? (E extends OutboundCallEvent ? Omit<E, 'at' | 'actor'> : never) : never;

let clock = T0;
/** Events one second apart, so every timestamp in a scenario is distinct. */
function event(body: EventBody, actor: Actor = system): OutboundCallEvent {
  clock += 1000;
  return { ...body, at: clock, actor } as OutboundCallEvent;
}

function send(snapshot: OutboundCallSnapshot, body: EventBody, actor?: Actor) {
  return step(outboundCallMachine, snapshot, event(body, actor));
}

function after(snapshot: OutboundCallSnapshot, body: EventBody, actor?: Actor): OutboundCallSnapshot {
  const result = send(snapshot, body, actor);
  if (!result.changed) throw new Error(`Setup event ${body.type} was refused in ${describeOutboundCallState(snapshot)}`);
  return result.snapshot;
}

const input = (overrides: Partial<OutboundCallInput> = {}): OutboundCallInput => ({
  id: 'call-1',
  tenantId: 'tenant-1',
  campaignId: 'campaign-1',
  contactId: 'contact-1',
  phone: '+34912345678',
  attempt: 1,
  at: T0,
  actor: system,
  ...overrides,
});

function queued(): OutboundCallSnapshot {
  clock = T0;
  return initial(outboundCallMachine, input()).snapshot;
}
const dialing = () => after(queued(), { type: 'call.dialed' });
const ringing = () => after(dialing(), { type: 'call.ringing' });
const answered = () => after(ringing(), { type: 'call.answered', by: 'human' });
const connected = () => after(answered(), { type: 'call.agentConnected', agentId: 'agent-a' });
const wrapUp = () => after(connected(), { type: 'call.hungUp' });

const intentTypes = (result: { intents: { type: string }[] }) => result.intents.map((intent) => intent.type);

describe(outboundCallMachine.id, () => {
  describe('creation', () => {
    it('starts queued with one log row and no intents', () => {
      const result = initial(outboundCallMachine, input());
      expect(describeOutboundCallState(result.snapshot)).toBe('queued');
      expect(result.intents).toEqual([]);
      expect(result.record).toEqual({ from: null, to: 'queued', event: 'xstate.init', at: T0, actor: system });
    });

    it('keeps the contact, the attempt and a 2 s abandon threshold by default', () => {
      const { context } = initial(outboundCallMachine, input({ attempt: 3 })).snapshot;
      expect(context).toMatchObject({ campaignId: 'campaign-1', contactId: 'contact-1', phone: '+34912345678', attempt: 3 });
      expect(context.abandonThresholdMs).toBe(DEFAULT_ABANDON_THRESHOLD_MS);
      expect(DEFAULT_ABANDON_THRESHOLD_MS).toBe(2000);
    });

    it('refuses a number that is not E.164', () => {
      expect(() => initial(outboundCallMachine, input({ phone: '912345678' }))).toThrow(DomainError);
    });

    it('refuses an attempt number below 1', () => {
      expect(() => initial(outboundCallMachine, input({ attempt: 0 }))).toThrow(DomainError);
    });

    it('refuses a call without a campaign', () => {
      expect(() => initial(outboundCallMachine, input({ campaignId: ' ' }))).toThrow(DomainError);
    });
  });

  describe('dialing', () => {
    it('asks the host to place the call when dialed', () => {
      const result = send(queued(), { type: 'call.dialed' });
      expect(describeOutboundCallState(result.snapshot)).toBe('dialing');
      expect(result.intents).toEqual([
        {
          type: 'placeCall',
          params: { callId: 'call-1', tenantId: 'tenant-1', campaignId: 'campaign-1', phone: '+34912345678', attempt: 1 },
        },
      ]);
      expect(result.snapshot.context.dialedAt).toBe(clock);
    });

    it('moves to ringing when the carrier reports ringing', () => {
      const result = send(dialing(), { type: 'call.ringing' });
      expect(describeOutboundCallState(result.snapshot)).toBe('ringing');
      expect(result.snapshot.context.ringingAt).toBe(clock);
    });

    it('accepts an answer straight from dialing (no ringing reported)', () => {
      expect(describeOutboundCallState(send(dialing(), { type: 'call.answered', by: 'human' }).snapshot)).toBe('answeredByHuman');
    });

    it('cancels a queued call with a reason', () => {
      const result = send(queued(), { type: 'call.cancelled', reason: 'do_not_call' });
      expect(describeOutboundCallState(result.snapshot)).toBe('cancelled');
      expect(result.snapshot.context).toMatchObject({ outcome: 'cancelled', endReason: 'do_not_call' });
    });

    it('refuses to cancel a call already dialing', () => {
      expect(send(dialing(), { type: 'call.cancelled', reason: 'do_not_call' }).changed).toBe(false);
    });

    it('refuses an agent connection before anyone answered', () => {
      expect(send(ringing(), { type: 'call.agentConnected', agentId: 'agent-a' }).changed).toBe(false);
    });
  });

  describe('carrier outcomes', () => {
    it.each([
      ['call.busy', { type: 'call.busy' } as EventBody, 'busy'],
      ['call.notAnswered', { type: 'call.notAnswered' } as EventBody, 'noAnswer'],
      ['call.failed', { type: 'call.failed', reason: 'invalid_number' } as EventBody, 'failed'],
    ])('ends a ringing call on %s as %s and reports the outcome', (_name, body, outcome) => {
      const result = send(ringing(), body);
      expect(describeOutboundCallState(result.snapshot)).toBe(outcome);
      expect(result.snapshot.status).toBe('done');
      expect(result.intents).toEqual([
        {
          type: 'reportOutcome',
          params: {
            callId: 'call-1',
            tenantId: 'tenant-1',
            campaignId: 'campaign-1',
            contactId: 'contact-1',
            attempt: 1,
            outcome,
            disposition: null,
            at: clock,
          },
        },
      ]);
    });

    it('keeps the carrier cause of a failure', () => {
      expect(send(ringing(), { type: 'call.failed', reason: 'invalid_number' }).snapshot.context.endReason).toBe('invalid_number');
    });

    it('refuses a failure without a cause', () => {
      expect(send(ringing(), { type: 'call.failed', reason: '' }).changed).toBe(false);
    });

    it('hangs up on an answering machine and reports it', () => {
      const result = send(ringing(), { type: 'call.answered', by: 'machine' });
      expect(describeOutboundCallState(result.snapshot)).toBe('answeringMachine');
      expect(intentTypes(result)).toEqual(['hangUp', 'reportOutcome']);
      expect(result.intents[0]).toEqual({ type: 'hangUp', params: { callId: 'call-1', reason: 'answeringMachine' } });
    });
  });

  describe('answered by a human', () => {
    it('requests an agent and arms the abandon timer at the answer time', () => {
      const result = send(ringing(), { type: 'call.answered', by: 'human' });
      expect(describeOutboundCallState(result.snapshot)).toBe('answeredByHuman');
      expect(result.intents).toEqual([
        { type: 'requestAgent', params: { callId: 'call-1', tenantId: 'tenant-1', campaignId: 'campaign-1', answeredAt: clock } },
        { type: 'scheduleAbandonTimer', params: { callId: 'call-1', armedAt: clock, delayMs: 2000 } },
      ]);
    });

    it('connects an agent, cancels the abandon timer and bridges the audio', () => {
      const result = send(answered(), { type: 'call.agentConnected', agentId: 'agent-a' });
      expect(describeOutboundCallState(result.snapshot)).toBe('connected');
      expect(intentTypes(result)).toEqual(['cancelAbandonTimer', 'bridgeAgent']);
      expect(result.snapshot.context).toMatchObject({ agentId: 'agent-a', connectedAt: clock });
    });

    it('is abandoned when the abandon timer fires first', () => {
      const snapshot = answered();
      const armedAt = snapshot.context.answeredAt!;
      const result = send(snapshot, { type: 'call.abandonTimerExpired', armedAt });
      expect(describeOutboundCallState(result.snapshot)).toBe('abandoned');
      expect(intentTypes(result)).toEqual(['cancelAbandonTimer', 'hangUp', 'reportOutcome']);
      expect(result.intents[1]).toEqual({ type: 'hangUp', params: { callId: 'call-1', reason: 'abandoned' } });
    });

    it('refuses an abandon timer armed at another time', () => {
      const snapshot = answered();
      expect(send(snapshot, { type: 'call.abandonTimerExpired', armedAt: snapshot.context.answeredAt! - 1 }).changed).toBe(false);
    });

    it('refuses a late abandon timer once an agent is connected', () => {
      const snapshot = connected();
      expect(send(snapshot, { type: 'call.abandonTimerExpired', armedAt: snapshot.context.answeredAt! }).changed).toBe(false);
    });

    it('counts a contact who hangs up before an agent comes as abandoned', () => {
      const result = send(answered(), { type: 'call.hungUp' });
      expect(describeOutboundCallState(result.snapshot)).toBe('abandoned');
      expect(result.snapshot.context.outcome).toBe('abandoned');
    });

    it('honours a configured abandon threshold', () => {
      clock = T0;
      let snapshot = initial(outboundCallMachine, input({ abandonThresholdMs: 5000 })).snapshot;
      snapshot = after(after(snapshot, { type: 'call.dialed' }), { type: 'call.ringing' });
      const result = send(snapshot, { type: 'call.answered', by: 'human' });
      expect(result.intents[1]).toEqual({ type: 'scheduleAbandonTimer', params: { callId: 'call-1', armedAt: clock, delayMs: 5000 } });
    });
  });

  describe('connected and wrap-up', () => {
    it('records a disposition set by the call’s agent during the call', () => {
      const result = send(connected(), { type: 'call.dispositioned', disposition: 'sale' }, agentA);
      expect(describeOutboundCallState(result.snapshot)).toBe('connected');
      expect(result.snapshot.context.disposition).toBe('sale');
    });

    it('refuses a disposition from another agent', () => {
      expect(send(connected(), { type: 'call.dispositioned', disposition: 'sale' }, agentB).changed).toBe(false);
    });

    it('releases the agent to wrap-up and arms the wrap-up timer when the call ends', () => {
      const result = send(connected(), { type: 'call.hungUp' });
      expect(describeOutboundCallState(result.snapshot)).toBe('wrapUp');
      expect(result.intents).toEqual([
        { type: 'releaseAgent', params: { callId: 'call-1', agentId: 'agent-a' } },
        { type: 'scheduleWrapUpEnd', params: { callId: 'call-1', agentId: 'agent-a', armedAt: clock } },
      ]);
    });

    it('finishes as done with the disposition the agent sets in wrap-up', () => {
      const result = send(wrapUp(), { type: 'call.dispositioned', disposition: 'callback' }, agentA);
      expect(describeOutboundCallState(result.snapshot)).toBe('done');
      expect(intentTypes(result)).toEqual(['cancelWrapUpEnd', 'reportOutcome']);
      expect(result.intents[1]).toMatchObject({ params: { outcome: 'done', disposition: 'callback', at: clock } });
    });

    it('lets a supervisor set the disposition', () => {
      expect(describeOutboundCallState(send(wrapUp(), { type: 'call.dispositioned', disposition: 'sale' }, supervisor).snapshot)).toBe(
        'done',
      );
    });

    it('finishes without a disposition when the wrap-up timer fires', () => {
      const snapshot = wrapUp();
      const result = send(snapshot, { type: 'call.wrapUpExpired', armedAt: snapshot.context.hungUpAt! });
      expect(describeOutboundCallState(result.snapshot)).toBe('done');
      expect(result.snapshot.context.disposition).toBeNull();
    });

    it('refuses a wrap-up timer armed at another time', () => {
      const snapshot = wrapUp();
      expect(send(snapshot, { type: 'call.wrapUpExpired', armedAt: snapshot.context.hungUpAt! + 1 }).changed).toBe(false);
    });

    it('refuses every event once done', () => {
      const done = after(wrapUp(), { type: 'call.dispositioned', disposition: 'sale' }, agentA);
      expect(send(done, { type: 'call.hungUp' }).changed).toBe(false);
    });
  });

  describe('log and persistence', () => {
    it('writes one log row per transition with the event and its author', () => {
      const result = send(answered(), { type: 'call.agentConnected', agentId: 'agent-a' }, system);
      expect(result.record).toEqual({ from: 'answeredByHuman', to: 'connected', event: 'call.agentConnected', at: clock, actor: system });
    });

    it('survives a JSON round trip mid-call', () => {
      const snapshot = connected();
      const restored = restore(outboundCallMachine, JSON.parse(JSON.stringify(persist(outboundCallMachine, snapshot))));
      expect(describeOutboundCallState(restored)).toBe('connected');
      expect(restored.context).toEqual(snapshot.context);
      expect(restored.can(event({ type: 'call.hungUp' }))).toBe(true);
    });
  });

  it('names every state once in its status lists: final ones are the outcomes, the rest hold a carrier leg or wrap up', () => {
    expect([...FINAL_CALL_STATUSES].sort()).toEqual([...CALL_OUTCOMES].sort());
    expect([...CARRIER_LEG_CALL_STATUSES, 'wrapUp', ...FINAL_CALL_STATUSES].sort()).toEqual([...OUTBOUND_CALL_STATUSES].sort());
    expect(Object.keys(outboundCallMachine.states).sort()).toEqual([...OUTBOUND_CALL_STATUSES].sort());
  });
});
