import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CampaignHostService } from './campaign-host.service';
import { OutboundTransactions } from './outbound-transaction.service';

/** Every API process looks for due campaign timers this often: the bound on a timer whose process died. */
export const CAMPAIGN_TIMER_POLL_MS = 1000;
/** Due timers fired per look (the next look takes the rest). */
const BATCH = 100;
/** setTimeout's ceiling (about 24.8 days): a later deadline is re-armed by the poll when it comes near. */
const MAX_WAKE_MS = 2 ** 31 - 1;

/**
 * Fires campaign start and end timers from their deadline columns (see CampaignHostService). A
 * deadline is written in the transaction that steps the campaign, so a crash after commit cannot lose
 * it: every API process sweeps `timer_at <= now` every CAMPAIGN_TIMER_POLL_MS, each due row taken with
 * SKIP LOCKED, so it fires once. The process that wrote a deadline also wakes at it exactly (a local
 * timer), so a timer is on time to the millisecond while its process lives, and within a poll when not.
 *
 * Why a deadline column rather than an outbox row for a delayed BullMQ job: the timer is a fact of the
 * campaign's state (at most one at a time), so it is one column pair in the UPDATE the step already
 * makes, with no extra row, no job to remove when the state is left (the next step overwrites it) and
 * nothing in Redis to lose; the sweep is one index range read per second per process.
 */
@Injectable()
export class CampaignTimerSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(CampaignTimerSweeper.name);
  private poller: NodeJS.Timeout | null = null;
  private readonly wakes = new Set<NodeJS.Timeout>();
  private sweeping: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly campaigns: CampaignHostService,
    tx: OutboundTransactions,
  ) {
    tx.onDeadline((at) => this.wakeAt(at));
  }

  onApplicationBootstrap(): void {
    this.poller = setInterval(() => void this.sweep(), CAMPAIGN_TIMER_POLL_MS);
    this.poller.unref();
    void this.sweep();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.poller) clearInterval(this.poller);
    for (const wake of this.wakes) clearTimeout(wake);
    this.wakes.clear();
    await this.sweeping;
  }

  private wakeAt(at: number): void {
    if (this.stopped) return;
    const wake = setTimeout(
      () => {
        this.wakes.delete(wake);
        void this.sweep();
      },
      Math.min(Math.max(0, at - Date.now()), MAX_WAKE_MS),
    );
    wake.unref();
    this.wakes.add(wake);
  }

  /** Fires every due timer; one sweep at a time per process (a sweep asked for meanwhile runs after it). */
  sweep(): Promise<void> {
    if (this.sweeping) {
      this.again = true;
      return this.sweeping;
    }
    this.sweeping = (async () => {
      do {
        this.again = false;
        await this.fireDue().catch((error: Error) => this.logger.warn(`campaign timers: ${error.message}`));
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.sweeping = null;
    });
    return this.sweeping;
  }

  private async fireDue(): Promise<void> {
    for (;;) {
      if (this.stopped || !this.dataSource.isInitialized) return;
      const now = Date.now();
      const due = await this.campaigns.dueTimers(this.dataSource.manager, now, BATCH);
      let fired = 0;
      for (const id of due) {
        if (this.stopped) return;
        const done = await this.campaigns
          .fireTimer(id, now)
          .catch((error: Error) => this.logger.warn(`campaign ${id} timer not fired (next sweep retries): ${error.message}`));
        if (done) fired += 1;
      }
      // A full batch means more may be due; rows another process holds stay for the next look.
      if (due.length < BATCH || fired === 0) return;
    }
  }
}
