import { ASSIGNABLE_AGENT_STATUSES, READY_AGENT_STATUSES, type RoutingPolicy } from '@centralita/domain';
import type { EntityManager } from 'typeorm';
import type { FakeMachineRows } from '../machine-host/machine-rows.fake';
import type { AgentRow, ConversationRow } from '../machine-host/views';
import type { CampaignQueueRow, Db, LineArrivals, LineQueueRow, QueueViewRows, WaitingRow } from './queue-view-rows';
import {
  RoutingRows,
  type AgentLines,
  type CandidateFilter,
  type CandidatePage,
  type HeldLoad,
  type LineRoutingRow,
  type RequeueRow,
} from './routing-rows';

interface FakeLine {
  tenantId: string;
  name: string;
  campaignId: string | null;
  deleted: boolean;
  /** agent_attention_lines: the agents serving the line. */
  agents: Set<string>;
}

interface FakeCampaign {
  tenantId: string;
  name: string;
  deleted: boolean;
}

const HOUR_MS = 3_600_000;
/** Routing transactions of one line a spec may see before the fake calls it a loop. */
const MAX_ROUNDS_PER_LINE = 100;
const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const time = (value: Date | null) => (value === null ? Number.POSITIVE_INFINITY : new Date(value).getTime());
const idleSince = (row: AgentRow) => (row.snapshot.context.idleSince as number | null | undefined) ?? Number.POSITIVE_INFINITY;
const occupancy = (row: AgentRow) => row.active_count / row.capacity;
const byUserId = (a: AgentRow, b: AgentRow) => (a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : 0);

/** Each policy's order of candidate rows, as PgRoutingRows' ORDER BY has it. */
const POLICY_ORDER: Record<RoutingPolicy, (a: AgentRow, b: AgentRow) => number> = {
  'longest-idle': (a, b) => idleSince(a) - idleSince(b) || occupancy(a) - occupancy(b) || byUserId(a, b),
  'least-occupied': (a, b) => occupancy(a) - occupancy(b) || idleSince(a) - idleSince(b) || byUserId(a, b),
};

/** Serving order of waiting conversations: priority, then waiting time, then id. */
const queueOrder = (a: ConversationRow, b: ConversationRow) =>
  b.priority - a.priority || time(a.queued_at) - time(b.queued_at) || byId(a, b);

/**
 * RoutingRows and QueueViewRows over Maps, for RoutingService's and QueueViews' unit specs. The
 * conversations and agents are FakeMachineRows' (the host steps them); this adds what routing reads
 * besides: lines with their agents and routing row, campaigns, the campaign each agent is logged
 * into, and realtime_view_versions. `holdElsewhere` plays another transaction holding an agent's
 * row: a SKIP LOCKED page passes it over, a waiting lock gets it once that transaction commits.
 * Every statement is recorded in `calls` (`lockCandidates:l1:skip:2`) so a spec can tell the pages.
 */
export class FakeRoutingRows extends RoutingRows implements QueueViewRows {
  readonly lines = new Map<string, FakeLine>();
  readonly campaigns = new Map<string, FakeCampaign>();
  readonly lineRoutings = new Map<string, LineRoutingRow>();
  /** agent_presence.campaign_id: the campaign each agent is logged into. */
  readonly agentCampaigns = new Map<string, string>();
  readonly viewVersions = new Map<string, { version: number; told: Record<string, string> }>();
  readonly calls: string[] = [];
  private readonly heldElsewhere = new Set<string>();
  private nextViewVersionValue = 1;

  constructor(readonly machine: FakeMachineRows) {
    super();
  }

  addLine(
    id: string,
    line: { tenantId: string; name?: string; campaignId?: string | null; agents?: string[]; routing?: Partial<LineRoutingRow> },
  ): void {
    this.lines.set(id, {
      tenantId: line.tenantId,
      name: line.name ?? id,
      campaignId: line.campaignId ?? null,
      deleted: false,
      agents: new Set(line.agents ?? []),
    });
    if (line.routing)
      this.lineRoutings.set(id, { routing_policy: 'longest-idle', chats_during_call: 0, offer_calls_with_chats: false, ...line.routing });
  }

  addCampaign(id: string, tenantId: string, name = id): void {
    this.campaigns.set(id, { tenantId, name, deleted: false });
  }

  /** Another transaction holds the agent's row until a round waits for it (see lockCandidates). */
  holdElsewhere(userId: string): void {
    this.heldElsewhere.add(userId);
  }

  async waitingLines(): Promise<string[]> {
    this.calls.push('waitingLines');
    return [...new Set(this.waiting().map((row) => row.attention_line_id!))];
  }

