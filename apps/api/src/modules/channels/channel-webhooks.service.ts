import { createHash, randomUUID } from 'node:crypto';
import type { WebhookRequest, WebhookVerdict } from '@centralita/channels';
import { outboxJob, QUEUES } from '@centralita/contracts';
import { jobEffect, outboxColumns } from '@centralita/contracts/server';
import { HttpStatus, Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { readBodyWithin } from '../../common/raw-upload';
import { OutboxRelay } from '../machine-host/outbox-relay.service';
import { RateLimiterService } from '../rate-limit/rate-limiter.service';
import type { ChannelAccountRow } from './channel-account.row';
import { ChannelAdaptersService } from './channel-adapters.service';

/** Largest webhook body taken (providers' bodies are a few kB; a batch stays far below). */
export const WEBHOOK_BODY_LIMIT = 1024 * 1024;
/** delivery_key is varchar(300): a longer provider id is kept as its hash. */
const DELIVERY_KEY_MAX = 300;
/** last_event_at (the console's online indicator) is written at most this often per account. */
const LAST_EVENT_RESOLUTION_SECONDS = 10;
/** Accounts whose last touch this process remembers (a bound, not a cache to tune). */
const TOUCHED_ACCOUNTS_KEPT = 10_000;
/** Headers never stored with a raw event (credentials a proxy may add). */
const UNSTORED_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

/** What the controller answers a provider. */
export type WebhookAnswer =
  | { status: 200; contentType: 'text/plain' | 'application/json'; body: string }
  | { status: 200; contentType: 'application/json'; body: string; eventId: string | null };

/**
 * The public webhook of every channel account. In this order, and nothing is stored before the
 * last step: the account (unknown, deleted, disabled or of another kind → 404); the adapter's
 * verification over the raw bytes, before any parsing (refused → 401, or 403 for a failed
 * handshake; a handshake answers its challenge); then the raw body is stored once per delivery
 * key with, in the same transaction, the job that processes it (QUEUES.channelInbound). The
 * provider gets its 200 without waiting for any of the processing.
 */
@Injectable()
export class ChannelWebhooksService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: OutboxRelay,
    private readonly adapters: ChannelAdaptersService,
    private readonly limiter: RateLimiterService,
  ) {}

  /** When this process last wrote each account's last_event_at (ms), oldest first. */
  private readonly touchedAt = new Map<string, number>();

  /** Public endpoint: counted per caller IP before any database work. */
  async limit(ip: string): Promise<void> {
    await this.limiter.consume('channel-webhook', ip, { limit: webhooksPerIpPerMinute(), windowSeconds: 60 });
  }

  /** The live, enabled account a webhook URL names, or 404 (nothing says which part was wrong). */
  async account(kind: string, accountId: string): Promise<ChannelAccountRow> {
    const adapter = this.adapters.usable(kind);
    if (!adapter || !isUUID(accountId)) throw AppException.notFound();
    const [row] = (await this.dataSource.query(
      `SELECT * FROM channel_accounts WHERE id = $1 AND kind = $2 AND deleted_at IS NULL AND enabled`,
      [accountId, kind],
    )) as ChannelAccountRow[];
    if (!row) throw AppException.notFound();
    return row;
  }

  async handle(row: ChannelAccountRow, request: WebhookRequest): Promise<WebhookAnswer> {
    const adapter = this.adapters.usable(row.kind)!;
    const account = this.adapters.toAdapterAccount(row);
    let verdict: WebhookVerdict;
    try {
      verdict = adapter.verifyWebhook(request, account);
    } catch {
      // The contract says verification never throws; one that does refuses, it never lets through.
      verdict = { kind: 'refused', reason: 'verification failed' };
    }
    if (verdict.kind === 'refused') {
      throw new AppException(request.method === 'GET' ? 'forbidden' : 'unauthorized', {
        message: `Webhook refused: ${verdict.reason}`,
      });
    }
    if (verdict.kind === 'challenge') return { status: 200, contentType: verdict.contentType, body: verdict.body };
    // A verified GET that is no handshake carries no event.
    if (request.method === 'GET') return { status: 200, contentType: 'application/json', body: '{"ok":true}', eventId: null };
    let deliveryId: string | null = null;
    try {
      deliveryId = adapter.deliveryId(request.rawBody, account);
    } catch {
      // No id readable: the body's hash keys it, as for providers without delivery ids.
    }
    const eventId = await this.store(row, deliveryKey(deliveryId, request.rawBody), request);
    await this.touch(row.id);
    return { status: 200, contentType: 'application/json', body: '{"ok":true}', eventId };
  }

  /**
   * The raw event once per (account, delivery key), and its processing job, in one statement: one
   * round trip, atomic without a transaction (C1 counted six statements per webhook, four of them
   * this store as BEGIN, two inserts and COMMIT; the pg client's socket write per statement was the
   * API's largest CPU cost). The event's id is chosen here so the job can name it before the row
   * exists; a repeated delivery inserts nothing and enqueues nothing. Answers the new event's id,
   * or null for a repeat.
   */
  private async store(row: ChannelAccountRow, key: string, request: WebhookRequest): Promise<string | null> {
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !UNSTORED_HEADERS.has(name)));
    const eventId = randomUUID();
    const {
      topics: [topic],
      payloads: [payload],
    } = outboxColumns([
      jobEffect(
        outboxJob(
          QUEUES.channelInbound,
          { name: 'process', data: { tenantId: row.tenant_id, eventId } },
          { jobId: `channel-event.${eventId}` },
        ),
      ),
    ]);
    const [queued] = (await this.dataSource.query(
      `WITH event AS (
         INSERT INTO channel_events (id, tenant_id, account_id, delivery_key, raw_body, headers)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (account_id, delivery_key) DO NOTHING RETURNING id
       )
       INSERT INTO outbox (topic, payload) SELECT $7::text, $8::jsonb FROM event RETURNING id`,
      [eventId, row.tenant_id, row.id, key, request.rawBody, headers, topic, payload],
    )) as { id: string | number }[];
    if (!queued) return null;
    const outboxId = String(queued.id);
    this.relay.kick([outboxId], [{ id: outboxId, topic: topic!, payload: payload! }]);
    return eventId;
  }

  /**
   * The online indicator: one write per account every few seconds at most, whatever the traffic.
   * This process skips the statement while its own last write is that recent (every webhook
   * paid an UPDATE round trip that changed nothing); the WHERE keeps processes from racing.
   */
  private async touch(accountId: string): Promise<void> {
    const now = Date.now();
    const last = this.touchedAt.get(accountId);
    if (last !== undefined && now - last < LAST_EVENT_RESOLUTION_SECONDS * 1000) return;
    this.touchedAt.set(accountId, now);
    if (this.touchedAt.size > TOUCHED_ACCOUNTS_KEPT) this.touchedAt.delete(this.touchedAt.keys().next().value!);
    await this.dataSource.query(
      `UPDATE channel_accounts SET last_event_at = now()
       WHERE id = $1 AND (last_event_at IS NULL OR last_event_at < now() - make_interval(secs => $2))`,
      [accountId, LAST_EVENT_RESOLUTION_SECONDS],
    );
  }
}

