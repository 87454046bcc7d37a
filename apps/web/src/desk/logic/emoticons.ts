import { DEFAULT_EMOTICONS } from '@centralita/contracts';

/** The emoticons offered when the tenant configured none: the list the platform settings screen shows. */
export const EMOTICONS = DEFAULT_EMOTICONS;

/** The tenant's emoticons (trimmed, blanks and repeats dropped) or, when none are left, the built-in list. */
export function emoticonsToOffer(configured: readonly string[] | null | undefined): readonly string[] {
  const own = [...new Set((configured ?? []).map((emoji) => emoji.trim()).filter(Boolean))];
  return own.length > 0 ? own : EMOTICONS;
}
