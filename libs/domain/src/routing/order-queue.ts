/** A conversation waiting on an attention line. */
export interface QueueEntry {
  conversationId: string;
  /** Higher is served first; 0 is normal. */
  priority: number;
  queuedAt: number;
}

function compareEntries(a: QueueEntry, b: QueueEntry): number {
  if (a.priority !== b.priority) return b.priority - a.priority;
  if (a.queuedAt !== b.queuedAt) return a.queuedAt - b.queuedAt;
  // Same priority and the same millisecond: the id keeps the order identical on every process.
  return a.conversationId < b.conversationId ? -1 : a.conversationId > b.conversationId ? 1 : 0;
}

/** The line's queue in serving order: higher priority first, then first come first served. */
export function orderQueue<TEntry extends QueueEntry>(entries: readonly TEntry[]): TEntry[] {
  return [...entries].sort(compareEntries);
}

/** 1-based place of a conversation in its line's queue, or null when it is not queued there. */
export function queuePosition(entries: readonly QueueEntry[], conversationId: string): number | null {
  const index = orderQueue(entries).findIndex((entry) => entry.conversationId === conversationId);
  return index === -1 ? null : index + 1;
}
