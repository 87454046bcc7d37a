import { describe, expect, it } from '@jest/globals';
// Relative on purpose: specs are not built, and this pins the repeated constant to its source.
import { LIMITS } from '../../contracts/src/constants';
import { isValidCapacity, MAX_CHATS_PER_AGENT } from './limits';

describe(isValidCapacity.name, () => {
  it('uses the same chats-per-agent ceiling as the contracts', () => {
    expect(MAX_CHATS_PER_AGENT).toBe(LIMITS.maxChatsPerAgent);
  });

  it('accepts whole numbers from 1 to 5', () => {
    expect([1, 2, 3, 4, 5].every(isValidCapacity)).toBe(true);
  });

  it('refuses zero, more than 5 and fractions', () => {
    expect([0, 6, 2.5, -1, Number.NaN].some(isValidCapacity)).toBe(false);
  });
});
