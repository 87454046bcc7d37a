import type { EntityManager } from 'typeorm';
import { MachineRows, type NewAgentRow, type NewConversationRow, type QueueWaitRow } from './machine-rows';
import { outboxColumns, rememberWritten, type OutboxEffect, type OutboxRecord } from './outbox';
import type { LogEntry } from './transition-log';
import type { AtVersionInsert, CompanionInsert, VersionedWrite, Written } from './versioned-write';
import type { AgentRow, ConversationRow } from './views';

/** A transition_log row as the fake keeps it: as written. */
export type FakeLogRow = LogEntry;

type Table = 'conversations' | 'agent_presence';

/**
 * MachineRows over Maps, for the host's unit specs: rows are read and "locked" from the Maps, a
 * VersionedWrite is applied only while the row still has its version (null otherwise, writing
 * nothing), and every log row, outbox row and companion insert is kept so a spec can assert them.
 * `moveVersion` plays another process stepping a row behind the host's back.
 */
export class FakeMachineRows extends MachineRows {
  readonly conversations = new Map<string, ConversationRow>();
  readonly agents = new Map<string, AgentRow>();
  readonly log: FakeLogRow[] = [];
  readonly outbox: OutboxRecord[] = [];
  readonly companions: CompanionInsert[] = [];
  /** Every read and lock, in order (`readAgent:u1`), so a spec can tell a fresh read from a kept row. */
  readonly reads: string[] = [];
  /** Versioned writes refused because the row's version had moved. */
  readonly refused: VersionedWrite[] = [];
  /** The queue waits readQueueWait answers, by line. */
  readonly queueWaits = new Map<string, QueueWaitRow>();
  private nextOutboxId = 1;
  /** Rows another writer steps right before each of the host's next writes of them (see interfere). */
  private readonly interference = new Map<string, number>();

  addConversation(row: ConversationRow): void {
    this.conversations.set(row.id, structuredClone(row));
  }

  addAgent(row: AgentRow): void {
    this.agents.set(row.user_id, structuredClone(row));
  }

  /** Another writer stepped the row: its version moves and anything planned from the old one is refused. */
  moveVersion(table: Table, key: string): void {
    const row = this.tableOf(table).get(key);
    if (!row) throw new Error(`No ${table} row ${key}`);
    row.version += 1;
  }

  /**
   * Another writer steps the row just before each of the host's next `times` versioned writes of it,
   * so each of those finds the version moved since the host read the row.
   */
  interfere(table: Table, key: string, times: number): void {
    this.tableOf(table);
    this.interference.set(`${table}:${key}`, times);
  }

  /** Log rows of one entity, in write order. */
  logOf(id: string): FakeLogRow[] {
    return this.log.filter((row) => row.id === id);
  }

  async lockConversation(_manager: EntityManager, id: string): Promise<ConversationRow | undefined> {
    return this.read('lockConversation', this.conversations, id);
  }

  async readConversation(_manager: EntityManager, id: string): Promise<ConversationRow | undefined> {
    return this.read('readConversation', this.conversations, id);
  }

  async lockHeldConversations(_manager: EntityManager, agentId: string): Promise<ConversationRow[]> {
    this.reads.push(`lockHeldConversations:${agentId}`);
    return [...this.conversations.values()]
      .filter((row) => row.agent_id === agentId && row.status === 'Active')
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .map((row) => structuredClone(row));
  }

  async lockAgent(_manager: EntityManager, userId: string): Promise<AgentRow | undefined> {
    return this.read('lockAgent', this.agents, userId);
  }

  async readAgent(_manager: EntityManager, userId: string): Promise<AgentRow | undefined> {
    return this.read('readAgent', this.agents, userId);
  }

  async lockAgents(_manager: EntityManager, userIds: string[], tenantId: string | null): Promise<AgentRow[]> {
    this.reads.push(`lockAgents:${userIds.join(',')}`);
    return [...userIds].sort().flatMap((id) => {
      const row = this.agents.get(id);
      return row && (tenantId === null || row.tenant_id === tenantId) ? [structuredClone(row)] : [];
    });
  }

  async insertConversation(_manager: EntityManager, row: NewConversationRow): Promise<ConversationRow> {
    if (this.conversations.has(row.id)) throw new Error(`Duplicate conversation ${row.id}`);
    const inserted: ConversationRow = {
      id: row.id,
      tenant_id: row.tenantId,
      channel: row.channel,
      entry_line_id: row.entryLineId,
      attention_line_id: null,
      agent_id: null,
      status: row.status,
      priority: 0,
      queued_at: null,
      customer_name: row.customerName,
      customer_email: row.customerEmail,
      visitor_id: row.visitorId,
      snapshot: JSON.parse(row.snapshotJson) as ConversationRow['snapshot'],
      version: 1,
      last_event: row.lastEvent,
      created_at: row.at,
      updated_at: row.at,
      closed_at: null,
    };
    this.conversations.set(row.id, inserted);
    return structuredClone(inserted);
  }

