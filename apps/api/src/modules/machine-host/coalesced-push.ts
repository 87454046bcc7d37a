import type { Logger } from '@nestjs/common';

/**
 * Per-key coalescing of an ephemeral push (a board re-read after a change): the first change to a
 * key starts one timer, the changes that follow within `everyMs` ride on it, and when it fires the
 * key's push runs once (a failure is logged, never thrown). The dialer's `outbound.board` and the
 * message campaign's `messageCampaign.board` both push this way.
 */
export class CoalescedPush {
  private readonly pending = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly everyMs: number,
    private readonly push: (key: string) => Promise<void>,
    private readonly logger: Logger,
  ) {}

  schedule(key: string): void {
    if (this.pending.has(key)) return;
    const timer = setTimeout(() => {
      this.pending.delete(key);
      void this.push(key).catch((error: Error) => this.logger.warn(`board ${key}: ${error.message}`));
    }, this.everyMs);
    timer.unref();
    this.pending.set(key, timer);
  }

  /** Drops the timers not yet fired (module shutdown). */
  clear(): void {
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }
}
