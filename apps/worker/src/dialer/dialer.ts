import { OUTBOUND_QUEUES, type CampaignIdleReason } from '@centralita/contracts';
import { ConfigCrypto, OutgoingAddressPolicy } from '@centralita/contracts/server';
import { isWithinCallingWindow, nextCallingWindowStart, pace, type CallingWindows, type DialingMode } from '@centralita/domain';
import { Queue, Worker } from 'bullmq';
import type Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { Telephony } from '../telephony/telephony';
import { CallReconciler } from './call-reconciler';
import { CARRIER_LEG_SQL, HUMAN_ANSWERED_SQL, UNANSWERED_OR_CANCELLED_SQL, UNANSWERED_SQL } from './call-status-sql';
import { DialerRecovery } from './dialer-recovery';
import { DialerReports } from './dialer-reports';
import { chooseRoute, pinTrunkAddress, resolveCampaignTrunk, type DialingRoute, type TelephonyKind } from './dialing-route';

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
}

interface CampaignRow {
  id: string;
  tenant_id: string;
  mode: DialingMode;
  abandon_cap_percent: string;
  abandon_threshold_ms: number;
  max_attempts: number;
  calling_windows: CallingWindows;
  caller_id: string | null;
  trunk_id: string | null;
  agent_ids: string[];
}

interface ContactRow {
  id: string;
  tenant_id: string;
  campaign_id: string;
  phone: string;
}

/** The board's reason for a campaign that cannot dial at all. */
const IDLE_FOR_REFUSAL: Partial<Record<string, CampaignIdleReason>> = {
  'dialer.noTrunk': 'noTrunk',
  'dialer.noCallerId': 'noCallerId',
};

/** A campaign that cannot dial is logged again after this long (not every tick). */
const REFUSAL_LOG_INTERVAL_MS = 60_000;

const DNC_CLEAR = `NOT EXISTS (SELECT 1 FROM do_not_call d WHERE d.tenant_id = ct.tenant_id AND d.phone = ct.phone
                    AND (d.campaign_id IS NULL OR d.campaign_id = ct.campaign_id))`;

/**
 * The dialer: paces every running campaign, reserves contacts in PostgreSQL before any INVITE
 * leaves (one live reservation per number), places calls through the telephony interface and
 * reports what the carrier does to the API, which alone runs the outbound machines.
 *
 * Survives restarts: reservations, attempts and the statistics the pacer reads live in
 * PostgreSQL; every reservation names the dialer process that holds it, and a process's heartbeat
 * lives in Redis, so a new process fails the calls a dead one left (they never re-dial at once:
 * the retry policy decides when). Every job carries a deterministic id.
 */
export class Dialer {
  readonly owner = `dialer-${randomUUID()}`;
  private readonly ticks: Queue;
  private tickWorker: Worker | null = null;
  private interval: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private stopped = false;
  private ticking = false;
  private readonly kind: TelephonyKind;
  private readonly crypto: Pick<ConfigCrypto, 'decrypt'>;
  private readonly outgoing: Pick<OutgoingAddressPolicy, 'resolve'>;
  /** Reports to the API (see DialerReports). */
  private readonly reports: DialerReports;
  /** The carrier legs this process holds: hang-ups and bridges (see CallReconciler). */
  private readonly calls: CallReconciler;
  /** Heartbeat, orphaned calls of dead processes, lost call timers (see DialerRecovery). */
  private readonly recovery: DialerRecovery;
  /** Campaigns that cannot dial right now, with the code and when it was last logged. */
  private readonly refusedCampaigns = new Map<string, { code: string; loggedAt: number }>();
  /** Preview calls an agent asked for that wait for a free line on their trunk: call id → trunk id (tests, diagnostics). */
  readonly previewsAwaitingLine = new Map<string, string>();
  /** Originates placed since start (benchmarks). */
  placed = 0;

