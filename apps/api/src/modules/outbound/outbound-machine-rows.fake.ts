import { FINAL_CALL_STATUSES } from '@centralita/domain';
import type { EntityManager } from 'typeorm';
import type { FakeLogRow } from '../machine-host/machine-rows.fake';
import { outboxColumns, rememberWritten, type OutboxEffect, type OutboxRecord } from '../machine-host/outbox';
import type { LogEntry } from '../machine-host/transition-log';
import type { VersionedWrite, Written } from '../machine-host/versioned-write';
import type { AgentRow } from '../machine-host/views';
import { OutboundMachineRows, type AttemptEnd, type DueTimerRow, type NewCallRow, type PreviewLineWait } from './outbound-machine-rows';
import type { CallRow, CampaignRow } from './outbound-rows';

/** The columns of an outbound_contacts row the outbound hosts read and write. */
export interface FakeContact {
  id: string;
  campaign_id: string;
  name: string | null;
  disposition: string | null;
  active_call_id: string | null;
  dialer_owner: string | null;
  preview_agent_id: string | null;
  preview_dial_at: Date | null;
  preview_line_wait_since: Date | null;
  last_outcome: string | null;
  finished: boolean;
  next_attempt_at: Date | null;
}

/** An outbound_callbacks row as completeIfExhausted counts it. */
export interface FakeCallback {
  campaign_id: string;
  status: string;
}

type Table = 'outbound_calls' | 'dialer_campaigns' | 'agent_presence';

interface Saved {
  calls: Map<string, CallRow>;
  campaigns: Map<string, CampaignRow>;
  contacts: Map<string, FakeContact>;
  liveNumbers: Map<string, string>;
  log: number;
  outbox: number;
}

const FINAL_STATUSES: readonly string[] = FINAL_CALL_STATUSES;

/**
 * OutboundMachineRows over Maps, for the outbound hosts' unit specs. A VersionedWrite is applied
 * only while the row still has its version (null otherwise, writing nothing); every log row and
 * outbox row is kept so a spec can assert them. The agents are FakeMachineRows' Map (the presence
 * rows MachineHostService steps), read here as the dialer's SKIP LOCKED picks read them.
 * `heldElsewhere` plays another transaction holding a row: SKIP LOCKED reads pass it by, a
 * blocking lock of it throws (a spec that meets it would have waited). A savepoint restores the
 * outbound Maps, the log and the outbox (not the agents). `moveVersion` and `interfere` play
 * another process stepping a row behind the host's back.
 */
export class FakeOutboundMachineRows extends OutboundMachineRows {
  readonly calls = new Map<string, CallRow>();
  readonly campaigns = new Map<string, CampaignRow>();
  readonly contacts = new Map<string, FakeContact>();
  /** outbound_live_numbers: the phone each live call holds, by call id. */
  readonly liveNumbers = new Map<string, string>();
  readonly callbacks: FakeCallback[] = [];
  readonly log: FakeLogRow[] = [];
  readonly outbox: OutboxRecord[] = [];
  /** Every statement in order, with its key (`lockDialerMatching:t1`, `lockCall:call-1`). */
  readonly statements: string[] = [];
  /** Versioned writes refused because the row's version had moved. */
  readonly refused: VersionedWrite[] = [];
  /** Rows another transaction holds, as `table:key` (`dialer_campaigns:k1`, `agent_presence:u1`). */
  readonly heldElsewhere = new Set<string>();
  private readonly savepoints = new Map<string, Saved>();
  /** Rows another writer steps right before the host's next versioned write of them (see interfere). */
  private readonly interference = new Set<string>();
  private nextOutboxId = 1;

  constructor(private readonly agents: ReadonlyMap<string, AgentRow> = new Map()) {
    super();
  }

  addCampaign(row: CampaignRow): void {
    this.campaigns.set(row.id, structuredClone(row));
  }

  /**
   * A draft campaign of `tenantId` as CampaignAdminService writes it: its columns filled (progressive,
   * 3 attempts) and its machine's first snapshot from `created` (CampaignHostService.createCampaign).
   */
  addDraftCampaign(
    id: string,
    tenantId: string,
    created: { snapshot: string; status: string },
    columns: Partial<CampaignRow> = {},
    at = new Date(),
  ): void {
    this.addCampaign({
      id,
      tenant_id: tenantId,
      name: 'Spring',
      phone_list_id: 'list-1',
      mode: 'progressive',
      abandon_cap_percent: '3',
      abandon_threshold_ms: 2000,
      max_attempts: 3,
      retry_delays: {},
      calling_windows: {},
      schedule_from: null,
      schedule_to: null,
      trunk_id: null,
      caller_id: null,
      agent_ids: [],
      status: created.status,
      snapshot: JSON.parse(created.snapshot) as CampaignRow['snapshot'],
      version: 1,
      last_event: 'xstate.init',
      created_at: at,
      timer_event: null,
      timer_at: null,
      updated_at: at,
      deleted_at: null,
      ...columns,
    });
  }

