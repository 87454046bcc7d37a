import type { Logger } from '@nestjs/common';
import { CoalescedPush } from './coalesced-push';

describe('CoalescedPush', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const logger = () => ({ warn: jest.fn() }) as unknown as Logger & { warn: jest.Mock };

  it('pushes a key once per window however often it changes, each key on its own', async () => {
    const pushed: string[] = [];
    const pushes = new CoalescedPush(300, async (key) => void pushed.push(key), logger());
    pushes.schedule('a');
    pushes.schedule('a');
    pushes.schedule('b');
    jest.advanceTimersByTime(299);
    expect(pushed).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(pushed.sort()).toEqual(['a', 'b']);
    // A change after the push starts a new window.
    pushes.schedule('a');
    jest.advanceTimersByTime(300);
    expect(pushed.sort()).toEqual(['a', 'a', 'b']);
  });

  it('logs a failed push instead of throwing, and clear() drops the pending ones', async () => {
    const log = logger();
    const push = jest.fn(async (key: string) => {
      if (key === 'bad') throw new Error('boom');
    });
    const pushes = new CoalescedPush(100, push, log);
    pushes.schedule('bad');
    jest.advanceTimersByTime(100);
    await Promise.resolve();
    await Promise.resolve();
    expect(log.warn).toHaveBeenCalledWith('board bad: boom');
    pushes.schedule('later');
    pushes.clear();
    jest.advanceTimersByTime(1000);
    expect(push).toHaveBeenCalledTimes(1);
  });
});
