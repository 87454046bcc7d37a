/**
 * When free text may still reach a messaging customer (issue 19, "the 24-hour window"). WhatsApp
 * accepts free text for `replyWindowHours` after the customer's last message, then only approved
 * templates; Messenger and Instagram the same, except that an account with the human-agent tag
 * may still answer, tagged HUMAN_AGENT, until `humanAgentTagHours`. The API refuses a free text
 * outside the window before storing it, and the worker decides at send time (a retry may run after
 * the window closed) whether to tag it or fail it: both read this one rule.
 */
export interface ReplyWindowRules {
  /** Hours after the customer's last message; null: the channel has no window. */
  replyWindowHours: number | null;
  /** Hours the human-agent tag extends it to; null: the channel has no such tag. */
  humanAgentTagHours: number | null;
}

export interface ReplyWindowState {
  /** Free text goes as is. */
  open: boolean;
  until: Date | null;
  /** Until when a tagged free text may still go (the account has the tag and the channel one). */
  humanAgentUntil: Date | null;
  /** What a free text would be now: sent as is, sent with the human-agent tag, or refused. */
  freeText: 'open' | 'humanAgentTag' | 'closed';
}

const HOUR_MS = 3_600_000;

export function replyWindowState(
  rules: ReplyWindowRules,
  lastCustomerMessageAt: Date | null,
  accountHasHumanAgentTag: boolean,
  now: Date,
): ReplyWindowState {
  if (rules.replyWindowHours === null) return { open: true, until: null, humanAgentUntil: null, freeText: 'open' };
  // No customer message yet: a business may not start with free text on a windowed channel.
  if (!lastCustomerMessageAt) return { open: false, until: null, humanAgentUntil: null, freeText: 'closed' };
  const from = lastCustomerMessageAt.getTime();
  const until = new Date(from + rules.replyWindowHours * HOUR_MS);
  const humanAgentUntil =
    accountHasHumanAgentTag && rules.humanAgentTagHours !== null ? new Date(from + rules.humanAgentTagHours * HOUR_MS) : null;
  const open = now.getTime() < until.getTime();
  const freeText = open ? 'open' : humanAgentUntil && now.getTime() < humanAgentUntil.getTime() ? 'humanAgentTag' : 'closed';
  return { open, until, humanAgentUntil, freeText };
}

/** An account setting switched on ('on', 'true', '1', 'yes'): settings are plain strings. */
export function isSettingOn(value: string | undefined | null): boolean {
  return ['on', 'true', '1', 'yes'].includes((value ?? '').trim().toLowerCase());
}