  constructor(private readonly options: DialerOptions) {
    const connection = { url: options.redisUrl, maxRetriesPerRequest: null };
    this.ticks = new Queue(OUTBOUND_QUEUES.dialerTicks, { connection, prefix: options.queuePrefix });
    this.ticks.on('error', () => undefined);
    this.kind = options.telephonyKind ?? 'simulator';
    this.crypto = options.crypto ?? new ConfigCrypto(process.env, (message) => options.log?.(message));
    this.outgoing = options.outgoing ?? new OutgoingAddressPolicy();
    const log = (message: string) => this.log(message);
    this.calls = new CallReconciler({ dataSource: options.dataSource, telephony: options.telephony, kind: this.kind, log });
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
  }

  /** Campaigns the dialer holds back (no usable trunk or caller id under drachtio), by id, with the code. */
  get refusals(): ReadonlyMap<string, string> {
    return new Map([...this.refusedCampaigns].map(([id, { code }]) => [id, code]));
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
      const campaigns = (await this.options.dataSource.query(
        `SELECT id, tenant_id, mode, abandon_cap_percent, abandon_threshold_ms, max_attempts, calling_windows, caller_id, trunk_id, agent_ids
           FROM dialer_campaigns WHERE status = 'running' AND deleted_at IS NULL AND ($1::uuid[] IS NULL OR tenant_id = ANY($1::uuid[]))
          ORDER BY created_at, id`,
        [this.options.tenantIds ?? null],
      )) as CampaignRow[];
      // A refusal is forgotten once its campaign stops running (paused, completed, deleted).
      for (const id of this.refusedCampaigns.keys())
        if (!campaigns.some((campaign) => campaign.id === id)) this.refusedCampaigns.delete(id);
      await this.placePreviewRequests();
      for (const campaign of campaigns) {
        if (this.stopped) break;
        await this.paceCampaign(campaign);
      }
    } finally {
      this.ticking = false;
    }
  }

  private async paceCampaign(campaign: CampaignRow): Promise<void> {
    const db = this.options.dataSource;
    // Callbacks that came due reopen their contact for one more attempt.
    await db.query(
      `WITH due AS (
         UPDATE outbound_callbacks SET status = 'dialed' WHERE campaign_id = $1 AND status = 'pending' AND due_at <= now() RETURNING contact_id)
       UPDATE outbound_contacts ct SET finished = false, next_attempt_at = now(), attempts = LEAST(ct.attempts, $2 - 1)
         FROM due WHERE ct.id = due.contact_id AND ct.active_call_id IS NULL`,
      [campaign.id, campaign.max_attempts],
    );
    const [stats] = (await db.query(
      `SELECT
         (SELECT count(*) FROM agent_presence p WHERE p.tenant_id = $2 AND p.status = 'waitingOutboundCall'
            AND (cardinality($3::uuid[]) = 0 OR p.user_id = ANY($3::uuid[]))
            AND NOT EXISTS (SELECT 1 FROM outbound_contacts pc WHERE pc.preview_agent_id = p.user_id))::int AS waiting,
         (SELECT count(*) FROM outbound_calls WHERE campaign_id = $1 AND status = 'answeredByHuman')::int AS awaiting_agent,
         (SELECT count(*) FROM outbound_contacts ct LEFT JOIN outbound_calls oc ON oc.id = ct.active_call_id
            WHERE ct.campaign_id = $1 AND ct.active_call_id IS NOT NULL AND (oc.id IS NULL OR oc.status IN ${UNANSWERED_SQL}))::int AS in_flight,
         (SELECT count(*) FROM outbound_calls WHERE campaign_id = $1 AND status NOT IN ${UNANSWERED_OR_CANCELLED_SQL})::int AS resolved,
         (SELECT count(*) FROM outbound_calls WHERE campaign_id = $1
            AND status IN ${HUMAN_ANSWERED_SQL})::int AS human,
         (SELECT count(*) FROM outbound_calls WHERE campaign_id = $1 AND status = 'abandoned')::int AS abandoned`,
      [campaign.id, campaign.tenant_id, campaign.agent_ids ?? []],
    )) as { waiting: number; awaiting_agent: number; in_flight: number; resolved: number; human: number; abandoned: number }[];
    const wanted = pace(
      {
        agentsAvailable: Math.max(0, stats.waiting - stats.awaiting_agent),
        agentsAboutToFree: 0,
        callsInFlight: stats.in_flight,
        attemptsResolved: stats.resolved,
        answeredByHuman: stats.human,
        abandoned: stats.abandoned,
      },
      { mode: campaign.mode, abandonCap: Number(campaign.abandon_cap_percent) / 100 },
    );
    let count = Math.min(wanted, this.options.maxCallsPerTick);
    if (stats.in_flight === 0) await this.reportIfExhausted(campaign.id);
    // Calls on the way or a customer waiting for an agent: the campaign is working, not idle.
    const busy = stats.in_flight > 0 || stats.awaiting_agent > 0;
    if (count <= 0) {
      const agentsFree = stats.waiting - stats.awaiting_agent > 0;
      return this.recordIdle(campaign.id, busy ? null : agentsFree ? 'abandonCap' : 'noAgentWaiting', null);
    }
    // Resolved only when about to dial: an idle campaign costs no trunk look-up.
    const route = await this.route(campaign);
    if (!route.ok) {
      await this.recordIdle(campaign.id, IDLE_FOR_REFUSAL[route.code] ?? 'trunkUnusable', null);
      return this.refuseCampaign(campaign.id, route);
    }
    this.refusedCampaigns.delete(campaign.id);
    if (route.trunkId && route.maxConcurrentCalls) {
      count = Math.min(count, route.maxConcurrentCalls - (await this.callsOnTrunk(campaign.tenant_id, route.trunkId)));
      if (count <= 0) return this.recordIdle(campaign.id, 'trunkBusy', null);
    }
    // Candidates: due, under the attempt limit, not on a do-not-call list, number not live anywhere.
    const candidates = (await db.query(
      `SELECT ct.id, ct.tenant_id, ct.campaign_id, ct.phone FROM outbound_contacts ct
        WHERE ct.campaign_id = $1 AND ct.finished = false AND ct.active_call_id IS NULL AND ct.next_attempt_at <= now()
          AND ct.attempts < $2 AND ${DNC_CLEAR}
          AND NOT EXISTS (SELECT 1 FROM outbound_live_numbers l WHERE l.tenant_id = ct.tenant_id AND l.phone = ct.phone)
        ORDER BY ct.next_attempt_at, ct.id LIMIT $3`,
      [campaign.id, campaign.max_attempts, Math.max(count * 4, 20)],
    )) as ContactRow[];
    const now = (this.options.now ?? Date.now)();
    let placed = 0;
    let outsideWindow = 0;
    for (const contact of candidates) {
      if (placed >= count || this.stopped) break;
      // Calling windows are in the contact's local time (zone from the number); unknown zone = never.
      if (!isWithinCallingWindow(contact.phone, now, campaign.calling_windows ?? {})) {
        outsideWindow += 1;
        continue;
      }
      if (await this.dial(campaign, contact, route)) placed += 1;
    }
    if (placed > 0 || busy) return this.recordIdle(campaign.id, null, null);
    if (outsideWindow > 0) {
      // Until the earliest window of the contacts it would call (null: none of their zones is known).
      const opens = candidates
        .map((contact) => nextCallingWindowStart(contact.phone, now, campaign.calling_windows ?? {}))
        .filter((at): at is number => at !== null);
      return this.recordIdle(campaign.id, 'outsideCallingWindow', opens.length > 0 ? Math.min(...opens) : null);
    }
    if (candidates.length === 0) return this.recordIdle(campaign.id, 'noContactDue', await this.nextDue(campaign));
  }

  /**
   * Records on the campaign why this round placed no call (null: it is dialling), so the board says
   * why and until when; written only when it changes, `idle_since` kept while the reason lasts.
   */
  private async recordIdle(campaignId: string, reason: CampaignIdleReason | null, until: number | null): Promise<void> {
    const [, changed] = (await this.options.dataSource.query(
      `UPDATE dialer_campaigns SET idle_reason = $2::varchar, idle_until = $3::timestamptz,
              idle_since = CASE WHEN $2::varchar IS NULL THEN NULL WHEN idle_reason IS NOT DISTINCT FROM $2::varchar THEN idle_since ELSE now() END
        WHERE id = $1 AND (idle_reason IS DISTINCT FROM $2::varchar OR idle_until IS DISTINCT FROM $3::timestamptz)`,
      [campaignId, reason, until === null ? null : new Date(until)],
    )) as [unknown[], number];
    if (changed > 0) await this.reports.campaignIdle(campaignId);
  }

  /** When the campaign's next contact comes due (a retry or a callback), epoch ms; null when none is scheduled. */
  private async nextDue(campaign: CampaignRow): Promise<number | null> {
    const [{ due }] = (await this.options.dataSource.query(
      `SELECT LEAST(
         (SELECT min(next_attempt_at) FROM outbound_contacts WHERE campaign_id = $1 AND finished = false AND active_call_id IS NULL AND attempts < $2),
         (SELECT min(due_at) FROM outbound_callbacks WHERE campaign_id = $1 AND status = 'pending')) AS due`,
      [campaign.id, campaign.max_attempts],
    )) as { due: Date | null }[];
    return due === null ? null : new Date(due).getTime();
  }

  /** The campaign's trunk and caller id (see chooseRoute). */
  private async route(campaign: Pick<CampaignRow, 'tenant_id' | 'trunk_id' | 'caller_id'>): Promise<DialingRoute> {
    const lookup = await resolveCampaignTrunk(this.options.dataSource, this.crypto, campaign.tenant_id, campaign.trunk_id);
    const route = chooseRoute(this.kind, campaign.caller_id, lookup);
    // The simulator connects nowhere; a real carrier only to a checked, pinned address.
    return this.kind === 'drachtio' ? pinTrunkAddress(this.outgoing, route) : route;
  }

  /** Nothing is reserved for a campaign that cannot dial; the reason is logged (once a minute while it lasts). */
  private refuseCampaign(campaignId: string, route: Extract<DialingRoute, { ok: false }>): void {
    const now = Date.now();
    const last = this.refusedCampaigns.get(campaignId);
    if (last && last.code === route.code && now - last.loggedAt < REFUSAL_LOG_INTERVAL_MS) return;
    this.refusedCampaigns.set(campaignId, { code: route.code, loggedAt: now });
    this.log(`campaign ${campaignId} not dialled (${route.code}): ${route.message}`);
  }

  /** Calls holding a line on the trunk now: reserved (not yet reported) or live on the carrier, whichever campaign placed them. */
  private async callsOnTrunk(tenantId: string, trunkId: string): Promise<number> {
    const [{ calls }] = (await this.options.dataSource.query(
      `SELECT count(*)::int AS calls FROM outbound_contacts ct JOIN dialer_campaigns c ON c.id = ct.campaign_id
         LEFT JOIN outbound_calls oc ON oc.id = ct.active_call_id
        WHERE c.tenant_id = $1 AND c.trunk_id = $2 AND ct.active_call_id IS NOT NULL AND ct.dialer_owner IS DISTINCT FROM 'preview'
          AND (oc.id IS NULL OR oc.status IN ${CARRIER_LEG_SQL})`,
      [tenantId, trunkId],
    )) as { calls: number }[];
    return calls;
  }

  /** Nothing left to call (no open contact, no pending callback): ask the API to complete the campaign (at most once a minute). */
  private async reportIfExhausted(campaignId: string): Promise<void> {
    const [{ open }] = (await this.options.dataSource.query(
      `SELECT (SELECT count(*) FROM outbound_contacts WHERE campaign_id = $1 AND finished = false)
            + (SELECT count(*) FROM outbound_callbacks WHERE campaign_id = $1 AND status = 'pending') AS open`,
      [campaignId],
    )) as { open: string }[];
    if (Number(open) > 0) return;
    await this.reports.campaignExhausted(campaignId);
  }
  /** Reserve (one transaction, DNC re-checked), report the call, then place it. */
  private async dial(campaign: CampaignRow, contact: ContactRow, route: DialingRoute): Promise<boolean> {
    const callId = randomUUID();
    const attempt = await this.options.dataSource.transaction(async (manager) => {
      const taken = (await manager.query(
        `INSERT INTO outbound_live_numbers (tenant_id, phone, call_id, contact_id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING call_id`,
        [contact.tenant_id, contact.phone, callId, contact.id],
      )) as unknown[];
      if (taken.length === 0) return null;
      const [rows] = (await manager.query(
        `UPDATE outbound_contacts ct SET active_call_id = $2, dialer_owner = $3, reserved_at = now(), attempts = attempts + 1, updated_at = now()
          WHERE ct.id = $1 AND ct.active_call_id IS NULL AND ct.finished = false AND ct.attempts < $4 AND ${DNC_CLEAR}
          RETURNING attempts`,
        [contact.id, callId, this.owner, campaign.max_attempts],
      )) as [{ attempts: number }[], number];
      if (rows.length === 0) {
        await manager.query(`DELETE FROM outbound_live_numbers WHERE call_id = $1`, [callId]);
        return null;
      }
      return rows[0].attempts;
    });
    if (attempt === null) return false;
    await this.place(campaign, contact, callId, attempt, route);
    return true;
  }

  /** Preview records agents asked to dial (reserved by the API for each agent), first asked first: claim them and place them. */
  private async placePreviewRequests(): Promise<void> {
    const requests = (await this.options.dataSource.query(
      `SELECT ct.id, ct.tenant_id, ct.campaign_id, ct.phone, ct.active_call_id, ct.attempts,
              c.id AS c_id, c.abandon_threshold_ms, c.caller_id, c.trunk_id
         FROM outbound_contacts ct JOIN dialer_campaigns c ON c.id = ct.campaign_id
        WHERE ct.dialer_owner = 'preview' AND ct.preview_dial_at IS NOT NULL AND ct.active_call_id IS NOT NULL AND c.status = 'running'
          AND ($1::uuid[] IS NULL OR ct.tenant_id = ANY($1::uuid[]))
        ORDER BY ct.preview_dial_at, ct.id
        LIMIT 100`,
      [this.options.tenantIds ?? null],
    )) as (ContactRow & {
      active_call_id: string;
      attempts: number;
      abandon_threshold_ms: number;
      caller_id: string | null;
      trunk_id: string | null;
    })[];
    for (const callId of this.previewsAwaitingLine.keys())
      if (!requests.some((request) => request.active_call_id === callId)) this.previewsAwaitingLine.delete(callId);
    // Looked up once per campaign and per trunk in a tick: many requests may wait on one trunk.
    const routes = new Map<string, Promise<DialingRoute>>();
    const linesInUse = new Map<string, number>();
    for (const request of requests) {
      if (!routes.has(request.campaign_id)) routes.set(request.campaign_id, this.route(request));
      const route = await routes.get(request.campaign_id)!;
      // A preview dial takes a trunk line like any other call. With every line in use it waits for
      // a later tick; preview requests go before pacing, so it gets the first line that frees.
      if (route.ok && route.trunkId && route.maxConcurrentCalls) {
        const inUse = linesInUse.get(route.trunkId) ?? (await this.callsOnTrunk(request.tenant_id, route.trunkId));
        linesInUse.set(route.trunkId, inUse);
        if (inUse >= route.maxConcurrentCalls) {
          await this.holdPreview(request, route.trunkId, inUse, route.maxConcurrentCalls);
          continue;
        }
        linesInUse.set(route.trunkId, inUse + 1);
      }
      this.previewsAwaitingLine.delete(request.active_call_id);
      const [claimed] = (await this.options.dataSource.query(
        `UPDATE outbound_contacts SET dialer_owner = $2, preview_line_wait_since = NULL
          WHERE id = $1 AND dialer_owner = 'preview' AND active_call_id = $3 RETURNING id`,
        [request.id, this.owner, request.active_call_id],
      )) as [unknown[], number];
      if (claimed.length === 0) continue;
      // The agent is waiting for this record: a campaign that cannot dial fails the call (with the code) rather than keep them waiting.
      await this.place(
        { id: request.campaign_id, abandon_threshold_ms: request.abandon_threshold_ms },
        request,
        request.active_call_id,
        request.attempts,
        route,
      );
    }
  }

  /**
   * A preview call that waits for a line: recorded once on its contact (since when), logged, and
   * reported so that the API tells the agent, whose desk would otherwise just keep saying "dialling".
   */
  private async holdPreview(request: ContactRow & { active_call_id: string }, trunkId: string, inUse: number, max: number): Promise<void> {
    const callId = request.active_call_id;
    this.previewsAwaitingLine.set(callId, trunkId);
    const [marked] = (await this.options.dataSource.query(
      `UPDATE outbound_contacts SET preview_line_wait_since = now()
        WHERE id = $1 AND active_call_id = $2 AND dialer_owner = 'preview' AND preview_line_wait_since IS NULL RETURNING id`,
      [request.id, callId],
    )) as [unknown[], number];
    if (marked.length === 0) return;
    this.log(`preview call ${callId} waits for a line on trunk ${trunkId} (${inUse} of ${max} in use)`);
    this.reports.report(callId, 'w', { kind: 'previewAwaitingLine', callId, at: Date.now() });
  }

  /** Reports the reserved call to the API, then sends the INVITE through the route's trunk. */
  private async place(
    campaign: Pick<CampaignRow, 'id' | 'abandon_threshold_ms'>,
    contact: ContactRow,
    callId: string,
    attempt: number,
    route: DialingRoute,
  ): Promise<void> {
    const at = Date.now();
    this.reports.report(callId, '0', {
      kind: 'create',
      callId,
      tenantId: contact.tenant_id,
      campaignId: campaign.id,
      contactId: contact.id,
      phone: contact.phone,
      attempt,
      abandonThresholdMs: campaign.abandon_threshold_ms,
      at,
    });
    if (!route.ok) {
      this.log(`call ${callId} not placed (${route.code}): ${route.message}`);
      this.reports.report(callId, 'x', { kind: 'failed', callId, reason: route.code, at: Date.now() });
      return;
    }
    this.placed += 1;
    try {
      const handle = await this.options.telephony.originate({
        callId,
        tenantId: contact.tenant_id,
        from: route.from,
        to: contact.phone,
        trunk: route.trunk,
        ringTimeoutSec: this.options.ringTimeoutSec,
        amd: true,
      });
      this.calls.track(callId, handle);
      let seq = 0;
      handle.onEvent((event) => {
        seq += 1;
        this.reports.forward(callId, String(seq), event);
      });
    } catch (error) {
      this.reports.report(callId, 'x', {
        kind: 'failed',
        callId,
        reason: `originate: ${(error as Error).message}`.slice(0, 120),
        at: Date.now(),
      });
    }
  }

  /** Calls this process holds on the carrier right now (benchmarks, tests). */
  get liveCalls(): number {
    return this.calls.size;
  }
}
