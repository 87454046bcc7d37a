import { describe, expect, it } from '@jest/globals';
import { orderQueue, queuePosition, type QueueEntry } from './order-queue';

const entry = (conversationId: string, priority: number, queuedAt: number): QueueEntry => ({ conversationId, priority, queuedAt });

describe(orderQueue.name, () => {
  it('serves first come first served within a priority', () => {
    const ordered = orderQueue([entry('late', 0, 300), entry('early', 0, 100), entry('middle', 0, 200)]);
    expect(ordered.map((e) => e.conversationId)).toEqual(['early', 'middle', 'late']);
  });

  it('serves a higher priority before anyone who waited longer', () => {
    const ordered = orderQueue([entry('old', 0, 100), entry('vip', 5, 900), entry('urgent', 1, 500)]);
    expect(ordered.map((e) => e.conversationId)).toEqual(['vip', 'urgent', 'old']);
  });

  it('orders entries queued in the same millisecond by id', () => {
    expect(orderQueue([entry('b', 0, 100), entry('a', 0, 100)]).map((e) => e.conversationId)).toEqual(['a', 'b']);
  });

  it('leaves the given array untouched', () => {
    const entries = [entry('b', 0, 200), entry('a', 0, 100)];
    orderQueue(entries);
    expect(entries.map((e) => e.conversationId)).toEqual(['b', 'a']);
  });
});

describe(queuePosition.name, () => {
  const entries = [entry('c', 0, 300), entry('a', 0, 100), entry('vip', 2, 400)];

  it('gives the 1-based place in serving order', () => {
    expect([queuePosition(entries, 'vip'), queuePosition(entries, 'a'), queuePosition(entries, 'c')]).toEqual([1, 2, 3]);
  });

  it('returns null for a conversation not in the queue', () => {
    expect(queuePosition(entries, 'zzz')).toBeNull();
  });
});
