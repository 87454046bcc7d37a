import { OUTBOUND_QUEUES } from '@centralita/contracts';
import { ConfigCrypto, OutgoingAddressPolicy } from '@centralita/contracts/server';
import { Queue, Worker } from 'bullmq';
import type Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { Telephony } from '../telephony/telephony';
import { CallPlacer } from './call-placer';
import { CallReconciler } from './call-reconciler';
import { CampaignPacer } from './campaign-pacer';
import { DialerRecovery } from './dialer-recovery';
import { DialerReports } from './dialer-reports';
import { PgDialerRows, type DialerRows } from './dialer-rows';
import type { TelephonyKind } from './dialing-route';
import { PreviewPlacer } from './preview-placer';

export interface DialerOptions {
  dataSource: DataSource;
  /** A plain connection for the heartbeat (any ioredis connection). */
  redis: Redis;
  /** BullMQ connection options (url) and prefix. */
  redisUrl: string;
  queuePrefix: string;
  telephony: Telephony;
  /**
   * Which telephony `telephony` is (default simulator). With drachtio a campaign needs a usable
   * trunk and a caller id, and an agent a softphone account, or nothing is dialled / bridged.
   */
  telephonyKind?: TelephonyKind;
  /** Decrypts trunk passwords; the same CONFIG_ENCRYPTION_KEY as the API (default: built from the environment). */
  crypto?: Pick<ConfigCrypto, 'decrypt'>;
  /**
   * Checks and pins the trunk's address before a real carrier (drachtio) dials it (default: the
   * strict policy, no range allowed; the worker passes OUTGOING_ALLOWED_CIDRS).
   */
  outgoing?: Pick<OutgoingAddressPolicy, 'resolve'>;
  tickMs: number;
  ringTimeoutSec: number;
  maxCallsPerTick: number;
  /** Only these tenants' campaigns (default all). */
  tenantIds?: string[] | null;
  /** 'bullmq' (default): one repeatable job paces; 'interval': a local timer (tests, benchmarks). */
  driver?: 'bullmq' | 'interval';
  /** The clock calling windows are checked against (tests). */
  now?: () => number;
  /** Wrap-up (seconds) after which the sweep re-sends a lost wrap-up timer; the API's WRAP_UP_SECONDS. */
  wrapUpSeconds?: number;
  log?: (message: string) => void;
  /** The campaigns, contacts and reservations the pacer works on (default: PostgreSQL through `dataSource`). */
  rows?: DialerRows;
}

/**
 * The dialer: paces every running campaign, reserves contacts in PostgreSQL before any INVITE
 * leaves (one live reservation per number), places calls through the telephony interface and
 * reports what the carrier does to the API, which alone runs the outbound machines.
 *
 * Survives restarts: reservations, attempts and the statistics the pacer reads live in
 * PostgreSQL; every reservation names the dialer process that holds it, and a process's heartbeat
 * lives in Redis, so a new process fails the calls a dead one left (they never re-dial at once:
 * the retry policy decides when). Every job carries a deterministic id.
 *
 * This class keeps the lifecycle (start, stop, the tick and who runs it, the heartbeat); a tick's
 * work is done by CampaignPacer (one campaign's round) and PreviewPlacer (the agents' preview
 * calls), which both place calls through CallPlacer and reach tables through DialerRows.
 */
export class Dialer {
  readonly owner = `dialer-${randomUUID()}`;
  private readonly ticks: Queue;
  private tickWorker: Worker | null = null;
  private interval: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private stopped = false;
  private ticking = false;
  private readonly rows: DialerRows;
  /** Reports to the API (see DialerReports). */
  private readonly reports: DialerReports;
  /** The carrier legs this process holds: hang-ups and bridges (see CallReconciler). */
  private readonly calls: CallReconciler;
  /** Heartbeat, orphaned calls of dead processes, lost call timers (see DialerRecovery). */
  private readonly recovery: DialerRecovery;
  /** Routes and places reserved calls (see CallPlacer). */
  private readonly placer: CallPlacer;
  /** One campaign's pacing round (see CampaignPacer). */
  private readonly pacer: CampaignPacer;
  /** The preview calls agents asked for (see PreviewPlacer). */
  private readonly previews: PreviewPlacer;
  /** Preview calls an agent asked for that wait for a free line on their trunk: call id → trunk id (tests, diagnostics). */
  readonly previewsAwaitingLine: Map<string, string>;