  async agentLines(_manager: EntityManager, agentIds: string[]): Promise<AgentLines[][]> {
    this.calls.push(`agentLines:${agentIds.join(',')}`);
    return agentIds.map((agentId) => {
      const presence = this.machine.agents.get(agentId);
      const of = { tenant_id: presence?.tenant_id ?? null, campaign_id: (presence && this.agentCampaigns.get(agentId)) ?? null };
      const lines = [...this.lines].filter(([, line]) => line.agents.has(agentId)).map(([id]) => id);
      if (lines.length === 0) return [{ ...of, attention_line_id: null, waiting: false }];
      return lines.map((id) => ({ ...of, attention_line_id: id, waiting: this.waiting(id).length > 0 }));
    });
  }

  async readForRequeue(_manager: EntityManager, conversationId: string): Promise<RequeueRow | undefined> {
    this.calls.push(`readForRequeue:${conversationId}`);
    const row = this.machine.conversations.get(conversationId);
    if (!row) return undefined;
    const { attention_line_id, agent_id, status, snapshot } = structuredClone(row);
    return { attention_line_id, agent_id, status, snapshot: snapshot as unknown as RequeueRow['snapshot'] };
  }

  async lockLine(_manager: EntityManager, attentionLineId: string): Promise<void> {
    this.calls.push(`lockLine:${attentionLineId}`);
    // A router that never settles would spin on microtasks and hang the spec instead of failing it.
    if (this.calls.filter((call) => call === `lockLine:${attentionLineId}`).length > MAX_ROUNDS_PER_LINE)
      throw new Error(`Routing of ${attentionLineId} took more than ${MAX_ROUNDS_PER_LINE} transactions`);
  }

  async lockHeads(_manager: EntityManager, attentionLineId: string, limit: number, withheld: string[]): Promise<ConversationRow[]> {
    this.calls.push(`lockHeads:${attentionLineId}:${limit}`);
    return this.waiting(attentionLineId)
      .filter((row) => !withheld.includes(row.channel))
      .slice(0, limit)
      .sort(byId)
      .map((row) => structuredClone(row));
  }

  async lineRouting(_manager: EntityManager, attentionLineId: string): Promise<LineRoutingRow | undefined> {
    return this.lineRoutings.get(attentionLineId);
  }

  async lockCandidates(_manager: EntityManager, filter: CandidateFilter, page: CandidatePage): Promise<AgentRow[]> {
    const withRoom = this.withRoom(filter.attentionLineId, filter.withInCall);
    let rows: AgentRow[];
    if (page.skipLocked) {
      this.calls.push(`lockCandidates:${filter.attentionLineId}:skip:${page.limit ?? 'all'}`);
      rows = withRoom
        .filter((row) => !page.lockedAlready.includes(row.user_id) && !this.heldElsewhere.has(row.user_id))
        .sort(POLICY_ORDER[filter.policy])
        .slice(0, page.limit ?? undefined);
    } else {
      this.calls.push(`lockCandidates:${filter.attentionLineId}:wait`);
      // Waiting for the holders: they commit (leaving the rows as they were) and the round gets them.
      for (const row of withRoom) this.heldElsewhere.delete(row.user_id);
      rows = withRoom.sort(byUserId);
    }
    return rows.map((row) => structuredClone(row));
  }

  async heldLoads(_manager: EntityManager, agentIds: string[], callChannels: string[]): Promise<HeldLoad[]> {
    const loads = new Map<string, HeldLoad>();
    for (const row of this.machine.conversations.values()) {
      if (row.status !== 'Active' || row.agent_id === null || !agentIds.includes(row.agent_id)) continue;
      const load = loads.get(row.agent_id) ?? { agent_id: row.agent_id, calls: 0, chats: 0 };
      if (callChannels.includes(row.channel)) load.calls++;
      else load.chats++;
      loads.set(row.agent_id, load);
    }
    return [...loads.values()];
  }

  async roomBeyond(_manager: EntityManager, filter: Omit<CandidateFilter, 'policy'>, lockedAlready: string[]): Promise<boolean> {
    this.calls.push(`roomBeyond:${filter.attentionLineId}`);
    return this.withRoom(filter.attentionLineId, filter.withInCall).some((row) => !lockedAlready.includes(row.user_id));
  }

  async lineQueue(_db: Db, attentionLineId: string): Promise<LineQueueRow | undefined> {
    const line = this.lines.get(attentionLineId);
    if (!line) return undefined;
    const waiting = this.waiting(attentionLineId);
    return {
      name: line.name,
      client_id: line.tenantId,
      campaign_id: line.campaignId,
      version: this.viewVersion(`line:${attentionLineId}`),
      waiting: waiting.length,
      oldest: this.oldest(waiting),
      available: this.withRoom(attentionLineId, false).length,
    };
  }

