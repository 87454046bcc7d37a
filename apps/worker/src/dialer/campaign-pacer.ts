import type { CampaignIdleReason } from '@centralita/contracts';
import { isWithinCallingWindow, nextCallingWindowStart, pace } from '@centralita/domain';
import { randomUUID } from 'node:crypto';
import type { CallPlacer } from './call-placer';
import type { DialerReports } from './dialer-reports';
import type { CampaignRow, ContactRow, DialerRows } from './dialer-rows';
import type { DialingRoute } from './dialing-route';

/** The board's reason for a campaign that cannot dial at all. */
const IDLE_FOR_REFUSAL: Partial<Record<string, CampaignIdleReason>> = {
  'dialer.noTrunk': 'noTrunk',
  'dialer.noCallerId': 'noCallerId',
};

/** A campaign that cannot dial is logged again after this long (not every tick). */
const REFUSAL_LOG_INTERVAL_MS = 60_000;

export interface CampaignPacerOptions {
  rows: DialerRows;
  placer: Pick<CallPlacer, 'route' | 'place'>;
  reports: Pick<DialerReports, 'campaignIdle' | 'campaignExhausted'>;
  /** The dialer process reservations are made for (see DialerRecovery). */
  owner: string;
  maxCallsPerTick: number;
  /** The clock calling windows are checked against. */
  now: () => number;
  /** The dialer is stopping: place no more calls. */
  stopping: () => boolean;
  log: (message: string) => void;
}

/**
 * One campaign's pacing round: reopens due callbacks, asks pace() how many calls the waiting agents
 * need, holds them to the trunk's free lines, reserves due contacts inside their calling window and
 * places them. A round that places nothing records why on the campaign (and until when), so the
 * board can say it; a campaign with nothing left to call is reported exhausted.
 */
export class CampaignPacer {
  /** Campaigns that cannot dial right now, with the code and when it was last logged. */
  private readonly refused = new Map<string, { code: string; loggedAt: number }>();

  constructor(private readonly options: CampaignPacerOptions) {}

  /** Campaigns held back (no usable trunk or caller id under drachtio), by id, with the code. */
  get refusals(): ReadonlyMap<string, string> {
    return new Map([...this.refused].map(([id, { code }]) => [id, code]));
  }

  /** A refusal is forgotten once its campaign stops running (paused, completed, deleted). */
  forgetRefusalsExcept(running: readonly CampaignRow[]): void {
    for (const id of this.refused.keys()) if (!running.some((campaign) => campaign.id === id)) this.refused.delete(id);
  }

  async pace(campaign: CampaignRow): Promise<void> {
    const { rows } = this.options;
    // Callbacks that came due reopen their contact for one more attempt.
    await rows.reopenDueCallbacks(campaign.id, campaign.max_attempts);
    const stats = await rows.pacingStats(campaign);
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
    const route = await this.options.placer.route(campaign);
    if (!route.ok) {
      await this.recordIdle(campaign.id, IDLE_FOR_REFUSAL[route.code] ?? 'trunkUnusable', null);
      return this.refuse(campaign.id, route);
    }
    this.refused.delete(campaign.id);
    if (route.trunkId && route.maxConcurrentCalls) {
      count = Math.min(count, route.maxConcurrentCalls - (await rows.callsOnTrunk(campaign.tenant_id, route.trunkId)));
      if (count <= 0) return this.recordIdle(campaign.id, 'trunkBusy', null);
    }
    // Candidates: due, under the attempt limit, not on a do-not-call list, number not live anywhere.
    const candidates = await rows.dueContacts(campaign.id, campaign.max_attempts, Math.max(count * 4, 20));
    const now = this.options.now();
    let placed = 0;
    let outsideWindow = 0;
    for (const contact of candidates) {
      if (placed >= count || this.options.stopping()) break;
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
    if (candidates.length === 0) {
      const due = await rows.nextDue(campaign.id, campaign.max_attempts);
      return this.recordIdle(campaign.id, 'noContactDue', due === null ? null : due.getTime());
    }
  }

  /** Written only when it changes; the API is told so that it pushes the board. */
  private async recordIdle(campaignId: string, reason: CampaignIdleReason | null, until: number | null): Promise<void> {
    const changed = await this.options.rows.recordIdle(campaignId, reason, until === null ? null : new Date(until));
    if (changed) await this.options.reports.campaignIdle(campaignId);
  }

  /** Nothing is reserved for a campaign that cannot dial; the reason is logged (once a minute while it lasts). */
  private refuse(campaignId: string, route: Extract<DialingRoute, { ok: false }>): void {
    const now = Date.now();
    const last = this.refused.get(campaignId);
    if (last && last.code === route.code && now - last.loggedAt < REFUSAL_LOG_INTERVAL_MS) return;
    this.refused.set(campaignId, { code: route.code, loggedAt: now });
    this.options.log(`campaign ${campaignId} not dialled (${route.code}): ${route.message}`);
  }

  /** Nothing left to call (no open contact, no pending callback): ask the API to complete the campaign (at most once a minute). */
  private async reportIfExhausted(campaignId: string): Promise<void> {
    if ((await this.options.rows.openWork(campaignId)) > 0) return;
    await this.options.reports.campaignExhausted(campaignId);
  }

  /** Reserve (one transaction, DNC re-checked), report the call, then place it. */
  private async dial(campaign: CampaignRow, contact: ContactRow, route: DialingRoute): Promise<boolean> {
    const callId = randomUUID();
    const attempt = await this.options.rows.reserveContact(contact, callId, this.options.owner, campaign.max_attempts);
    if (attempt === null) return false;
    await this.options.placer.place(campaign, contact, callId, attempt, route);
    return true;
  }
}
