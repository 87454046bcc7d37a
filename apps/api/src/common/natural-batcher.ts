export interface NaturalBatcherOptions<TItem, TResult> {
  /** Batches running at once. Items submitted while all are busy wait and go together in the next. */
  maxInFlight: number;
  /** Most items in one batch. */
  maxBatch: number;
  /** Items with the same key never share a batch: a later one waits for the next batch, in order. */
  keyOf?: (item: TItem) => string;
  /** Runs one batch; answers one result per item, in the items' order. */
  run: (items: TItem[]) => Promise<TResult[]>;
  /**
   * For work off the latency path only (marking jobs done): a batch that is not full waits up to
   * this long for more items before it goes, so under a steady trickle many share one statement
   * where without it each would go alone. Absent or 0: an item goes at once while a slot is free.
   */
  lingerMs?: number;
}

interface Entry<TItem, TResult> {
  item: TItem;
  resolve: (result: TResult) => void;
  reject: (error: unknown) => void;
}

/**
 * Natural batching (group commit): an item goes out at once while a batch slot is free, and items
 * that arrive while every slot is busy gather and go out together when one frees. Alone, an item
 * waits for nothing; under load, many share one round trip, so the per-call cost (a statement's
 * protocol work, the wake-up of the server process) is paid once per batch instead of per item.
 *
 * A batch that fails is run again one item at a time, so one bad item fails only its own caller.
 */
export class NaturalBatcher<TItem, TResult> {
  private queue: Entry<TItem, TResult>[] = [];
  private inFlight = 0;
  /** The wait of a batch that is not full (lingerMs), while one is under way. */
  private lingering: NodeJS.Timeout | null = null;

  constructor(private readonly options: NaturalBatcherOptions<TItem, TResult>) {}

  submit(item: TItem): Promise<TResult> {
    return new Promise<TResult>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(lingered = false): void {
    const { lingerMs, maxBatch } = this.options;
    while (this.inFlight < this.options.maxInFlight && this.queue.length > 0) {
      if (lingerMs && !lingered && this.queue.length < maxBatch) {
        this.lingering ??= setTimeout(() => {
          this.lingering = null;
          this.pump(true);
        }, lingerMs);
        return;
      }
      const batch = this.take();
      this.inFlight++;
      void this.runBatch(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  /** The oldest items, at most maxBatch, one per key; the others keep their places in the queue. */
  private take(): Entry<TItem, TResult>[] {
    const { keyOf, maxBatch } = this.options;
    if (!keyOf) return this.queue.splice(0, maxBatch);
    const batch: Entry<TItem, TResult>[] = [];
    const rest: Entry<TItem, TResult>[] = [];
    const keys = new Set<string>();
    for (const entry of this.queue) {
      const key = keyOf(entry.item);
      if (batch.length < maxBatch && !keys.has(key)) {
        keys.add(key);
        batch.push(entry);
      } else {
        // A key seen once stays blocked for this batch, so a key's items keep their order.
        keys.add(key);
        rest.push(entry);
      }
    }
    this.queue = rest;
    return batch;
  }

  private async runBatch(batch: Entry<TItem, TResult>[]): Promise<void> {
    let results: TResult[];
    try {
      results = await this.options.run(batch.map((entry) => entry.item));
    } catch (error) {
      if (batch.length === 1) {
        batch[0].reject(error);
        return;
      }
      await Promise.all(batch.map((entry) => this.runBatch([entry])));
      return;
    }
    batch.forEach((entry, index) => entry.resolve(results[index]));
  }
}