  addContact(contact: Partial<FakeContact> & Pick<FakeContact, 'id' | 'campaign_id'>): void {
    this.contacts.set(contact.id, {
      name: null,
      disposition: null,
      active_call_id: null,
      dialer_owner: null,
      preview_agent_id: null,
      preview_dial_at: null,
      preview_line_wait_since: null,
      last_outcome: null,
      finished: false,
      next_attempt_at: null,
      ...contact,
    });
  }

  /** Another writer stepped the row: its version moves and anything planned from the old one is refused. */
  moveVersion(table: 'outbound_calls' | 'dialer_campaigns', id: string): void {
    const row = this.tableOf(table).get(id);
    if (!row) throw new Error(`No ${table} row ${id}`);
    row.version += 1;
  }

  /** Another writer steps the row just before the host's next versioned write of it, after the host locked and read it. */
  interfere(table: 'outbound_calls' | 'dialer_campaigns', id: string): void {
    this.interference.add(`${table}:${id}`);
  }

  /** Log rows of one entity, in write order. */
  logOf(id: string): FakeLogRow[] {
    return this.log.filter((row) => row.id === id);
  }

  async callExists(_manager: EntityManager, id: string): Promise<boolean> {
    this.statements.push(`callExists:${id}`);
    return this.calls.has(id);
  }

  async insertCall(_manager: EntityManager, row: NewCallRow): Promise<CallRow | undefined> {
    this.statements.push(`insertCall:${row.id}`);
    // The table's unique keys: the id, (contact_id, attempt), and a live call's (tenant_id, phone).
    const clash = [...this.calls.values()].some(
      (call) =>
        call.id === row.id ||
        (call.contact_id === row.contactId && call.attempt === row.attempt) ||
        (call.tenant_id === row.tenantId && call.phone === row.phone && !FINAL_STATUSES.includes(call.status)),
    );
    if (clash) return undefined;
    const inserted: CallRow = {
      id: row.id,
      tenant_id: row.tenantId,
      campaign_id: row.campaignId,
      contact_id: row.contactId,
      phone: row.phone,
      attempt: row.attempt,
      status: row.status,
      snapshot: JSON.parse(row.snapshotJson) as CallRow['snapshot'],
      version: 1,
      last_event: row.lastEvent,
      outcome: null,
      disposition: null,
      agent_id: null,
      end_reason: null,
      created_at: row.at,
      answered_at: null,
      connected_at: null,
      hung_up_at: null,
      finished_at: null,
    };
    this.calls.set(row.id, inserted);
    return structuredClone(inserted);
  }

  async lockCall(_manager: EntityManager, id: string): Promise<CallRow | undefined> {
    return this.lock('lockCall', 'outbound_calls', this.calls, id);
  }

  async lockAnsweredCallFor(_manager: EntityManager, tenantId: string, agentId: string): Promise<string | undefined> {
    this.statements.push(`lockAnsweredCallFor:${agentId}`);
    const [call] = [...this.calls.values()]
      .filter((row) => {
        if (row.tenant_id !== tenantId || row.status !== 'answeredByHuman' || this.isHeld('outbound_calls', row.id)) return false;
        const agentIds = this.campaigns.get(row.campaign_id)?.agent_ids;
        const previewAgent = this.contacts.get(row.contact_id)?.preview_agent_id ?? null;
        return (
          agentIds !== undefined && (agentIds.length === 0 || agentIds.includes(agentId)) && (!previewAgent || previewAgent === agentId)
        );
      })
      .sort((a, b) => time(a.answered_at) - time(b.answered_at) || (a.id < b.id ? -1 : 1));
    return call?.id;
  }

  async lockDialerMatching(_manager: EntityManager, tenantId: string): Promise<void> {
    this.statements.push(`lockDialerMatching:${tenantId}`);
  }

  async lockWaitingAgent(_manager: EntityManager, userId: string): Promise<string | null> {
    this.statements.push(`lockWaitingAgent:${userId}`);
    const agent = this.agents.get(userId);
    return agent?.status === 'waitingOutboundCall' && !this.isHeld('agent_presence', userId) ? userId : null;
  }

