import { Injectable } from '@nestjs/common';
import type { ChannelAccountRow } from './channel-account.row';

/** An event as its webhook stored it, with the account row (and its xmin) that verified it. */
export interface FreshChannelEvent {
  id: string;
  tenant_id: string;
  account_id: string;
  raw_body: Buffer;
  /** Just stored: not processed yet. */
  processed_at: null;
  account: ChannelAccountRow;
  account_version: string;
}

/** Bytes of bodies held at most; the oldest go first (a bound on memory, not a cache to tune). */
const FRESH_BYTES_KEPT = 32 * 1024 * 1024;

/**
 * The events this process stored and has not processed yet, held in memory from the webhook to its
 * processing job. The job usually runs in the same process moments later (QueueRegistry.runLocally)
 * and takes the event from here instead of reading back the row it just wrote (one statement per
 * message less, C1). Taken once: a retry, or a job run by another process, reads the table, which
 * stays the record (processed_at).
 */
@Injectable()
export class FreshChannelEvents {
  private readonly events = new Map<string, FreshChannelEvent>();
  private bytes = 0;

  keep(event: FreshChannelEvent): void {
    this.events.set(event.id, event);
    this.bytes += event.raw_body.length;
    for (const [id, oldest] of this.events) {
      if (this.bytes <= FRESH_BYTES_KEPT) break;
      this.events.delete(id);
      this.bytes -= oldest.raw_body.length;
    }
  }

  /** The event if this process stored it and nobody took it yet (the tenant must match the job's). */
  take(eventId: string, tenantId: string): FreshChannelEvent | undefined {
    const event = this.events.get(eventId);
    if (!event) return undefined;
    this.events.delete(eventId);
    this.bytes -= event.raw_body.length;
    return event.tenant_id === tenantId ? event : undefined;
  }
}
