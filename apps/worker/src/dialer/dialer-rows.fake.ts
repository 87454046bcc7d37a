import type { CampaignIdleReason } from '@centralita/contracts';
import { CARRIER_LEG_CALL_STATUSES, HUMAN_ANSWERED_CALL_STATUSES, UNANSWERED_CALL_STATUSES } from '@centralita/domain';
import { DialerRows, type CampaignRow, type ContactRow, type PacingStats, type PreviewRequest } from './dialer-rows';
import type { TrunkLookup } from './dialing-route';

/** A dialer_campaigns row as the fake keeps it. */
export interface FakeCampaign extends CampaignRow {
  status: string;
  deleted: boolean;
  idle_reason: CampaignIdleReason | null;
  idle_until: Date | null;
  idle_since: Date | null;
}

/** An outbound_contacts row as the fake keeps it (times in epoch ms). */
export interface FakeContact extends ContactRow {
  finished: boolean;
  active_call_id: string | null;
  dialer_owner: string | null;
  next_attempt_at: number;
  attempts: number;
  preview_agent_id: string | null;
  preview_dial_at: number | null;
  preview_line_wait_since: number | null;
}

export interface FakeCallback {
  contact_id: string;
  campaign_id: string;
  status: 'pending' | 'dialed' | 'cancelled';
  due_at: number;
}

export interface FakeCall {
  id: string;
  campaign_id: string;
  status: string;
}

export interface FakeAgent {
  user_id: string;
  tenant_id: string;
  status: string;
}

export interface FakeDoNotCall {
  tenant_id: string;
  phone: string;
  campaign_id: string | null;
}

const has = (list: readonly string[], status: string) => list.includes(status);

/**
 * DialerRows over Maps, for the pacer's and the preview placer's unit specs. Each method answers
 * what its statement would on the same rows (same filters, order and limits); `now` is the
 * database's clock. Rows are added with defaults a spec overrides, and kept so a spec can assert
 * what was reserved, claimed and recorded.
 */
export class FakeDialerRows extends DialerRows {
  readonly campaigns = new Map<string, FakeCampaign>();
  readonly contacts = new Map<string, FakeContact>();
  readonly callbacks: FakeCallback[] = [];
  readonly calls = new Map<string, FakeCall>();
  readonly agents = new Map<string, FakeAgent>();
  readonly doNotCall: FakeDoNotCall[] = [];
  /** outbound_live_numbers: `tenant:phone` → the call holding the number. */
  readonly liveNumbers = new Map<string, { call_id: string; contact_id: string }>();
  /** The trunk look-up campaignTrunk answers, by `tenant:trunk`. */
  readonly trunks = new Map<string, TrunkLookup>();
  /** Every idle reason written (only the writes that changed the row), in order. */
  readonly idleWrites: { campaignId: string; reason: CampaignIdleReason | null; until: Date | null }[] = [];
  /** The database's now(). */
  now: () => number = Date.now;

  addCampaign(row: Partial<FakeCampaign> & Pick<CampaignRow, 'id' | 'tenant_id'>): FakeCampaign {
    const campaign: FakeCampaign = {
      mode: 'progressive',
      abandon_cap_percent: '3.00',
      abandon_threshold_ms: 2000,
      max_attempts: 3,
      calling_windows: {},
      caller_id: null,
      trunk_id: null,
      agent_ids: [],
      status: 'running',
      deleted: false,
      idle_reason: null,
      idle_until: null,
      idle_since: null,
      ...row,
    };
    this.campaigns.set(campaign.id, campaign);
    return campaign;
  }

  addContact(row: Partial<FakeContact> & Pick<ContactRow, 'id' | 'campaign_id' | 'phone'>): FakeContact {
    const campaign = this.campaigns.get(row.campaign_id);
    if (!campaign) throw new Error(`No campaign ${row.campaign_id}`);
    const contact: FakeContact = {
      tenant_id: campaign.tenant_id,
      finished: false,
      active_call_id: null,
      dialer_owner: null,
      next_attempt_at: this.now() - 1000,
      attempts: 0,
      preview_agent_id: null,
      preview_dial_at: null,
      preview_line_wait_since: null,
      ...row,
    };
    this.contacts.set(contact.id, contact);
    return contact;
  }

  /** A preview record the API reserved for the agent, asked to dial at `askedAt`. */
  addPreviewRequest(
    row: Partial<FakeContact> & Pick<ContactRow, 'id' | 'campaign_id' | 'phone'> & { active_call_id: string; preview_agent_id: string },
    askedAt = this.now(),
  ): FakeContact {
    return this.addContact({ dialer_owner: 'preview', preview_dial_at: askedAt, attempts: 1, ...row });
  }

