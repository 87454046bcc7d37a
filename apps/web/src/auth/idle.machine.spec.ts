import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { createActor } from 'xstate';
import { IDLE_WARNING_MS, idleMachine, secondsLeft } from './idle.machine';

const NOW = Date.UTC(2025, 0, 15, 9, 0, 0);
const MINUTE = 60_000;

function start(idleMinutes = 5) {
  const effects = { shareActivity: jest.fn(), signOut: jest.fn() };
  const actor = createActor(
    idleMachine.provide({
      actions: { shareActivity: (_, params) => effects.shareActivity(params), signOut: () => effects.signOut() },
    }),
    { input: { idleMinutes, now: Date.now() } },
  );
  actor.start();
  const state = () => actor.getSnapshot().value;
  return { actor, effects, state };
}

describe(idleMachine.id, () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: NOW });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('warns a minute before the idle time and signs out when it is up', () => {
    const { actor, effects, state } = start(5);
    jest.advanceTimersByTime(4 * MINUTE - 1);
    expect(state()).toBe('watching');
    jest.advanceTimersByTime(1);
    expect(state()).toBe('warning');
    expect(secondsLeft(actor.getSnapshot(), Date.now())).toBe(IDLE_WARNING_MS / 1000);
    jest.advanceTimersByTime(IDLE_WARNING_MS - 1);
    expect(effects.signOut).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(state()).toBe('signedOut');
    expect(effects.signOut).toHaveBeenCalledTimes(1);
  });

  it('restarts the wait on activity and shares it with the other tabs', () => {
    const { actor, effects, state } = start(5);
    jest.advanceTimersByTime(3 * MINUTE);
    actor.send({ type: 'idle.activity', at: Date.now() });
    expect(effects.shareActivity).toHaveBeenCalledWith({ at: NOW + 3 * MINUTE });
    jest.advanceTimersByTime(4 * MINUTE - 1);
    expect(state()).toBe('watching');
    jest.advanceTimersByTime(1);
    expect(state()).toBe('warning');
  });

  it('keeps the warning up through stray activity in this tab; "Stay signed in" ends it and is shared', () => {
    const { actor, effects, state } = start(5);
    jest.advanceTimersByTime(4 * MINUTE + 10_000);
    actor.send({ type: 'idle.activity', at: Date.now() });
    expect(state()).toBe('warning');
    expect(effects.shareActivity).not.toHaveBeenCalled();
    actor.send({ type: 'idle.stay', at: Date.now() });
    expect(state()).toBe('watching');
    expect(effects.shareActivity).toHaveBeenCalledWith({ at: Date.now() });
    jest.advanceTimersByTime(4 * MINUTE);
    expect(state()).toBe('warning');
    expect(effects.signOut).not.toHaveBeenCalled();
  });

  it('follows activity in another tab, in either state, and ignores what is older than its own', () => {
    const { actor, effects, state } = start(5);
    jest.advanceTimersByTime(2 * MINUTE);
    actor.send({ type: 'idle.sharedActivity', at: Date.now() });
    jest.advanceTimersByTime(3 * MINUTE);
    expect(state()).toBe('watching');
    jest.advanceTimersByTime(MINUTE);
    expect(state()).toBe('warning');
    actor.send({ type: 'idle.sharedActivity', at: NOW });
    expect(state()).toBe('warning');
    actor.send({ type: 'idle.sharedActivity', at: Date.now() });
    expect(state()).toBe('watching');
    // Another tab's activity is already in storage: nothing to write back.
    expect(effects.shareActivity).not.toHaveBeenCalled();
  });

  it('signs out at once when its timer fires after the whole idle time (a laptop waking up)', () => {
    const { effects, state } = start(5);
    jest.setSystemTime(NOW + 2 * 60 * MINUTE);
    jest.advanceTimersByTime(4 * MINUTE);
    expect(state()).toBe('signedOut');
    expect(effects.signOut).toHaveBeenCalledTimes(1);
  });

  it('signs out at once from the warning when the user asks', () => {
    const { actor, effects, state } = start(30);
    jest.advanceTimersByTime(29 * MINUTE);
    expect(state()).toBe('warning');
    actor.send({ type: 'idle.signOut' });
    expect(state()).toBe('signedOut');
    expect(effects.signOut).toHaveBeenCalledTimes(1);
  });
});
