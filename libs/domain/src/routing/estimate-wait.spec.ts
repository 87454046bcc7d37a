import { describe, expect, it } from '@jest/globals';
import { DomainError } from '../domain-error';
import { estimateWait } from './estimate-wait';

describe(estimateWait.name, () => {
  it('expects the next customer to wait one handle time shared among the agents', () => {
    // AHT = (120 + 180 + 240) / 3 = 180 s; 2 agents free one slot every 90 s.
    expect(estimateWait(1, [120, 180, 240], 2)).toBe(90);
  });

  it('expects the third customer to wait for three completions', () => {
    // 3 · 180 / 2 = 270 s.
    expect(estimateWait(3, [120, 180, 240], 2)).toBe(270);
  });

  it('counts chat slots as servers', () => {
    // 4 agents with 3 chats each = 12 slots; 6 · 300 / 12 = 150 s.
    expect(estimateWait(6, [300], 12)).toBe(150);
  });

  it('has no estimate without recent handle times', () => {
    expect(estimateWait(1, [], 2)).toBeNull();
  });

  it('has no estimate when nobody serves the line', () => {
    expect(estimateWait(1, [180], 0)).toBeNull();
  });

  it('refuses a position below 1', () => {
    expect(() => estimateWait(0, [180], 2)).toThrow(DomainError);
  });
});
