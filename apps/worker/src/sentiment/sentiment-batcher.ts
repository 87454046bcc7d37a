import type { ScoreOutcome } from './sentiment-store';

interface Waiting {
  messageId: string;
  resolve: (outcome: ScoreOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * The score requests this worker holds, scored together (group commit): a request goes at once
 * while no batch is under way, and those that arrive meanwhile (the processor holds many jobs at
 * once) wait and go together in the next, so a busy queue costs one transaction per batch instead
 * of one per message. A batch that fails is scored again one message at a time, so one bad message
 * fails only its own job.
 */
export class SentimentBatcher {
  private waiting: Waiting[] = [];
  private running = false;

  constructor(
    private readonly score: (messageIds: string[]) => Promise<ScoreOutcome[]>,
    private readonly maxBatch: number,
  ) {}

  submit(messageId: string): Promise<ScoreOutcome> {
    return new Promise<ScoreOutcome>((resolve, reject) => {
      this.waiting.push({ messageId, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.running || this.waiting.length === 0) return;
    this.running = true;
    const batch = this.waiting.splice(0, this.maxBatch);
    void this.run(batch).finally(() => {
      this.running = false;
      this.pump();
    });
  }

  private async run(batch: Waiting[]): Promise<void> {
    try {
      const outcomes = await this.score(batch.map((one) => one.messageId));
      batch.forEach((one, index) => one.resolve(outcomes[index]));
    } catch (error) {
      if (batch.length === 1) return batch[0].reject(error);
      for (const one of batch) {
        await this.score([one.messageId]).then(([outcome]) => one.resolve(outcome), one.reject);
      }
    }
  }
}