  addCallback(row: FakeCallback): void {
    this.callbacks.push({ ...row });
  }

  addCall(row: FakeCall): void {
    this.calls.set(row.id, { ...row });
  }

  addAgent(row: FakeAgent): void {
    this.agents.set(row.user_id, { ...row });
  }

  addTrunk(tenantId: string, trunkId: string, lookup: TrunkLookup): void {
    this.trunks.set(`${tenantId}:${trunkId}`, lookup);
  }

  /** Contacts of the campaign reserved by a dialer (not preview records waiting), in reservation order. */
  reservedContacts(campaignId: string): FakeContact[] {
    return [...this.contacts.values()].filter((ct) => ct.campaign_id === campaignId && ct.active_call_id !== null);
  }

  private campaign(id: string): FakeCampaign {
    const campaign = this.campaigns.get(id);
    if (!campaign) throw new Error(`No campaign ${id}`);
    return campaign;
  }

  private dncClear(contact: FakeContact): boolean {
    return !this.doNotCall.some(
      (d) =>
        d.tenant_id === contact.tenant_id && d.phone === contact.phone && (d.campaign_id === null || d.campaign_id === contact.campaign_id),
    );
  }

  private ofCampaign(campaignId: string): FakeContact[] {
    return [...this.contacts.values()].filter((ct) => ct.campaign_id === campaignId);
  }

  private callsOf(campaignId: string): FakeCall[] {
    return [...this.calls.values()].filter((call) => call.campaign_id === campaignId);
  }

  async runningCampaigns(tenantIds: string[] | null): Promise<CampaignRow[]> {
    // Insertion order stands for created_at.
    return [...this.campaigns.values()]
      .filter((c) => c.status === 'running' && !c.deleted && (tenantIds === null || tenantIds.includes(c.tenant_id)))
      .map((c) => structuredClone(c));
  }

  async reopenDueCallbacks(campaignId: string, maxAttempts: number): Promise<void> {
    const now = this.now();
    for (const callback of this.callbacks) {
      if (callback.campaign_id !== campaignId || callback.status !== 'pending' || callback.due_at > now) continue;
      callback.status = 'dialed';
      const contact = this.contacts.get(callback.contact_id);
      if (!contact || contact.active_call_id !== null) continue;
      contact.finished = false;
      contact.next_attempt_at = now;
      contact.attempts = Math.min(contact.attempts, maxAttempts - 1);
    }
  }

  async pacingStats(campaign: Pick<CampaignRow, 'id' | 'tenant_id' | 'agent_ids'>): Promise<PacingStats> {
    const agentIds = campaign.agent_ids ?? [];
    const holdingPreview = new Set([...this.contacts.values()].map((ct) => ct.preview_agent_id).filter(Boolean));
    const calls = this.callsOf(campaign.id);
    return {
      waiting: [...this.agents.values()].filter(
        (p) =>
          p.tenant_id === campaign.tenant_id &&
          p.status === 'waitingOutboundCall' &&
          (agentIds.length === 0 || agentIds.includes(p.user_id)) &&
          !holdingPreview.has(p.user_id),
      ).length,
      awaiting_agent: calls.filter((call) => call.status === 'answeredByHuman').length,
      in_flight: this.ofCampaign(campaign.id).filter((ct) => {
        if (ct.active_call_id === null) return false;
        const call = this.calls.get(ct.active_call_id);
        return !call || has(UNANSWERED_CALL_STATUSES, call.status);
      }).length,
      resolved: calls.filter((call) => !has([...UNANSWERED_CALL_STATUSES, 'cancelled'], call.status)).length,
      human: calls.filter((call) => has(HUMAN_ANSWERED_CALL_STATUSES, call.status)).length,
      abandoned: calls.filter((call) => call.status === 'abandoned').length,
    };
  }

  async dueContacts(campaignId: string, maxAttempts: number, limit: number): Promise<ContactRow[]> {
    const now = this.now();
    return this.ofCampaign(campaignId)
      .filter(
        (ct) =>
          !ct.finished &&
          ct.active_call_id === null &&
          ct.next_attempt_at <= now &&
          ct.attempts < maxAttempts &&
          this.dncClear(ct) &&
          !this.liveNumbers.has(`${ct.tenant_id}:${ct.phone}`),
      )
      .sort((a, b) => a.next_attempt_at - b.next_attempt_at || (a.id < b.id ? -1 : 1))
      .slice(0, limit)
      .map(({ id, tenant_id, campaign_id, phone }) => ({ id, tenant_id, campaign_id, phone }));
  }