  async insertAgent(_manager: EntityManager, row: NewAgentRow): Promise<boolean> {
    if (this.agents.has(row.userId)) return false;
    this.agents.set(row.userId, {
      user_id: row.userId,
      tenant_id: row.tenantId,
      name: row.userId,
      status: row.status,
      capacity: row.capacity,
      active_count: 0,
      snapshot: JSON.parse(row.snapshotJson) as AgentRow['snapshot'],
      version: 1,
      last_event: row.lastEvent,
      state_since: row.stateSince,
    });
    return true;
  }

  async appendLog(_manager: EntityManager, entry: LogEntry): Promise<void> {
    this.log.push({ ...entry });
  }

  async writeVersioned<TRow>(manager: EntityManager, write: VersionedWrite): Promise<Written<TRow> | null> {
    return this.apply<TRow>(manager, write);
  }

  async writeVersionedBatch<TRow>(manager: EntityManager, writes: VersionedWrite[]): Promise<(Written<TRow> | null)[]> {
    return writes.map((write) => this.apply<TRow>(manager, write));
  }

  async insertAtVersion<TRow>(_manager: EntityManager, write: AtVersionInsert): Promise<Written<TRow> | null> {
    const row = this.tableOf(write.table as Table).get(write.key.value);
    if (!row || row.version !== write.version) return null;
    this.companions.push(write.companion);
    const records = this.queue(write.effects);
    return { row: structuredClone(row) as TRow, outboxIds: records.map((record) => record.id), records };
  }

  async writeOutbox(manager: EntityManager, effects: OutboxEffect[]): Promise<string[]> {
    const records = this.queue(effects);
    rememberWritten(
      manager,
      records.map((record) => record.id),
      records.map((record) => record.topic),
      records.map((record) => record.payload),
    );
    return records.map((record) => record.id);
  }

  async readQueueWait(_manager: EntityManager, attentionLineId: string): Promise<QueueWaitRow> {
    return this.queueWaits.get(attentionLineId) ?? { line: null, tenant: null };
  }

  /** What writeVersioned's one statement does: the UPDATE if the version holds, then its log and outbox rows. */
  private apply<TRow>(_manager: EntityManager, write: VersionedWrite): Written<TRow> | null {
    const interfering = `${write.table}:${write.key.value}`;
    const times = this.interference.get(interfering) ?? 0;
    if (times > 0) {
      this.interference.set(interfering, times - 1);
      this.moveVersion(write.table as Table, write.key.value);
    }
    const row = this.tableOf(write.table as Table).get(write.key.value);
    if (!row || row.version !== write.version) {
      this.refused.push(write);
      return null;
    }
    const columns = row as unknown as Record<string, unknown>;
    for (const [column, value] of write.set) columns[column] = column === 'snapshot' ? JSON.parse(value as string) : value;
    row.version += 1;
    this.log.push({
      entity: write.entity,
      id: write.key.value,
      tenantId: row.tenant_id,
      record: write.record,
      version: row.version,
      data: write.logData,
    });
    if (write.companion) this.companions.push(write.companion);
    const records = this.queue(write.effects);
    return { row: structuredClone(row) as TRow, outboxIds: records.map((record) => record.id), records };
  }

  /** Outbox rows as outboxColumns lays them out (a step's pushes merged into one socket row). */
  private queue(effects: OutboxEffect[]): OutboxRecord[] {
    const { topics, payloads } = outboxColumns(effects);
    const rows = topics.map((topic, index) => ({ id: String(this.nextOutboxId++), topic, payload: payloads[index] }));
    this.outbox.push(...rows);
    return rows;
  }

  private read<TRow>(kind: string, table: Map<string, TRow>, key: string): TRow | undefined {
    this.reads.push(`${kind}:${key}`);
    const row = table.get(key);
    return row === undefined ? undefined : structuredClone(row);
  }

  private tableOf(table: Table): Map<string, ConversationRow | AgentRow> {
    if (table === 'conversations') return this.conversations;
    if (table === 'agent_presence') return this.agents;
    throw new Error(`FakeMachineRows holds no ${String(table)}`);
  }
}
