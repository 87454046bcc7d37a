import { describe, expect, it } from '@jest/globals';
import { EMOTICONS, emoticonsToOffer } from './emoticons';

describe('emoticonsToOffer', () => {
  it("offers the tenant's emoticons when it configured some", () => {
    expect(emoticonsToOffer(['🦄', ' 🍕 ', '🦄', ''])).toEqual(['🦄', '🍕']);
  });

  it('falls back to the built-in list only when the tenant has none', () => {
    expect(emoticonsToOffer([])).toBe(EMOTICONS);
    expect(emoticonsToOffer(['  '])).toBe(EMOTICONS);
    expect(emoticonsToOffer(null)).toBe(EMOTICONS);
    expect(emoticonsToOffer(undefined)).toBe(EMOTICONS);
  });
});
