/**
 * Keeps the highest version seen per entity (ARCHITECTURE.md "Realtime"): an update older than or
 * equal to what is held is stale and dropped; REST resyncs go through the same door, so a slow
 * REST answer cannot overwrite a newer socket push either.
 */
export interface Versioned {
  version: number;
}

export class VersionStore<T extends Versioned> {
  private readonly items = new Map<string, T>();

  constructor(private readonly keyOf: (item: T) => string) {}

  /** true when the item was newer and is now held. */
  accept(item: T): boolean {
    const key = this.keyOf(item);
    const held = this.items.get(key);
    if (held && held.version >= item.version) return false;
    this.items.set(key, item);
    return true;
  }

  /** Applies many (a REST resync); true when anything changed. */
  acceptAll(items: readonly T[]): boolean {
    let changed = false;
    for (const item of items) changed = this.accept(item) || changed;
    return changed;
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  has(key: string): boolean {
    return this.items.has(key);
  }

  values(): T[] {
    return [...this.items.values()];
  }

  /** Forgets an entity (it left the view); a later push of any version is accepted again. */
  delete(key: string): void {
    this.items.delete(key);
  }

  clear(): void {
    this.items.clear();
  }

  get size(): number {
    return this.items.size;
  }
}

/** Messages are ordered by sequence and unique by id; re-deliveries after a reconnect are dropped. */
export function mergeMessages<T extends { id: string; sequence: number }>(held: readonly T[], incoming: readonly T[]): T[] {
  const byId = new Map(held.map((message) => [message.id, message]));
  for (const message of incoming) byId.set(message.id, { ...byId.get(message.id), ...message });
  return [...byId.values()].sort((a, b) => a.sequence - b.sequence);
}

/** Applies a read mark: every message of the other side up to the sequence gets readAt. */
export function applyReadMark<T extends { sequence: number; senderKind: string; readAt: string | null }>(
  messages: readonly T[],
  readerKind: 'customer' | 'agent',
  upToSequence: number,
  at: string,
): T[] {
  return messages.map((message) => {
    const ownedByReader = readerKind === 'customer' ? message.senderKind === 'customer' : message.senderKind !== 'customer';
    if (ownedByReader || message.sequence > upToSequence || message.readAt) return message;
    return { ...message, readAt: at };
  });
}

/**
 * Whether a conversation push is the agent desk's business: the agent's own conversations, and the
 * ones the desk already holds (so one transferred away is seen leaving). A supervisor's socket hears
 * every conversation of the tenant; keeping them all would grow the desk's memory all day and
 * re-render it for other people's work.
 */
export function concernsAgentDesk(view: { id: string; agentId: string | null }, me: string, held: { has(id: string): boolean }): boolean {
  return view.agentId === me || held.has(view.id);
}
