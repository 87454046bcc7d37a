import { QUEUES, type VoiceCallEvent } from '@centralita/contracts';
import { Queue } from 'bullmq';

/** Where the voice server's call events go (the API in production; tests may listen to the same queue). */
export interface VoiceEventSink {
  /** Queues one event; a call's events are added in the order given. */
  publish(event: VoiceCallEvent): void;
  /** Resolves when every event published so far is on the queue. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Jobs on QUEUES.voiceCallEvents named after the event's type, with the deterministic id `voice.<callId>.<seq>` (a
 * re-sent event is a no-op) and added through one promise chain per call, so the API sees a call's events in order.
 */
export class QueueVoiceEventSink implements VoiceEventSink {
  private readonly queue: Queue<VoiceCallEvent>;
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(
    options: { redisUrl: string; queuePrefix: string },
    private readonly log: (message: string) => void,
  ) {
    this.queue = new Queue<VoiceCallEvent>(QUEUES.voiceCallEvents, {
      connection: { url: options.redisUrl, maxRetriesPerRequest: null },
      prefix: options.queuePrefix,
    });
    this.queue.on('error', () => undefined);
  }

  publish(event: VoiceCallEvent): void {
    const previous = this.chains.get(event.callId) ?? Promise.resolve();
    const next = previous
      .then(() =>
        this.queue.add(event.type, event, {
          jobId: `voice.${event.callId}.${event.seq}`,
          removeOnComplete: { age: 3600 },
          removeOnFail: { age: 86400 },
          attempts: 5,
          backoff: { type: 'exponential', delay: 200 },
        }),
      )
      .catch((error: Error) => this.log(`voice event ${event.callId}.${event.seq} (${event.type}): ${error.message}`));
    this.chains.set(event.callId, next);
    void next.then(() => {
      if (this.chains.get(event.callId) === next && (event.type === 'call.ended' || event.type === 'call.abandoned'))
        this.chains.delete(event.callId);
    });
  }

  async flush(): Promise<void> {
    await Promise.all([...this.chains.values()]);
  }

  async close(): Promise<void> {
    await this.flush();
    await this.queue.close();
  }
}
