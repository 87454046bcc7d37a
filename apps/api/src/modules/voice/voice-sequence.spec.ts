import { admitEvent, MAX_PENDING_EVENTS } from './voice-sequence';

const e = (seq: number, tag = '') => ({ seq, tag });

describe(admitEvent.name, () => {
  it('applies the next event at once', () => {
    expect(admitEvent(0, [], e(1))).toEqual({ outcome: 'ready', ready: [e(1)], pending: [], lastSeq: 1 });
  });

  it('ignores a repeat of an applied event', () => {
    expect(admitEvent(3, [], e(2))).toEqual({ outcome: 'duplicate', ready: [], pending: [], lastSeq: 3 });
    expect(admitEvent(3, [], e(3))).toMatchObject({ outcome: 'duplicate', lastSeq: 3 });
  });

  it('holds an event ahead of a gap, sorted, and ignores a repeat of a held one', () => {
    const first = admitEvent(1, [], e(4));
    expect(first).toEqual({ outcome: 'held', ready: [], pending: [e(4)], lastSeq: 1 });
    const second = admitEvent(1, first.pending, e(3));
    expect(second).toEqual({ outcome: 'held', ready: [], pending: [e(3), e(4)], lastSeq: 1 });
    expect(admitEvent(1, second.pending, e(4, 'again'))).toEqual({ outcome: 'duplicate', ready: [], pending: [e(3), e(4)], lastSeq: 1 });
  });

  it('releases the held events the missing one unblocks, in order, and keeps those behind another gap', () => {
    const admitted = admitEvent(1, [e(6), e(3), e(4)], e(2));
    expect(admitted).toEqual({ outcome: 'ready', ready: [e(2), e(3), e(4)], pending: [e(6)], lastSeq: 4 });
  });

  it('applies a whole call delivered newest first exactly in order', () => {
    let lastSeq = 0;
    let pending: { seq: number; tag: string }[] = [];
    const applied: number[] = [];
    for (const seq of [5, 4, 3, 2, 1, 3, 5]) {
      const admitted = admitEvent(lastSeq, pending, e(seq));
      applied.push(...admitted.ready.map((event) => event.seq));
      ({ lastSeq, pending } = admitted);
    }
    expect(applied).toEqual([1, 2, 3, 4, 5]);
    expect({ lastSeq, pending }).toEqual({ lastSeq: 5, pending: [] });
  });

  it('refuses a sequence number that is not a positive integer', () => {
    for (const seq of [0, -1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 2]) {
      expect(admitEvent(0, [], e(seq))).toEqual({ outcome: 'invalid', ready: [], pending: [], lastSeq: 0 });
    }
  });

  it('refuses to hold more than MAX_PENDING_EVENTS events of one call', () => {
    const full = Array.from({ length: MAX_PENDING_EVENTS }, (_, i) => e(i + 3));
    expect(admitEvent(1, full, e(MAX_PENDING_EVENTS + 10)).outcome).toBe('invalid');
    // The missing one still drains them all.
    expect(admitEvent(1, full, e(2))).toMatchObject({ outcome: 'ready', lastSeq: MAX_PENDING_EVENTS + 2, pending: [] });
  });
});
