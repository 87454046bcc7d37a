import type { OutboundCallEventJob } from '@centralita/contracts';
import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { MachineHostService } from '../machine-host/machine-host.service';
import { OutboundQueues } from './outbound-queues.service';

/** Delayed call events the host asks for; enqueued after commit (the dialer's sweep re-sends lost ones). */
interface CallTimer {
  job: OutboundCallEventJob;
  delayMs: number;
  jobId: string;
}

/** What one outbound transaction leaves to do once it has committed. */
export interface Work {
  outbox: string[];
  timers: CallTimer[];
  boards: Set<string>;
  /** Campaign deadlines written in this transaction (epoch ms): the sweeper wakes for them. */
  deadlines: number[];
}

/**
 * The outbound host's unit of work: one MachineHostService transaction (so agent presence steps
 * and the outbox share it); after commit the outbox is relayed, call timers enqueued, campaign
 * deadlines handed to the sweeper and the boards refreshed.
 */
@Injectable()
export class OutboundTransactions {
  private readonly logger = new Logger(OutboundTransactions.name);
  private boardListener: ((campaignIds: string[]) => void) | null = null;
  private deadlineListener: ((at: number) => void) | null = null;

  constructor(
    private readonly host: MachineHostService,
    private readonly queues: OutboundQueues,
  ) {}

  /** The board service subscribes to learn which campaigns changed. */
  onBoardsChanged(listener: (campaignIds: string[]) => void): void {
    this.boardListener = listener;
  }

  /** The campaign timer sweeper subscribes to wake at a deadline this process just wrote. */
  onDeadline(listener: (at: number) => void): void {
    this.deadlineListener = listener;
  }

  /** One transaction; after commit: relay the outbox, enqueue the timers, refresh the boards. */
  async run<T>(work: (manager: EntityManager, w: Work) => Promise<T>): Promise<T> {
    const w: Work = { outbox: [], timers: [], boards: new Set(), deadlines: [] };
    const result = await this.host.transaction(async (manager, outbox) => {
      const value = await work(manager, w);
      outbox.push(...w.outbox);
      return value;
    });
    for (const at of w.deadlines) this.deadlineListener?.(at);
    for (const timer of w.timers) {
      await this.queues.events
        .add(timer.job.kind, timer.job, {
          jobId: timer.jobId,
          delay: timer.delayMs,
          removeOnComplete: { age: 3600 },
          removeOnFail: { age: 86400 },
        })
        .catch((error: Error) => this.logger.warn(`timer ${timer.jobId} not enqueued (the dialer sweep re-sends it): ${error.message}`));
    }
    if (w.boards.size > 0) this.boardListener?.([...w.boards]);
    return result;
  }
}
