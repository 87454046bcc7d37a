/**
 * Blended agents (issue 22): one presence serves calls and chats, and each attention line says how
 * the two mix for its agents. Pure rules; routing applies them to what it reads, under its locks, at
 * assignment time.
 */

/** The blended settings of a line (attention_line_routing). */
export interface BlendedLineRules {
  /** Chats an agent on a call may hold, at most: 0 = none while on a call. */
  chatsDuringCall: number;
  /** Whether a call may be offered to an agent who already holds chats (off: only to agents with nothing). */
  offerCallsWithChats: boolean;
}

/** What a line without settings does: no chats during a call, calls only to agents holding nothing. */
export const DEFAULT_BLENDED_RULES: BlendedLineRules = { chatsDuringCall: 0, offerCallsWithChats: false };

/** An agent's load as routing reads it: on a call or not, and the conversations held by kind. */
export interface BlendedLoad {
  onCall: boolean;
  /** Call conversations (phone) the agent holds. */
  calls: number;
  /** Every other conversation the agent holds. */
  chats: number;
}

/**
 * May the agent be given one more chat of a line with these rules? Off a call, always (capacity is
 * the presence's business); on a call, only while the chats held stay under the line's limit.
 */
export function mayTakeChat(load: BlendedLoad, rules: BlendedLineRules): boolean {
  if (!load.onCall) return true;
  return load.chats < rules.chatsDuringCall;
}

/**
 * May the agent be offered a call of a line with these rules? Never on a call or holding another
 * call's conversation (one voice at a time); holding chats only when the line says so.
 */
export function mayTakeCall(load: BlendedLoad, rules: BlendedLineRules): boolean {
  if (load.onCall || load.calls > 0) return false;
  return load.chats === 0 || rules.offerCallsWithChats;
}

/**
 * After an agent's phone did not take a call (call.connectFailed), that agent is not offered the
 * same call again while any other eligible agent has not failed it, nor before `backoffMs` since
 * their failure: then they are eligible again (a short ring-out should not strand a caller whose
 * line has one agent). `failedAt` maps agent id → epoch ms of their last failure on this call.
 * Answers the agents to offer the call to, in the order given.
 */
export function retryableAgents(
  agentIds: readonly string[],
  failedAt: Readonly<Record<string, number>>,
  now: number,
  backoffMs: number,
): string[] {
  const fresh = agentIds.filter((id) => failedAt[id] === undefined);
  if (fresh.length > 0) return fresh;
  return agentIds.filter((id) => now - failedAt[id] >= backoffMs);
}
