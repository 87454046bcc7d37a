import { describe, expect, it } from '@jest/globals';
import { DomainError } from '../domain-error';
import type { TransitionRecord } from '../machines/machine-step';
import { timeInStates } from './time-in-states';

type Status = 'available' | 'busy' | 'paused';
const system = { kind: 'system' as const };
const record = (from: Status | null, to: Status, at: number): TransitionRecord<Status> => ({ from, to, event: 'test', at, actor: system });

// available 0–100, busy 100–250, paused 250–400, available from 400.
const log = [
  record(null, 'available', 0),
  record('available', 'busy', 100),
  record('busy', 'paused', 250),
  record('paused', 'available', 400),
];

describe(timeInStates.name, () => {
  it('splits a window that covers the whole log', () => {
    expect(timeInStates(log, 0, 500)).toEqual({ available: 200, busy: 150, paused: 150 });
  });

  it('takes the status at the window start from the last record before it', () => {
    expect(timeInStates(log, 200, 300)).toEqual({ busy: 50, paused: 50 });
  });

  it('counts a stay that spans the whole window', () => {
    expect(timeInStates(log, 260, 390)).toEqual({ paused: 130 });
  });

  it('leaves time before the first record unattributed', () => {
    expect(timeInStates(log.slice(1), 50, 150)).toEqual({ busy: 50 });
  });

  it('counts records that keep the status as one continuous stay', () => {
    const withSelfLoop = [record(null, 'paused', 0), record('paused', 'paused', 40), record('paused', 'available', 100)];
    expect(timeInStates(withSelfLoop, 0, 100)).toEqual({ paused: 100 });
  });

  it('gives nothing for an empty window', () => {
    expect(timeInStates(log, 120, 120)).toEqual({});
  });

  it('refuses a window that ends before it starts', () => {
    expect(() => timeInStates(log, 10, 5)).toThrow(DomainError);
  });
});