/** The provider's delivery id when it has one, else the sha256 of the body as sent. */
export function deliveryKey(deliveryId: string | null, rawBody: Buffer): string {
  const hash = (value: Buffer | string) => createHash('sha256').update(value).digest('hex');
  if (deliveryId === null || deliveryId === '') return `sha256:${hash(rawBody)}`;
  const key = `id:${deliveryId}`;
  return key.length <= DELIVERY_KEY_MAX ? key : `id-sha256:${hash(deliveryId)}`;
}

function webhooksPerIpPerMinute(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.CHANNEL_WEBHOOKS_PER_IP_PER_MINUTE);
  // Providers post from a few addresses, in bursts: generous by default (QUALITY.md's C1 offers
  // 300 webhooks/s, which a provider may send from one address). Forged posts are refused before
  // anything is stored, so the limit guards the signature check's CPU, not the database.
  return Number.isInteger(value) && value > 0 ? value : 30_000;
}

/**
 * The body exactly as sent, at most `limit` bytes: a larger one is refused with 413 as soon as it
 * is announced or read past the limit.
 */
export function readRawBody(
  req: NodeJS.ReadableStream & { headers: Record<string, string | string[] | undefined>; readableEnded?: boolean },
  limit: number,
): Promise<Buffer> {
  const tooLarge = () =>
    new AppException('payload_too_large', {
      status: HttpStatus.PAYLOAD_TOO_LARGE,
      message: `A webhook body may have at most ${limit} bytes`,
    });
  const announced = Number(req.headers['content-length']);
  if (Number.isFinite(announced) && announced > limit) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  return readBodyWithin(req, limit, tooLarge);
}
