import { OUTBOUND_QUEUES, type OutboundCallEventJob } from '@centralita/contracts';
import { Queue } from 'bullmq';
import type { TelephonyEvent } from '../telephony/telephony';

/**
 * The dialer's only way to the API: jobs on `outbound-call-events`, added in the order things
 * happened per call (one promise chain per call), each with a deterministic id so a re-sent report
 * is a no-op. Carrier events are numbered per call (`<callId>.<seq>`): the API applies them in order.
 */
export class DialerReports {
  private readonly events: Queue<OutboundCallEventJob>;
  /** Per-call promise chain: a call's jobs are added in the order things happened. */
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(
    options: { redisUrl: string; queuePrefix: string },
    /** Whether the call still has a carrier leg here (its chain is kept while it does). */
    private readonly isLive: (callId: string) => boolean,
    private readonly log: (message: string) => void,
  ) {
    const connection = { url: options.redisUrl, maxRetriesPerRequest: null };
    this.events = new Queue<OutboundCallEventJob>(OUTBOUND_QUEUES.callEvents, { connection, prefix: options.queuePrefix });
    this.events.on('error', () => undefined);
  }

  /** A telephony event of a call as the job the API applies; `seq` is its number in the call. */
  forward(callId: string, seq: string, event: TelephonyEvent): void {
    switch (event.type) {
      case 'ringing':
        return this.report(callId, seq, { kind: 'ringing', callId, at: event.at });
      case 'answered':
        return this.report(callId, seq, { kind: 'answered', callId, by: event.by, at: event.at });
      case 'busy':
        return this.report(callId, seq, { kind: 'busy', callId, at: event.at });
      case 'noAnswer':
        return this.report(callId, seq, { kind: 'noAnswer', callId, at: event.at });
      case 'failed':
        return this.report(callId, seq, { kind: 'failed', callId, reason: event.reason, at: event.at });
      case 'hungUp':
        return this.report(callId, seq, { kind: 'hungUp', callId, at: event.at });
    }
  }

  /** Adds a job for the API, in order per call; the id makes a re-sent report a no-op. */
  report(callId: string, seq: string, job: OutboundCallEventJob): void {
    const previous = this.chains.get(callId) ?? Promise.resolve();
    const next = previous
      .then(() =>
        this.events.add(job.kind, job, {
          jobId: `${callId}.${seq}`,
          removeOnComplete: { age: 3600 },
          removeOnFail: { age: 86400 },
          attempts: 5,
          backoff: { type: 'exponential', delay: 200 },
        }),
      )
      .catch((error: Error) => this.log(`report ${callId}.${seq}: ${error.message}`));
    this.chains.set(callId, next);
    void next.then(() => {
      if (this.chains.get(callId) === next && !this.isLive(callId)) this.chains.delete(callId);
    });
  }

  /** Asks the API to complete an exhausted campaign (at most once a minute: the job id is per minute). */
  async campaignExhausted(campaignId: string): Promise<void> {
    const minute = Math.floor(Date.now() / 60_000);
    await this.events
      .add(
        'campaignExhausted',
        { kind: 'campaignExhausted', campaignId },
        { jobId: `exh.${campaignId}.${minute}`, removeOnComplete: { age: 3600 } },
      )
      .catch((error: Error) => this.log(`campaign ${campaignId} exhausted: ${error.message}`));
  }

  /** Tells the API the campaign's idle reason changed, so that its board is pushed to supervisors. */
  async campaignIdle(campaignId: string): Promise<void> {
    await this.events
      .add('campaignIdle', { kind: 'campaignIdle', campaignId }, { removeOnComplete: true, removeOnFail: true })
      .catch((error: Error) => this.log(`campaign ${campaignId} idle: ${error.message}`));
  }

  /** Waits for every report under way, then closes the queue. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.chains.values()]);
    await this.events.close().catch(() => undefined);
  }
}
