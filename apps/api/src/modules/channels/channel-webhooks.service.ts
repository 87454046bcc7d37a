import { createHash, randomUUID } from 'node:crypto';
import type { ChannelAccount, WebhookRequest, WebhookVerdict } from '@centralita/channels';
import { outboxJob, QUEUES } from '@centralita/contracts';
import { jobEffect, outboxColumns } from '@centralita/contracts/server';
import { HttpStatus, Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { NaturalBatcher } from '../../common/natural-batcher';
import { readBodyWithin } from '../../common/raw-upload';
import type { OutboxRecord, OutboxTopic } from '../machine-host/outbox';
import { OutboxRelay } from '../machine-host/outbox-relay.service';
import { RateLimiterService } from '../rate-limit/rate-limiter.service';
import type { ChannelAccountRow } from './channel-account.row';
import { ChannelAdaptersService } from './channel-adapters.service';
import { FreshChannelEvents } from './fresh-channel-events';

/** Largest webhook body taken (providers' bodies are a few kB; a batch stays far below). */
export const WEBHOOK_BODY_LIMIT = 1024 * 1024;
/** delivery_key is varchar(300): a longer provider id is kept as its hash. */
const DELIVERY_KEY_MAX = 300;
/** last_event_at (the console's online indicator) is written at most this often per account. */
const LAST_EVENT_RESOLUTION_SECONDS = 10;
/** Accounts whose last touch this process remembers (a bound, not a cache to tune). */
const TOUCHED_ACCOUNTS_KEPT = 10_000;
/** Accounts this process remembers for their webhooks (a bound, not a cache to tune). */
const ACCOUNTS_KEPT = 10_000;
/** How often a delivery is verified and stored again when its account changed meanwhile (a write that raced an edit). */
const STORE_ATTEMPTS = 3;
/** Store statements in flight at once; deliveries that come meanwhile share the next one (see storeIfCurrent). */
const STORES_IN_FLIGHT = 2;
const DELIVERIES_PER_STORE = 64;
/** Headers never stored with a raw event (credentials a proxy may add). */
const UNSTORED_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

/** An account as its webhook takes it: the row, its version (xmin), and its adapter view (secrets decrypted). */
export interface WebhookAccount {
  row: ChannelAccountRow;
  version: string;
  account: ChannelAccount;
  /** As this process read it for an earlier delivery (it may have changed since). */
  remembered: boolean;
}

/** One verified delivery to store with its processing job (storeIfCurrent). */
interface DeliveryToStore {
  eventId: string;
  tenantId: string;
  accountId: string;
  /** The account row, and its xmin when its secrets verified the body. */
  account: ChannelAccountRow;
  accountVersion: string;
  key: string;
  body: Buffer;
  /** JSON text of the stored headers. */
  headers: string;
  topic: OutboxTopic;
  payload: string;
}

type StoreAnswer = { eventId: string | null } | 'account changed';

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
    private readonly fresh: FreshChannelEvents,
  ) {}

  /** Each account as this process last read it, least recently read first (see account()). */
  private readonly known = new Map<string, Omit<WebhookAccount, 'remembered'>>();

  /** When this process last wrote each account's last_event_at (ms), oldest first. */
  private readonly touchedAt = new Map<string, number>();

  /** Public endpoint: counted per caller IP before any database work. */
  async limit(ip: string): Promise<void> {
    await this.limiter.consume('channel-webhook', ip, { limit: webhooksPerIpPerMinute(), windowSeconds: 60 });
  }

  /**
   * The live, enabled account a webhook URL names, or 404 (nothing says which part was wrong). A
   * POST may take the account as this process last read it: its store statement only writes while
   * the row is still that version (storeIfCurrent), so a change (disabled, deleted, secrets rotated)
   * is seen by the very next delivery. A handshake always reads the row.
   */
  async account(kind: string, accountId: string, method: 'GET' | 'POST'): Promise<WebhookAccount> {
    const adapter = this.adapters.usable(kind);
    if (!adapter || !isUUID(accountId)) throw AppException.notFound();
    const known = method === 'POST' ? this.known.get(accountId) : undefined;
    if (known?.row.kind === kind) return { ...known, remembered: true };
    return this.read(kind, accountId);
  }

  /** The account's row now, with its version; remembered for the next POST. */
  private async read(kind: string, accountId: string): Promise<WebhookAccount> {
    const [found] = (await this.dataSource.query(
      `SELECT *, xmin::text AS row_version FROM channel_accounts WHERE id = $1 AND kind = $2 AND deleted_at IS NULL AND enabled`,
      [accountId, kind],
    )) as (ChannelAccountRow & { row_version: string })[];
    if (!found) {
      this.known.delete(accountId);
      throw AppException.notFound();
    }
    const { row_version: version, ...row } = found;
    const known = { row, version, account: this.adapters.adapterAccountAt(row, version) };
    this.known.delete(accountId);
    this.known.set(accountId, known);
    if (this.known.size > ACCOUNTS_KEPT) this.known.delete(this.known.keys().next().value!);
    return { ...known, remembered: false };
  }

  async handle(target: WebhookAccount, request: WebhookRequest): Promise<WebhookAnswer> {
    const adapter = this.adapters.usable(target.row.kind)!;
    let current = target;
    for (let attempt = 1; ; attempt++) {
      const { row, account } = current;
      let verdict: WebhookVerdict;
      try {
        verdict = adapter.verifyWebhook(request, account);
      } catch {
        // The contract says verification never throws; one that does refuses, it never lets through.
        verdict = { kind: 'refused', reason: 'verification failed' };
      }
      if (verdict.kind === 'refused') {
        // Refused with the secrets this process remembered: they may have been rotated since.
        if (current.remembered) {
          current = await this.read(row.kind, row.id);
          continue;
        }
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
      const stored = await this.storeIfCurrent(current, deliveryKey(deliveryId, request.rawBody), request);
      if (stored === 'account changed') {
        // Read again (404 once disabled or deleted) and verified again with what it holds now.
        // The provider retries a 503 (its at-least-once delivery): nothing was stored.
        if (attempt >= STORE_ATTEMPTS)
          throw new AppException('service_unavailable', {
            message: `Channel account ${row.id} kept changing while the webhook was stored`,
          });
        current = await this.read(row.kind, row.id);
        continue;
      }
      await this.touch(row.id);
      return { status: 200, contentType: 'application/json', body: '{"ok":true}', eventId: stored.eventId };
    }
  }

  /**
   * The raw event once per (account, delivery key), and its processing job, in one statement: one
   * round trip, atomic without a transaction (C1 counted six statements per webhook, four of them
   * this store as BEGIN, two inserts and COMMIT; the pg client's socket write per statement was the
   * API's largest CPU cost). Deliveries that arrive while the statements in flight run share the
   * next one (NaturalBatcher: alone, a delivery waits for nothing). Written only while the account
   * is still live at the version that verified the body; otherwise nothing is written and the
   * answer is 'account changed'. The event's id is chosen here so the job can name it before the
   * row exists; a repeated delivery inserts nothing and enqueues nothing (eventId null).
   */
  private storeIfCurrent(
    { row, version }: WebhookAccount,
    key: string,
    request: WebhookRequest,
  ): Promise<{ eventId: string | null } | 'account changed'> {
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
    return this.stores.submit({
      eventId,
      tenantId: row.tenant_id,
      accountId: row.id,
      account: row,
      accountVersion: version,
      key,
      body: request.rawBody,
      headers: JSON.stringify(headers),
      topic: topic!,
      payload: payload!,
    });
  }

  private readonly stores = new NaturalBatcher<DeliveryToStore, StoreAnswer>({
    maxInFlight: STORES_IN_FLIGHT,
    maxBatch: DELIVERIES_PER_STORE,
    run: (deliveries) => this.storeMany(deliveries),
  });

  private async storeMany(deliveries: DeliveryToStore[]): Promise<StoreAnswer[]> {
    // Outbox ids are taken from their sequence in the order the rows are inserted (ORDER BY n), so
    // the events stored, in delivery order, get the queued ids in ascending order.
    const rows = (await this.dataSource.query(
      `WITH d AS (
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::bytea[], $6::jsonb[], $7::text[], $8::jsonb[], $9::text[])
           WITH ORDINALITY AS d(id, tenant_id, account_id, delivery_key, raw_body, headers, topic, payload, account_version, n)
       ), current AS (
         SELECT d.n FROM d JOIN channel_accounts a
           ON a.id = d.account_id AND a.xmin = d.account_version::xid AND a.enabled AND a.deleted_at IS NULL
       ), event AS (
         INSERT INTO channel_events (id, tenant_id, account_id, delivery_key, raw_body, headers)
         SELECT d.id, d.tenant_id, d.account_id, d.delivery_key, d.raw_body, d.headers FROM d JOIN current USING (n) ORDER BY d.n
         ON CONFLICT (account_id, delivery_key) DO NOTHING RETURNING id
       ), queued AS (
         INSERT INTO outbox (topic, payload) SELECT d.topic, d.payload FROM d JOIN event ON event.id = d.id ORDER BY d.n RETURNING id
       )
       SELECT d.n, current.n IS NOT NULL AS current, event.id IS NOT NULL AS stored,
         (SELECT array_agg(id ORDER BY id) FROM queued) AS outbox_ids
       FROM d LEFT JOIN current USING (n) LEFT JOIN event ON event.id = d.id ORDER BY d.n`,
      [
        deliveries.map((one) => one.eventId),
        deliveries.map((one) => one.tenantId),
        deliveries.map((one) => one.accountId),
        deliveries.map((one) => one.key),
        deliveries.map((one) => one.body),
        deliveries.map((one) => one.headers),
        deliveries.map((one) => one.topic),
        deliveries.map((one) => one.payload),
        deliveries.map((one) => one.accountVersion),
      ],
    )) as { n: string; current: boolean; stored: boolean; outbox_ids: (string | number)[] | null }[];
    const outboxIds = (rows[0]?.outbox_ids ?? []).map(String);
    const kicked: OutboxRecord[] = [];
    const answers = rows.map((found, index): StoreAnswer => {
      if (!found.current) return 'account changed';
      if (!found.stored) return { eventId: null };
      const delivery = deliveries[index];
      kicked.push({ id: outboxIds[kicked.length], topic: delivery.topic, payload: delivery.payload });
      this.fresh.keep({
        id: delivery.eventId,
        tenant_id: delivery.tenantId,
        account_id: delivery.accountId,
        raw_body: delivery.body,
        processed_at: null,
        account: delivery.account,
        account_version: delivery.accountVersion,
      });
      return { eventId: delivery.eventId };
    });
    if (kicked.length)
      this.relay.kick(
        kicked.map((one) => one.id),
        kicked,
      );
    return answers;
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