  async campaignQueues(_db: Db, tenantId: string, campaignIds: string[] | null): Promise<CampaignQueueRow[]> {
    return [...this.campaigns]
      .filter(([id, campaign]) => campaign.tenantId === tenantId && !campaign.deleted && (campaignIds === null || campaignIds.includes(id)))
      .sort(([idA, a], [idB, b]) => (a.name < b.name ? -1 : a.name > b.name ? 1 : idA < idB ? -1 : idA > idB ? 1 : 0))
      .map(([id, campaign]) => {
        const lines = [...this.lines].filter(([, line]) => line.campaignId === id);
        const waiting = lines.flatMap(([lineId]) => this.waiting(lineId));
        const ready = [...this.machine.agents.values()].filter(
          (row) => this.agentCampaigns.get(row.user_id) === id && READY_AGENT_STATUSES.includes(row.status as never),
        );
        return {
          id,
          name: campaign.name,
          version: this.viewVersion(`campaign:${id}`),
          lines: lines.filter(([, line]) => !line.deleted).length,
          waiting: waiting.length,
          oldest: this.oldest(waiting),
          available: ready.filter((row) => row.active_count < row.capacity).length,
        };
      });
  }

  async waitingInOrder(_db: Db, attentionLineId: string): Promise<WaitingRow[]> {
    const version = this.viewVersion(`line:${attentionLineId}`);
    return this.waiting(attentionLineId).map((row) => ({ id: row.id, channel: row.channel, version }));
  }

  async arrivals(_db: Db, attentionLineId: string): Promise<LineArrivals | undefined> {
    const since = Date.now() - HOUR_MS;
    const ofLine = [...this.machine.conversations.values()].filter((row) => row.attention_line_id === attentionLineId);
    return {
      waiting: ofLine.filter((row) => row.status === 'LiningUp').length,
      arrivals: ofLine.filter((row) => row.queued_at !== null && new Date(row.queued_at).getTime() > since).length,
    };
  }

  async handleTimes(_db: Db, attentionLineId: string): Promise<number[]> {
    return [...this.machine.conversations.values()]
      .filter((row) => row.attention_line_id === attentionLineId && row.closed_at !== null && row.snapshot.context.assignedAt != null)
      .sort((a, b) => time(b.closed_at) - time(a.closed_at))
      .slice(0, 50)
      .map((row) => (time(row.closed_at) - (row.snapshot.context.assignedAt as number)) / 1000);
  }

  async servingSlots(_db: Db, attentionLineId: string): Promise<number> {
    return this.agentsOf(attentionLineId)
      .filter((row) => READY_AGENT_STATUSES.includes(row.status as never))
      .reduce((sum, row) => sum + row.capacity, 0);
  }

  async nextViewVersion(_manager: EntityManager, viewKey: string): Promise<Record<string, string>> {
    const row = this.viewVersions.get(viewKey) ?? { version: 0, told: {} };
    row.version = this.nextViewVersionValue++;
    this.viewVersions.set(viewKey, row);
    return { ...row.told };
  }

  async storeTold(_manager: EntityManager, viewKey: string, told: Record<string, string>): Promise<void> {
    this.calls.push(`storeTold:${viewKey}`);
    this.viewVersions.get(viewKey)!.told = { ...told };
  }

  /** Waiting conversations (of the line, when given) in serving order. */
  private waiting(attentionLineId?: string): ConversationRow[] {
    return [...this.machine.conversations.values()]
      .filter(
        (row) =>
          row.status === 'LiningUp' &&
          row.attention_line_id !== null &&
          (attentionLineId === undefined || row.attention_line_id === attentionLineId),
      )
      .sort(queueOrder);
  }

  private agentsOf(attentionLineId: string): AgentRow[] {
    const agents = this.lines.get(attentionLineId)?.agents ?? new Set<string>();
    return [...this.machine.agents.values()].filter((row) => agents.has(row.user_id));
  }

  /** The line's agents ready (or on a call too, `withInCall`) with room, as committed. */
  private withRoom(attentionLineId: string, withInCall: boolean): AgentRow[] {
    const statuses: readonly string[] = withInCall ? ASSIGNABLE_AGENT_STATUSES : READY_AGENT_STATUSES;
    return this.agentsOf(attentionLineId).filter((row) => statuses.includes(row.status) && row.active_count < row.capacity);
  }

  private oldest(rows: ConversationRow[]): Date | null {
    const times = rows.filter((row) => row.queued_at !== null).map((row) => time(row.queued_at));
    return times.length === 0 ? null : new Date(Math.min(...times));
  }

  private viewVersion(viewKey: string): string {
    return String(this.viewVersions.get(viewKey)?.version ?? 0);
  }
}