  async reserveContact(contact: ContactRow, callId: string, owner: string, maxAttempts: number): Promise<number | null> {
    const number = `${contact.tenant_id}:${contact.phone}`;
    if (this.liveNumbers.has(number)) return null;
    const row = this.contacts.get(contact.id);
    if (!row || row.active_call_id !== null || row.finished || row.attempts >= maxAttempts || !this.dncClear(row)) return null;
    this.liveNumbers.set(number, { call_id: callId, contact_id: contact.id });
    row.active_call_id = callId;
    row.dialer_owner = owner;
    row.attempts += 1;
    return row.attempts;
  }

  async recordIdle(campaignId: string, reason: CampaignIdleReason | null, until: Date | null): Promise<boolean> {
    const campaign = this.campaign(campaignId);
    if (campaign.idle_reason === reason && (campaign.idle_until?.getTime() ?? null) === (until?.getTime() ?? null)) return false;
    campaign.idle_since = reason === null ? null : campaign.idle_reason === reason ? campaign.idle_since : new Date(this.now());
    campaign.idle_reason = reason;
    campaign.idle_until = until;
    this.idleWrites.push({ campaignId, reason, until });
    return true;
  }

  async nextDue(campaignId: string, maxAttempts: number): Promise<Date | null> {
    const times = [
      ...this.ofCampaign(campaignId)
        .filter((ct) => !ct.finished && ct.active_call_id === null && ct.attempts < maxAttempts)
        .map((ct) => ct.next_attempt_at),
      ...this.callbacks.filter((cb) => cb.campaign_id === campaignId && cb.status === 'pending').map((cb) => cb.due_at),
    ];
    return times.length === 0 ? null : new Date(Math.min(...times));
  }

  async openWork(campaignId: string): Promise<number> {
    return (
      this.ofCampaign(campaignId).filter((ct) => !ct.finished).length +
      this.callbacks.filter((cb) => cb.campaign_id === campaignId && cb.status === 'pending').length
    );
  }

  async callsOnTrunk(tenantId: string, trunkId: string): Promise<number> {
    return [...this.contacts.values()].filter((ct) => {
      const campaign = this.campaigns.get(ct.campaign_id);
      if (!campaign || campaign.tenant_id !== tenantId || campaign.trunk_id !== trunkId) return false;
      if (ct.active_call_id === null || ct.dialer_owner === 'preview') return false;
      const call = this.calls.get(ct.active_call_id);
      return !call || has(CARRIER_LEG_CALL_STATUSES, call.status);
    }).length;
  }

  async campaignTrunk(tenantId: string, trunkId: string | null): Promise<TrunkLookup> {
    if (!trunkId) return { status: 'none' };
    return this.trunks.get(`${tenantId}:${trunkId}`) ?? { status: 'unavailable', trunkId };
  }

  async previewRequests(tenantIds: string[] | null): Promise<PreviewRequest[]> {
    return [...this.contacts.values()]
      .filter((ct) => {
        const campaign = this.campaigns.get(ct.campaign_id);
        return (
          ct.dialer_owner === 'preview' &&
          ct.preview_dial_at !== null &&
          ct.active_call_id !== null &&
          campaign?.status === 'running' &&
          (tenantIds === null || tenantIds.includes(ct.tenant_id))
        );
      })
      .sort((a, b) => a.preview_dial_at! - b.preview_dial_at! || (a.id < b.id ? -1 : 1))
      .slice(0, 100)
      .map((ct) => {
        const campaign = this.campaign(ct.campaign_id);
        return {
          id: ct.id,
          tenant_id: ct.tenant_id,
          campaign_id: ct.campaign_id,
          phone: ct.phone,
          active_call_id: ct.active_call_id!,
          attempts: ct.attempts,
          abandon_threshold_ms: campaign.abandon_threshold_ms,
          caller_id: campaign.caller_id,
          trunk_id: campaign.trunk_id,
        };
      });
  }

  async claimPreview(contactId: string, callId: string, owner: string): Promise<boolean> {
    const contact = this.contacts.get(contactId);
    if (!contact || contact.dialer_owner !== 'preview' || contact.active_call_id !== callId) return false;
    contact.dialer_owner = owner;
    contact.preview_line_wait_since = null;
    return true;
  }

  async markPreviewAwaitingLine(contactId: string, callId: string): Promise<boolean> {
    const contact = this.contacts.get(contactId);
    if (!contact || contact.active_call_id !== callId || contact.dialer_owner !== 'preview' || contact.preview_line_wait_since !== null)
      return false;
    contact.preview_line_wait_since = this.now();
    return true;
  }
}
