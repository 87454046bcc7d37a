import { LIMITS } from '@centralita/contracts';

/** Spec §9: a campaign allows at most 5 chats per agent. */
export const MAX_CHATS_PER_AGENT: number = LIMITS.maxChatsPerAgent;

/** A campaign's allowed chats per agent: a whole number from 1 to 5. */
export function isValidCapacity(capacity: number): boolean {
  return Number.isInteger(capacity) && capacity >= 1 && capacity <= MAX_CHATS_PER_AGENT;
}