  async lockWaitingCampaignAgent(_manager: EntityManager, tenantId: string, campaignId: string): Promise<string | null> {
    this.statements.push(`lockWaitingCampaignAgent:${campaignId}`);
    const campaign = this.campaigns.get(campaignId);
    if (!campaign) return null;
    const previewing = new Set([...this.contacts.values()].map((contact) => contact.preview_agent_id));
    const [agent] = [...this.agents.values()]
      .filter(
        (row) =>
          row.tenant_id === tenantId &&
          row.status === 'waitingOutboundCall' &&
          (campaign.agent_ids.length === 0 || campaign.agent_ids.includes(row.user_id)) &&
          !previewing.has(row.user_id) &&
          !this.isHeld('agent_presence', row.user_id),
      )
      .sort((a, b) => time(a.state_since) - time(b.state_since) || (a.user_id < b.user_id ? -1 : 1));
    return agent?.user_id ?? null;
  }

  async readPreviewAgentId(_manager: EntityManager, contactId: string): Promise<string | null> {
    this.statements.push(`readPreviewAgentId:${contactId}`);
    return this.contacts.get(contactId)?.preview_agent_id ?? null;
  }

  async readContactDisposition(_manager: EntityManager, contactId: string): Promise<string | null> {
    this.statements.push(`readContactDisposition:${contactId}`);
    return this.contacts.get(contactId)?.disposition ?? null;
  }

  async readContactName(_manager: EntityManager, contactId: string): Promise<string | null> {
    this.statements.push(`readContactName:${contactId}`);
    return this.contacts.get(contactId)?.name ?? null;
  }

  async readPreviewLineWait(_manager: EntityManager, callId: string): Promise<PreviewLineWait | undefined> {
    this.statements.push(`readPreviewLineWait:${callId}`);
    const contact = [...this.contacts.values()].find((row) => row.active_call_id === callId && row.preview_agent_id !== null);
    return contact ? { preview_agent_id: contact.preview_agent_id!, preview_line_wait_since: contact.preview_line_wait_since } : undefined;
  }

  async freeContactOfCall(_manager: EntityManager, callId: string): Promise<void> {
    this.statements.push(`freeContactOfCall:${callId}`);
    for (const contact of this.contacts.values()) {
      if (contact.active_call_id !== callId) continue;
      Object.assign(contact, { active_call_id: null, dialer_owner: null, preview_agent_id: null, preview_dial_at: null });
    }
  }

  async endAttempt(_manager: EntityManager, end: AttemptEnd): Promise<void> {
    this.statements.push(`endAttempt:${end.callId}`);
    const contact = this.contacts.get(end.contactId);
    if (!contact || contact.active_call_id !== end.callId) return;
    Object.assign(contact, {
      active_call_id: null,
      dialer_owner: null,
      preview_agent_id: null,
      preview_dial_at: null,
      last_outcome: end.outcome,
      finished: end.finished,
      next_attempt_at: end.retryAt ?? contact.next_attempt_at,
    });
  }

  async releaseLiveNumber(_manager: EntityManager, callId: string): Promise<void> {
    this.statements.push(`releaseLiveNumber:${callId}`);
    this.liveNumbers.delete(callId);
  }

  async lockCampaign(_manager: EntityManager, id: string): Promise<CampaignRow | undefined> {
    const row = this.lock('lockCampaign', 'dialer_campaigns', this.campaigns, id);
    return row?.deleted_at === null ? row : undefined;
  }

  async lockCampaignOfCall(_manager: EntityManager, campaignId: string): Promise<CampaignRow> {
    const row = this.lock('lockCampaignOfCall', 'dialer_campaigns', this.campaigns, campaignId);
    if (!row) throw new Error(`No dialer_campaigns row ${campaignId}`);
    return row;
  }

  async dueTimers(_manager: EntityManager, now: number, limit: number): Promise<string[]> {
    this.statements.push(`dueTimers:${now}`);
    return [...this.campaigns.values()]
      .filter((row) => row.timer_at !== null && row.deleted_at === null && Number(row.timer_at) <= now)
      .sort((a, b) => Number(a.timer_at) - Number(b.timer_at) || (a.id < b.id ? -1 : 1))
      .slice(0, limit)
      .map((row) => row.id);
  }

  async lockDueTimer(_manager: EntityManager, id: string, now: number): Promise<DueTimerRow | undefined> {
    this.statements.push(`lockDueTimer:${id}`);
    const row = this.campaigns.get(id);
    if (!row || row.timer_at === null || Number(row.timer_at) > now || row.deleted_at !== null) return undefined;
    if (this.isHeld('dialer_campaigns', id)) return undefined;
    return { id: row.id, timer_event: row.timer_event, timer_at: row.timer_at };
  }

  async clearTimer(_manager: EntityManager, id: string): Promise<void> {
    this.statements.push(`clearTimer:${id}`);
    const row = this.campaigns.get(id);
    if (row) Object.assign(row, { timer_event: null, timer_at: null });
  }

  async countOpenContacts(_manager: EntityManager, campaignId: string): Promise<number> {
    this.statements.push(`countOpenContacts:${campaignId}`);
    return [...this.contacts.values()].filter((contact) => contact.campaign_id === campaignId && !contact.finished).length;
  }