  constructor(private readonly options: DialerOptions) {
    const connection = { url: options.redisUrl, maxRetriesPerRequest: null };
    this.ticks = new Queue(OUTBOUND_QUEUES.dialerTicks, { connection, prefix: options.queuePrefix });
    this.ticks.on('error', () => undefined);
    const kind = options.telephonyKind ?? 'simulator';
    this.rows =
      options.rows ??
      new PgDialerRows(options.dataSource, options.crypto ?? new ConfigCrypto(process.env, (message) => options.log?.(message)));
    const log = (message: string) => this.log(message);
    this.calls = new CallReconciler({ dataSource: options.dataSource, telephony: options.telephony, kind, log });
    this.reports = new DialerReports(options, (callId) => this.calls.has(callId), log);
    this.recovery = new DialerRecovery({
      dataSource: options.dataSource,
      redis: options.redis,
      queuePrefix: options.queuePrefix,
      owner: this.owner,
      tenantIds: options.tenantIds ?? null,
      wrapUpSeconds: options.wrapUpSeconds ?? 120,
      reports: this.reports,
      log,
    });
    this.placer = new CallPlacer({
      rows: this.rows,
      telephony: options.telephony,
      kind,
      outgoing: options.outgoing ?? new OutgoingAddressPolicy(),
      reports: this.reports,
      calls: this.calls,
      ringTimeoutSec: options.ringTimeoutSec,
      log,
    });
    this.pacer = new CampaignPacer({
      rows: this.rows,
      placer: this.placer,
      reports: this.reports,
      owner: this.owner,
      maxCallsPerTick: options.maxCallsPerTick,
      now: options.now ?? Date.now,
      stopping: () => this.stopped,
      log,
    });
    this.previews = new PreviewPlacer({
      rows: this.rows,
      placer: this.placer,
      reports: this.reports,
      owner: this.owner,
      tenantIds: options.tenantIds ?? null,
      log,
    });
    this.previewsAwaitingLine = this.previews.awaitingLine;
  }

  /** Campaigns the dialer holds back (no usable trunk or caller id under drachtio), by id, with the code. */
  get refusals(): ReadonlyMap<string, string> {
    return this.pacer.refusals;
  }

  /** Originates placed since start (benchmarks). */
  get placed(): number {
    return this.placer.placed;
  }

  private log(message: string): void {
    this.options.log?.(message);
  }

  /** Calls whose bridge to the agent failed, with the code (tests, diagnostics). */
  get bridgeFailures(): ReadonlyMap<string, string> {
    return this.calls.bridgeFailures;
  }

  async start(): Promise<void> {
    await this.recovery.beat();
    this.heartbeat = setInterval(() => void this.recovery.beat().catch(() => undefined), DialerRecovery.BEAT_EVERY_MS);
    this.heartbeat.unref();
    if (this.options.driver === 'interval') {
      this.interval = setInterval(
        () => void this.tick().catch((error: Error) => this.log(`dialer tick failed: ${error.message}`)),
        this.options.tickMs,
      );
      return;
    }
    // One repeatable job paces every campaign; whichever dialer process takes it does the tick.
    await this.ticks.upsertJobScheduler(
      'dialer-tick',
      { every: this.options.tickMs },
      { name: 'tick', opts: { removeOnComplete: true, removeOnFail: true } },
    );
    this.tickWorker = new Worker(OUTBOUND_QUEUES.dialerTicks, () => this.tick(), {
      connection: { url: this.options.redisUrl, maxRetriesPerRequest: null },
      prefix: this.options.queuePrefix,
      concurrency: 1,
    });
    this.tickWorker.on('error', (error) => this.log(`dialer tick worker: ${error.message}`));
    this.tickWorker.on('failed', (_job, error) => this.log(`dialer tick failed: ${error.message}`));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.interval) clearInterval(this.interval);
    while (this.ticking) await new Promise((resolve) => setTimeout(resolve, 20));
    await this.tickWorker?.close().catch(() => undefined);
    await this.calls.settle();
    await this.reports.close();
    await this.ticks.close().catch(() => undefined);
  }

  /** One pacing round; exported for tests and benchmarks. Never two at once in one process. */
  async tick(): Promise<void> {
    if (this.stopped || this.ticking) return;
    this.ticking = true;
    try {
      await this.recovery.recoverOrphans();
      await this.calls.reconcile();
      await this.recovery.sweepTimers();
      const campaigns = await this.rows.runningCampaigns(this.options.tenantIds ?? null);
      this.pacer.forgetRefusalsExcept(campaigns);
      await this.previews.placeRequests();
      for (const campaign of campaigns) {
        if (this.stopped) break;
        await this.pacer.pace(campaign);
      }
    } finally {
      this.ticking = false;
    }
  }

  /** Calls this process holds on the carrier right now (benchmarks, tests). */
  get liveCalls(): number {
    return this.calls.size;
  }
}
