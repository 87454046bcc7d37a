import type { AgentRow } from './views';

/** Agents whose last row this process keeps, and for how long after it was read. */
export const AGENT_ROWS_KEPT = 5000;
export const AGENT_ROW_FRESH_MS = 30_000;

/**
 * The row each agent event alone last wrote in this process, by agent, and when its name was
 * read. The agent's next event steps from it instead of reading the row again: one round trip
 * instead of two. It is only a guess: the write's version check refuses it when anything else
 * moved the row (another process, a transaction, a timer), and the event is then read and stepped
 * again exactly as before; a refusal by the machine is never trusted from it either. Entries
 * expire AGENT_ROW_FRESH_MS after the read, so a renamed user's pushes catch up.
 */
export class AgentRowCache {
  private readonly rows = new Map<string, { row: AgentRow; readAt: number }>();

  constructor(
    private readonly limit = AGENT_ROWS_KEPT,
    private readonly freshMs = AGENT_ROW_FRESH_MS,
  ) {}

  /** The kept row, while fresh; an expired one is dropped. */
  kept(userId: string, now = Date.now()): { row: AgentRow; readAt: number } | undefined {
    const kept = this.rows.get(userId);
    if (kept && now - kept.readAt > this.freshMs) {
      this.rows.delete(userId);
      return undefined;
    }
    return kept;
  }

  keep(userId: string, row: AgentRow, readAt: number): void {
    // Re-inserted so the Map's order is least recently written first: the oldest goes when full.
    this.rows.delete(userId);
    this.rows.set(userId, { row, readAt });
    if (this.rows.size > this.limit) this.rows.delete(this.rows.keys().next().value!);
  }

  /** Something else moved the row (a transaction, a refused write): the kept one would only cost a refused write. */
  forget(userId: string): void {
    this.rows.delete(userId);
  }
}