  async countPendingCallbacks(_manager: EntityManager, campaignId: string): Promise<number> {
    this.statements.push(`countPendingCallbacks:${campaignId}`);
    return this.callbacks.filter((callback) => callback.campaign_id === campaignId && callback.status === 'pending').length;
  }

  async savepoint(_manager: EntityManager, name: string): Promise<void> {
    this.statements.push(`savepoint:${name}`);
    this.savepoints.set(name, {
      calls: structuredClone(this.calls),
      campaigns: structuredClone(this.campaigns),
      contacts: structuredClone(this.contacts),
      liveNumbers: structuredClone(this.liveNumbers),
      log: this.log.length,
      outbox: this.outbox.length,
    });
  }

  async rollbackToSavepoint(_manager: EntityManager, name: string): Promise<void> {
    this.statements.push(`rollbackToSavepoint:${name}`);
    const saved = this.savepoints.get(name);
    if (!saved) throw new Error(`No savepoint ${name}`);
    for (const [target, source] of [
      [this.calls, saved.calls],
      [this.campaigns, saved.campaigns],
      [this.contacts, saved.contacts],
      [this.liveNumbers, saved.liveNumbers],
    ] as [Map<string, unknown>, Map<string, unknown>][]) {
      target.clear();
      for (const [key, value] of source) target.set(key, structuredClone(value));
    }
    this.log.length = saved.log;
    this.outbox.length = saved.outbox;
  }

  async appendLog(_manager: EntityManager, entry: LogEntry): Promise<void> {
    this.statements.push(`appendLog:${entry.id}`);
    this.log.push({ ...entry });
  }

  /** What writeVersioned's one statement does: the UPDATE if the version holds, then its log and outbox rows. */
  async writeVersioned<TRow>(_manager: EntityManager, write: VersionedWrite): Promise<Written<TRow> | null> {
    this.statements.push(`writeVersioned:${write.key.value}`);
    if (this.interference.delete(`${write.table}:${write.key.value}`)) {
      this.moveVersion(write.table as 'outbound_calls' | 'dialer_campaigns', write.key.value);
    }
    const row = this.tableOf(write.table as Table).get(write.key.value);
    if (!row || row.version !== write.version) {
      this.refused.push(write);
      return null;
    }
    const columns = row as unknown as Record<string, unknown>;
    for (const [column, value] of write.set) {
      if (column === 'snapshot') columns[column] = JSON.parse(value as string);
      // bigint: PostgreSQL answers it as text, as the hosts read it.
      else if (column === 'timer_at') columns[column] = value === null ? null : String(value as number);
      else columns[column] = value;
    }
    row.version += 1;
    this.log.push({
      entity: write.entity,
      id: write.key.value,
      tenantId: row.tenant_id,
      record: write.record,
      version: row.version,
      data: write.logData,
    });
    const records = this.queue(write.effects);
    return { row: structuredClone(row) as TRow, outboxIds: records.map((record) => record.id), records };
  }

  async writeOutbox(manager: EntityManager, effects: OutboxEffect[]): Promise<string[]> {
    this.statements.push('writeOutbox');
    const records = this.queue(effects);
    rememberWritten(
      manager,
      records.map((record) => record.id),
      records.map((record) => record.topic),
      records.map((record) => record.payload),
    );
    return records.map((record) => record.id);
  }

  /** Outbox rows as outboxColumns lays them out; ids apart from FakeMachineRows' ("o1", "o2"…). */
  private queue(effects: OutboxEffect[]): OutboxRecord[] {
    const { topics, payloads } = outboxColumns(effects);
    const rows = topics.map((topic, index) => ({ id: `o${this.nextOutboxId++}`, topic, payload: payloads[index] }));
    this.outbox.push(...rows);
    return rows;
  }

  private lock<TRow>(kind: string, table: Table, rows: Map<string, TRow>, key: string): TRow | undefined {
    this.statements.push(`${kind}:${key}`);
    if (this.isHeld(table, key)) throw new Error(`${table} ${key} is held by another transaction: ${kind} would wait`);
    const row = rows.get(key);
    return row === undefined ? undefined : structuredClone(row);
  }

  private isHeld(table: Table, key: string): boolean {
    return this.heldElsewhere.has(`${table}:${key}`);
  }

  private tableOf(table: Table): Map<string, CallRow | CampaignRow> {
    if (table === 'outbound_calls') return this.calls;
    if (table === 'dialer_campaigns') return this.campaigns;
    throw new Error(`FakeOutboundMachineRows writes no ${table}`);
  }
}

const time = (value: Date | null): number => (value === null ? Number.POSITIVE_INFINITY : new Date(value).getTime());
