import { appendTransitionLog } from './transition-log';
import {
  agentPresenceMachine,
  conversationMachine,
  describeAgentState,
  describeConversationState,
  initial,
  isOpenConversationStatus,
  persist,
  restore,
  step,
  type Actor,
  type AgentPresenceContext,
  type AgentPresenceEvent,
  type ConversationContext,
  type ConversationEvent,
  type TransitionRecord,
  type AgentLogData,
  type ConversationLogData,
} from '@centralita/domain';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { OutboxRelay } from './outbox-relay.service';
import { rememberWritten, writeOutbox, writtenInTransaction, type OutboxEffect, type OutboxRecord } from './outbox';
import { REALTIME_CONFIG, type RealtimeConfig } from './realtime-config';
import { NaturalBatcher } from '../../common/natural-batcher';
import {
  insertAtVersion,
  writeVersioned,
  writeVersionedBatch,
  type ColumnTypes,
  type CompanionInsert,
  type VersionedWrite,
  type Written,
} from './versioned-write';
import { type AgentRow, type ConversationRow } from './views';
import { agentIntentEffects } from './effects/agent-effects';
import { conversationIntentEffects, readConversationPolicy, type ConversationIntent } from './effects/conversation-effects';
import { agentPush, conversationPush, routeAgentEffect } from './effects/effect-builders';
import { assertEmailCloseHasCase } from '../cases/email-close-rule';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type ConversationEventInput = DistributiveOmit<ConversationEvent, 'at' | 'actor'>;
export type AgentEventInput = DistributiveOmit<AgentPresenceEvent, 'at' | 'actor'>;
export type EntityType = 'conversation' | 'agent';

export interface Dispatched<TRow> {
  row: TRow;
  outboxIds: string[];
}

/** An agent event stepped in memory, ready to be written (see planAgentStep): `next` is the row as its write will leave it. */
export interface AgentStepPlan {
  current: AgentRow;
  next: AgentRow;
  snapshotJson: string;
  record: TransitionRecord;
  logData: AgentLogData | null;
  effects: OutboxEffect[];
  /**
   * Conversations the step hands back to their lines (the agent left holding them): the host
   * re-queues them in the step's own transaction (see dispatchAgent), never after it.
   */
  requeue: string[];
}

/**
 * What a customer whose conversation an agent left is told, written in the re-queuing transaction
 * (the conversations module registers it: RequeueNoticeService). Answers the effects to write.
 */
export type RequeueNotifier = (manager: EntityManager, conversation: ConversationRow) => Promise<OutboxEffect[]>;

/**
 * Run in the transaction of a step whose agent lets go of a conversation (closed, transferred,
 * re-queued), with the row as it was: what hangs on the agent handling it ends with it (the video
 * module ends a live call; the voice module drops a transferred call's agent leg). `after` is the row
 * as the step leaves it (where it went: Closed, LiningUp, Active with another agent). Answers the
 * effects to write with the step.
 */
export type ConversationReleaseHook = (
  manager: EntityManager,
  conversation: ConversationRow,
  after: ConversationRow,
) => Promise<OutboxEffect[]>;
/**
 * Called in the step's transaction when a conversation leaves for good (Closed, or Inquest after a
 * close), with the row as the step leaves it: what lives outside the conversation ends with it (the
 * voice module hangs up a live call). Answers the effects to write with the step.
 */
export type ConversationCloseHook = (manager: EntityManager, conversation: ConversationRow) => Promise<OutboxEffect[]>;

/**
 * Thrown inside a transaction run with `retry` to roll it back and run it again: the command found
 * it must lock a row it could only lock out of the global order (see MachineHostService.lockAgents).
 */
export class RetryTransaction extends Error {}

/** Attempts of a transaction run with `retry` (a deadlock or serialization failure, or RetryTransaction). */
const TRANSACTION_ATTEMPTS = 4;

/** PostgreSQL gave up on the transaction for a reason a second run would not meet: deadlock, serialization failure. */
function isRetryable(error: unknown): boolean {
  if (error instanceof RetryTransaction) return true;
  const failed = error as { code?: unknown; driverError?: { code?: unknown } } | null;
  const code = failed?.driverError?.code ?? failed?.code;
  return code === '40P01' || code === '40001';
}

/** How often an agent event alone is re-read and re-stepped when another event moved its version. */
const AGENT_WRITE_ATTEMPTS = 8;
/** Agents whose last row this process keeps (see lastAgentRows), and for how long after it was read. */
const AGENT_ROWS_KEPT = 5000;
const AGENT_ROW_FRESH_MS = 30_000;
/**
 * Agent events alone are group-committed (see agentWrites): at most this many statements in flight
 * at once, each writing up to AGENT_BATCH_MAX agents' steps. Two keeps a statement always ready to
 * go while the other is in PostgreSQL, and leaves the rest of the pool to everything else.
 */
const AGENT_WRITES_IN_FLIGHT = 2;
const AGENT_BATCH_MAX = 64;
/**
 * Customers' messages write their conversation's step alone, group-committed too. More statements
 * at once and smaller batches than agents': a message's latency is the product (P2 keeps its p99
 * under 100 ms at 500 msg/s with 4 × 16; 3 × 64 gave S1 the same throughput at ~150 ms).
 */
const CONVERSATION_WRITES_IN_FLIGHT = 4;
const CONVERSATION_BATCH_MAX = 16;
/** How often a conversation event alone is read and stepped again when its version moved. */
const CONVERSATION_WRITE_ATTEMPTS = 8;
const CONVERSATION_COLUMN_TYPES: ColumnTypes = {
  status: 'text',
  attention_line_id: 'uuid',
  agent_id: 'uuid',
  priority: 'int',
  queued_at: 'timestamptz',
  closed_at: 'timestamptz',
  snapshot: 'jsonb',
  last_event: 'text',
  updated_at: 'timestamptz',
};
const AGENT_COLUMN_TYPES: ColumnTypes = {
  status: 'text',
  capacity: 'int',
  active_count: 'int',
  snapshot: 'jsonb',
  last_event: 'text',
  state_since: 'timestamptz',
  updated_at: 'timestamptz',
};

export interface NewConversation {
  id: string;
  tenantId: string;
  channel: string;
  entryLineId: string;
  customerName: string;
  customerEmail: string | null;
  visitorId: string | null;
}

/** What the KPIs read on each log row besides the transition (libs/domain/src/kpi/kpi-log.ts). */
function conversationLogData(context: ConversationContext): ConversationLogData {
  return { channel: context.channel, attentionLineId: context.attentionLineId, agentId: context.agentId };
}
function agentLogData(
  record: TransitionRecord,
  context: AgentPresenceContext,
  input: AgentEventInput,
  requeue: string[],
): AgentLogData | null {
  const data: AgentLogData = {};
  if (record.to === 'paused') data.pauseReasonId = context.pauseReasonId;
  // The conversation an assignment or a release is about, and what a logout handed back.
  if (input.type === 'agent.conversationAssigned' || input.type === 'agent.conversationReleased')
    data.conversationId = input.conversationId;
  // The call's line and channel, when telephony gave them (per-line call AHT reads the row entering inCall).
  if (input.type === 'agent.callStarted') {
    if (input.attentionLineId) data.attentionLineId = input.attentionLineId;
    if (input.channel) data.channel = input.channel;
    if (input.conversationId) data.conversationId = input.conversationId;
  }
  if (requeue.length > 0) data.conversationIds = requeue;
  return Object.keys(data).length > 0 ? data : null;
}

function illegal(entity: EntityType, eventType: string, status: string): AppException {
  const noun = entity === 'conversation' ? 'the conversation' : 'the agent';
  return new AppException('illegal_transition', {
    message: `${eventType} is not allowed while ${noun} is ${status}`,
    data: { event: eventType, state: status },
  });
}

export function isIllegalTransition(error: unknown): boolean {
  return error instanceof AppException && error.code === 'illegal_transition';
}

/** Versioned writes of distinct rows: one statement either way (writeVersionedBatch for several). */
async function writeEach<TRow>(manager: EntityManager, writes: VersionedWrite[], types: ColumnTypes): Promise<(Written<TRow> | null)[]> {
  return writes.length === 1 ? [await writeVersioned<TRow>(manager, writes[0])] : writeVersionedBatch<TRow>(manager, writes, types);
}

/**
 * The only place machines run. Each dispatch is one transaction: lock the row, restore the
 * snapshot, step, write row + snapshot (version-checked) + one transition-log row + outbox rows
 * for the intents. After commit the relay delivers the outbox; its poller covers a crash between.
 *
 * Lock order — every command takes its row locks in this one order, so no two commands ever wait
 * for each other in a cycle (a deadlock, answered 500 before): a line's routing advisory lock, then
 * conversations by id, then agents by user id (lockAgents). A command that finds it must lock a
 * conversation after an agent (a logout racing an assignment) rolls back and runs again with it
 * first (RetryTransaction). A step's time is read once its command holds every row it writes, so a
 * lock wait never dates it before a step that committed ahead of it.
 */
@Injectable()
export class MachineHostService {
  /**
   * The row each agent event alone last wrote in this process, by agent, and when its name was
   * read. The agent's next event steps from it instead of reading the row again: one round trip
   * instead of two. It is only a guess: the write's version check refuses it when anything else
   * moved the row (another process, a transaction, a timer), and the event is then read and stepped
   * again exactly as before; a refusal by the machine is never trusted from it either. Entries
   * expire AGENT_ROW_FRESH_MS after the read, so a renamed user's pushes catch up.
   */
  private readonly lastAgentRows = new Map<string, { row: AgentRow; readAt: number }>();

  /**
   * Writes of agent events alone, group-committed: while AGENT_WRITES_IN_FLIGHT statements are in
   * PostgreSQL, the steps planned meanwhile (other agents' events) gather and go as one statement.
   * One agent's steps never share a statement: its later step waits for the next one.
   */
  /** Conversation steps written alone (customers' messages), group-committed the same way, one step per conversation per statement. */
  private readonly conversationWrites = new NaturalBatcher<VersionedWrite, Written<ConversationRow> | null>({
    maxInFlight: CONVERSATION_WRITES_IN_FLIGHT,
    maxBatch: CONVERSATION_BATCH_MAX,
    keyOf: (write) => write.key.value,
    run: (writes) => this.writeConversationSteps(writes),
  });

  private readonly agentWrites = new NaturalBatcher<AgentStepPlan, Written<AgentRow> | null>({
    maxInFlight: AGENT_WRITES_IN_FLIGHT,
    maxBatch: AGENT_BATCH_MAX,
    keyOf: (plan) => plan.current.user_id,
    run: (plans) => this.writeAgentSteps(plans),
  });

  private requeueNotifier: RequeueNotifier | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: OutboxRelay,
    @Inject(REALTIME_CONFIG) private readonly config: RealtimeConfig,
  ) {}

  private readonly releaseHooks: ConversationReleaseHook[] = [];

  /** Registers what ends when an agent lets go of a conversation (see ConversationReleaseHook). */
  onConversationReleased(hook: ConversationReleaseHook): void {
    this.releaseHooks.push(hook);
  }

  private readonly closeHooks: ConversationCloseHook[] = [];

  /** Registers what ends when a conversation is closed (see ConversationCloseHook). */
  onConversationClosed(hook: ConversationCloseHook): void {
    this.closeHooks.push(hook);
  }

  /** Registers what a re-queued customer is told (see requeueHeld); the host itself knows no channel. */
  onRequeued(notifier: RequeueNotifier): void {
    this.requeueNotifier = notifier;
  }

  /**
   * Runs `work` in one transaction and hands the outbox rows it wrote to the relay after commit.
   * With `retry`, a run PostgreSQL rolled back as a deadlock victim or serialization failure (or
   * that threw RetryTransaction) runs again, up to TRANSACTION_ATTEMPTS times, then answers 409:
   * `work` must then touch nothing but the database.
   */
  async transaction<T>(work: (manager: EntityManager, outbox: string[]) => Promise<T>, options: { retry?: boolean } = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const outbox: string[] = [];
      let records: OutboxRecord[] = [];
      try {
        const result = await this.dataSource.transaction(async (manager) => {
          const value = await work(manager, outbox);
          records = writtenInTransaction(manager);
          return value;
        });
        this.relay.kick(outbox, records);
        return result;
      } catch (error) {
        if (!options.retry || !isRetryable(error)) throw error;
        if (attempt >= TRANSACTION_ATTEMPTS) {
          throw new AppException('conflict', { message: 'Others changed these records at the same moment; try again' });
        }
      }
    }
  }

  dispatch(entity: 'conversation', id: string, event: ConversationEventInput, actor: Actor, tenantId?: string): Promise<ConversationRow>;
  dispatch(entity: 'agent', id: string, event: AgentEventInput, actor: Actor, tenantId?: string): Promise<AgentRow>;
  async dispatch(
    entity: EntityType,
    id: string,
    event: ConversationEventInput | AgentEventInput,
    actor: Actor,
    tenantId?: string,
  ): Promise<ConversationRow | AgentRow> {
    if (entity === 'agent') return this.dispatchAgentAlone(id, event as AgentEventInput, actor, tenantId);
    return this.transaction(
      async (manager, outbox) => {
        const result = await this.dispatchConversation(manager, id, event as ConversationEventInput, actor, tenantId);
        outbox.push(...result.outboxIds);
        return result.row;
      },
      { retry: true },
    );
  }

  /**
   * An agent event on its own (not part of a larger transaction): no explicit transaction and no row
   * lock. The row is read, stepped, and written by one statement whose version check makes it
   * atomic (update, log row and outbox rows commit together or not at all); when another event
   * moved the version in between, it is read and stepped again. Agent events are rare per agent, so
   * retries are too; this is what keeps a presence change at two round trips to PostgreSQL.
   */
  private async dispatchAgentAlone(userId: string, input: AgentEventInput, actor: Actor, tenantId?: string): Promise<AgentRow> {
    for (let attempt = 1; ; attempt++) {
      const kept = attempt === 1 ? this.keptAgentRow(userId) : undefined;
      const readAt = kept?.readAt ?? Date.now();
      const [current] = kept
        ? [kept.row]
        : ((await this.dataSource.query(`SELECT p.*, u.name FROM agent_presence p JOIN users u ON u.id = p.user_id WHERE p.user_id = $1`, [
            userId,
          ])) as AgentRow[]);
      if (!current || (tenantId !== undefined && current.tenant_id !== tenantId)) throw AppException.notFound();
      let plan: AgentStepPlan;
      try {
        plan = this.planAgentStep(current, input, actor);
      } catch (error) {
        // Refused on the kept row: it may be stale, so the answer comes from the table.
        if (kept) continue;
        throw error;
      }
      // Leaving with conversations: they go back to their lines in the same transaction.
      if (plan.requeue.length > 0) return this.dispatchAgentRequeuing(userId, input, actor, tenantId);
      const written = await this.agentWrites.submit(plan);
      if (written) {
        this.keepAgentRow(userId, written.row, readAt);
        this.relay.kick(written.outboxIds, written.records);
        return written.row;
      }
      this.lastAgentRows.delete(userId);
      if (attempt >= AGENT_WRITE_ATTEMPTS) throw new AppException('conflict', { message: 'The agent changed meanwhile; try again' });
    }
  }

  private keptAgentRow(userId: string): { row: AgentRow; readAt: number } | undefined {
    const kept = this.lastAgentRows.get(userId);
    if (kept && Date.now() - kept.readAt > AGENT_ROW_FRESH_MS) {
      this.lastAgentRows.delete(userId);
      return undefined;
    }
    return kept;
  }

  private keepAgentRow(userId: string, row: AgentRow, readAt: number): void {
    // Re-inserted so the Map's order is least recently written first: the oldest goes when full.
    this.lastAgentRows.delete(userId);
    this.lastAgentRows.set(userId, { row, readAt });
    if (this.lastAgentRows.size > AGENT_ROWS_KEPT) this.lastAgentRows.delete(this.lastAgentRows.keys().next().value!);
  }

  async lockConversation(manager: EntityManager, id: string, tenantId?: string): Promise<ConversationRow> {
    const [row] = (await manager.query(`SELECT * FROM conversations WHERE id = $1 FOR UPDATE`, [id])) as ConversationRow[];
    if (!row || (tenantId !== undefined && row.tenant_id !== tenantId)) throw AppException.notFound();
    return row;
  }

  async lockAgent(manager: EntityManager, userId: string, tenantId?: string): Promise<AgentRow> {
    const [row] = (await manager.query(
      `SELECT p.*, u.name FROM agent_presence p JOIN users u ON u.id = p.user_id WHERE p.user_id = $1 FOR UPDATE OF p`,
      [userId],
    )) as AgentRow[];
    if (!row || (tenantId !== undefined && row.tenant_id !== tenantId)) throw AppException.notFound();
    return row;
  }

  /**
   * Locks several agents' rows in user-id order (the lock order, see the class comment): two
   * commands that each need the same two agents — a transfer from A to B and one from B to A — then
   * wait for each other instead of each holding one and waiting for the other. Answers the rows
   * found (of the tenant, when given) by user id; null ids are skipped.
   */
  async lockAgents(manager: EntityManager, userIds: (string | null)[], tenantId?: string): Promise<Map<string, AgentRow>> {
    const ids = [...new Set(userIds.filter((id): id is string => id !== null))];
    if (ids.length === 0) return new Map();
    const rows = (await manager.query(
      `SELECT p.*, u.name FROM agent_presence p JOIN users u ON u.id = p.user_id
       WHERE p.user_id = ANY($1::uuid[]) AND ($2::uuid IS NULL OR p.tenant_id = $2)
       ORDER BY p.user_id FOR UPDATE OF p`,
      [ids, tenantId ?? null],
    )) as AgentRow[];
    return new Map(rows.map((row) => [row.user_id, row]));
  }

  /**
   * An agent step that hands conversations back (a logout while holding some), as one transaction:
   * the conversations Active with the agent are locked first (by id), then the agent; the agent's
   * step and every conversation's return to its line commit together. So what the presence holds
   * and what is Active with the agent never differ, and a re-login cannot be given conversations
   * on top of ones not yet re-queued. An assignment that commits between the two locks shows up in
   * the agent's row; then the transaction runs again, locking it first too.
   */
  private dispatchAgentRequeuing(userId: string, input: AgentEventInput, actor: Actor, tenantId?: string): Promise<AgentRow> {
    return this.transaction(
      async (manager, outbox) => {
        const held = (await manager.query(`SELECT * FROM conversations WHERE agent_id = $1 AND status = 'Active' ORDER BY id FOR UPDATE`, [
          userId,
        ])) as ConversationRow[];
        const agent = await this.lockAgent(manager, userId, tenantId);
        const holding = (agent.snapshot.context as unknown as AgentPresenceContext).activeConversationIds;
        if (holding.some((id) => !held.some((row) => row.id === id))) throw new RetryTransaction('An assignment committed meanwhile');
        const result = await this.dispatchAgent(manager, userId, input, actor, tenantId, agent, held);
        outbox.push(...result.outboxIds);
        return result.row;
      },
      { retry: true },
    );
  }

  /**
   * Puts conversations the agent left holding back on their lines, in the caller's transaction (a
   * system transfer to the conversation's own line; its release of the agent is a no-op, the agent
   * no longer holds them), and tells each customer so (onRequeued). A conversation no longer Active
   * with the agent, or without a line, is left as it is. `locked` are rows this transaction already holds (by id).
   */
  private async requeueHeld(
    manager: EntityManager,
    agentId: string,
    conversationIds: string[],
    locked: ConversationRow[],
  ): Promise<string[]> {
    const outboxIds: string[] = [];
    for (const id of [...conversationIds].sort()) {
      const row = locked.find((candidate) => candidate.id === id) ?? (await this.lockConversation(manager, id));
      if (row.status !== 'Active' || row.agent_id !== agentId || !row.attention_line_id) continue;
      const pollId = (row.snapshot.context as unknown as ConversationContext).pollId;
      const requeued = await this.dispatchConversation(
        manager,
        id,
        { type: 'conversation.transferred', to: { kind: 'line', attentionLineId: row.attention_line_id, pollId } },
        { kind: 'system' },
        undefined,
        row,
      );
      outboxIds.push(...requeued.outboxIds);
      // In the same transaction: the customer is told exactly when the conversation is back in the queue.
      if (this.requeueNotifier) outboxIds.push(...(await writeOutbox(manager, await this.requeueNotifier(manager, requeued.row))));
    }
    return outboxIds;
  }

  async createConversation(manager: EntityManager, input: NewConversation, actor: Actor): Promise<Dispatched<ConversationRow>> {
    const at = Date.now();
    const created = initial(conversationMachine, { id: input.id, tenantId: input.tenantId, channel: input.channel, at, actor });
    const status = describeConversationState(created.snapshot);
    const [row] = (await manager.query(
      `INSERT INTO conversations (id, tenant_id, channel, entry_line_id, status, customer_name, customer_email, visitor_id, snapshot, version, last_event, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 1, $10, $11, $11) RETURNING *`,
      [
        input.id,
        input.tenantId,
        input.channel,
        input.entryLineId,
        status,
        input.customerName,
        input.customerEmail,
        input.visitorId,
        JSON.stringify(persist(conversationMachine, created.snapshot)),
        created.record.event,
        new Date(at),
      ],
    )) as ConversationRow[];
    await appendTransitionLog(
      manager,
      'conversation',
      row.id,
      row.tenant_id,
      created.record,
      1,
      conversationLogData(created.snapshot.context),
    );
    const outboxIds = await writeOutbox(manager, [conversationPush(row, null)]);
    return { row, outboxIds };
  }

  /** Creates the presence row (logged out) the first time an agent is seen; no-op afterwards. */
  async ensureAgent(manager: EntityManager, userId: string, tenantId: string, capacity: number, pauseReasons: string[]): Promise<void> {
    const at = Date.now();
    const created = initial(agentPresenceMachine, {
      agentId: userId,
      tenantId,
      capacity,
      pauseReasons,
      at,
      actor: { kind: 'agent', id: userId },
    });
    const inserted: { user_id: string }[] = await manager.query(
      `INSERT INTO agent_presence (user_id, tenant_id, status, capacity, active_count, snapshot, version, last_event, state_since)
       VALUES ($1, $2, $3, $4, 0, $5, 1, $6, $7) ON CONFLICT (user_id) DO NOTHING RETURNING user_id`,
      [
        userId,
        tenantId,
        describeAgentState(created.snapshot),
        capacity,
        JSON.stringify(persist(agentPresenceMachine, created.snapshot)),
        created.record.event,
        new Date(at),
      ],
    );
    if (inserted.length > 0) await appendTransitionLog(manager, 'agent', userId, tenantId, created.record, 1);
  }

  async dispatchConversation(
    manager: EntityManager,
    id: string,
    input: ConversationEventInput,
    actor: Actor,
    tenantId?: string,
    /** The row as this transaction already locked it (FOR UPDATE), to skip reading it again. */
    locked?: ConversationRow,
  ): Promise<Dispatched<ConversationRow>> {
    const current = locked?.id === id ? locked : await this.lockConversation(manager, id, tenantId);
    await assertEmailCloseHasCase(manager, current, input.type, actor);
    const { plan, agents } = await this.planWithAgentsLocked(manager, current, input, actor);
    // Effects first (a released agent is stepped in this same transaction, its rows written before
    // ours, as they always were); then the conversation's row, log row and outbox in one statement.
    const outboxIds: string[] = [];
    const effects = await this.conversationEffects(manager, current, plan.next, plan.intents, actor, outboxIds, agents);
    effects.push(conversationPush(plan.next, current));
    const written = await writeVersioned<ConversationRow>(manager, this.conversationWrite(plan, effects));
    if (!written) throw new AppException('conflict', { message: 'The conversation changed meanwhile; try again' });
    this.remember(manager, written);
    outboxIds.push(...written.outboxIds);
    return { row: written.row, outboxIds };
  }

  /**
   * A conversation event written without a transaction or row lock, by one statement (versioned
   * UPDATE, log row, outbox rows and the caller's `companion` INSERT), then handed to the relay —
   * for steps whose only effect is their push (a customer's message). Answers null, having written
   * nothing, when the version moved since `current` was read (the caller reads again and retries),
   * and 'needs-transaction' when the step has intents: their effects may write other rows, so it
   * must go through `dispatchConversation` under the row lock.
   */
  async writeConversationAlone(
    current: ConversationRow,
    input: ConversationEventInput,
    actor: Actor,
    extra: { effects: OutboxEffect[]; companion?: VersionedWrite['companion'] },
  ): Promise<Written<ConversationRow> | null | 'needs-transaction'> {
    const plan = this.planConversationStep(current, input, actor);
    if (plan.intents.length > 0) return 'needs-transaction';
    const effects = [conversationPush(plan.next, current), ...extra.effects];
    const written = await this.conversationWrites.submit({ ...this.conversationWrite(plan, effects), companion: extra.companion });
    if (written) this.relay.kick(written.outboxIds, written.records);
    return written;
  }

  /**
   * A row of a conversation that is no step of its machine (an agent's message), with its outbox
   * rows, in one statement outside any transaction: written only while the conversation still has
   * the version of `current`, the row the caller checked (insertAtVersion); then handed to the
   * relay. Null, having written nothing, when the version moved.
   */
  async insertAtConversationVersion(
    current: ConversationRow,
    extra: { effects: OutboxEffect[]; companion: CompanionInsert },
  ): Promise<Written<ConversationRow> | null> {
    const written = await insertAtVersion<ConversationRow>(this.dataSource.manager, {
      table: 'conversations',
      key: { column: 'id', value: current.id },
      version: current.version,
      ...extra,
    });
    if (written) this.relay.kick(written.outboxIds, written.records);
    return written;
  }

  /**
   * A conversation event on its own, without a transaction or a row lock, when its effects write
   * no other row (everything but releasing an agent, which steps the agent in the same
   * transaction): step from `current` (the caller's fresh read) or a read, then one versioned
   * statement with its log and outbox rows (group-committed). If the version moved meanwhile, it
   * is read and stepped again; a refusal on the caller's row is checked against a fresh read. A
   * step that releases an agent takes the locked transaction (`dispatch`).
   */
  async dispatchConversationAlone(
    id: string,
    input: ConversationEventInput,
    actor: Actor,
    tenantId: string,
    current?: ConversationRow,
  ): Promise<ConversationRow> {
    for (let attempt = 1; attempt <= CONVERSATION_WRITE_ATTEMPTS; attempt++) {
      const given = attempt === 1 ? current : undefined;
      const row = given ?? (await this.readConversation(id, tenantId));
      await assertEmailCloseHasCase(this.dataSource.manager, row, input.type, actor);
      let plan: ReturnType<MachineHostService['planConversationStep']>;
      try {
        plan = this.planConversationStep(row, input, actor);
      } catch (error) {
        if (given && isIllegalTransition(error)) continue;
        throw error;
      }
      if (plan.intents.some((intent) => intent.type === 'releaseAgent')) return this.dispatch('conversation', id, input, actor, tenantId);
      const effects = await this.conversationEffects(this.dataSource.manager, row, plan.next, plan.intents, actor, []);
      effects.push(conversationPush(plan.next, row));
      const written = await this.conversationWrites.submit(this.conversationWrite(plan, effects));
      if (written) {
        this.relay.kick(written.outboxIds, written.records);
        return written.row;
      }
    }
    throw new AppException('conflict', { message: 'The conversation changed meanwhile; try again' });
  }

  private async readConversation(id: string, tenantId: string): Promise<ConversationRow> {
    const [row] = (await this.dataSource.query(`SELECT * FROM conversations WHERE id = $1`, [id])) as ConversationRow[];
    if (!row || row.tenant_id !== tenantId) throw AppException.notFound();
    return row;
  }

  /** Conversation steps outside any transaction, one statement for all (see writeVersionedBatch). */
  private async writeConversationSteps(writes: VersionedWrite[]): Promise<(Written<ConversationRow> | null)[]> {
    const manager = this.dataSource.manager;
    if (writes.length === 1) return [await writeVersioned<ConversationRow>(manager, writes[0])];
    // One shape per statement: steps with a companion (customers' messages) and without go apart.
    const withCompanion = writes.filter((write) => write.companion);
    const without = writes.filter((write) => !write.companion);
    const results = new Map<VersionedWrite, Written<ConversationRow> | null>();
    for (const group of [withCompanion, without]) {
      if (group.length === 0) continue;
      const written = await writeVersionedBatch<ConversationRow>(manager, group, CONVERSATION_COLUMN_TYPES);
      group.forEach((write, index) => results.set(write, written[index]));
    }
    return writes.map((write) => results.get(write) ?? null);
  }

  /**
   * Plans a step of a conversation this transaction holds. A step that releases its agent needs
   * the agent's row too: it is locked (after the conversation, as the lock order says) and the step
   * planned again, so its time is read after any wait for that lock, not before it.
   */
  private async planWithAgentsLocked(manager: EntityManager, current: ConversationRow, input: ConversationEventInput, actor: Actor) {
    const first = this.planConversationStep(current, input, actor);
    const released = first.intents.flatMap((intent) => (intent.type === 'releaseAgent' ? [intent.params.agentId] : []));
    if (released.length === 0) return { plan: first, agents: new Map<string, AgentRow>() };
    const agents = await this.lockAgents(manager, released);
    return { plan: this.planConversationStep(current, input, actor), agents };
  }

  /** Steps the conversation's machine (no I/O) and works out the row as the write will leave it. */
  private planConversationStep(current: ConversationRow, input: ConversationEventInput, actor: Actor) {
    const snapshot = restore(conversationMachine, current.snapshot as never);
    const result = step(conversationMachine, snapshot, { ...input, at: Date.now(), actor } as ConversationEvent);
    if (!result.changed || !result.record) throw illegal('conversation', input.type, current.status);
    const context = result.snapshot.context;
    const persisted = persist(conversationMachine, result.snapshot) as ConversationRow['snapshot'];
    // The row as the update will leave it: the pushed view is built from it.
    const next: ConversationRow = {
      ...current,
      status: describeConversationState(result.snapshot),
      attention_line_id: context.attentionLineId,
      agent_id: context.agentId,
      priority: context.priority,
      queued_at: context.queuedAt === null ? null : new Date(context.queuedAt),
      closed_at: context.closedAt === null ? null : new Date(context.closedAt),
      snapshot: persisted,
      version: current.version + 1,
      last_event: input.type,
      updated_at: new Date(result.record.at),
    };
    return { current, next, persisted, record: result.record, intents: result.intents, context };
  }

  private conversationWrite(plan: ReturnType<MachineHostService['planConversationStep']>, effects: OutboxEffect[]): VersionedWrite {
    const { current, next } = plan;
    return {
      table: 'conversations',
      key: { column: 'id', value: current.id },
      version: current.version,
      set: [
        ['status', next.status],
        ['attention_line_id', next.attention_line_id],
        ['agent_id', next.agent_id],
        ['priority', next.priority],
        ['queued_at', next.queued_at],
        ['closed_at', next.closed_at],
        ['snapshot', JSON.stringify(plan.persisted)],
        ['last_event', next.last_event],
        ['updated_at', next.updated_at],
      ],
      entity: 'conversation',
      record: plan.record,
      logData: conversationLogData(plan.context),
      effects,
    };
  }

  /** Hands a one-statement write's outbox rows to the transaction's list, for the relay after commit. */
  private remember(manager: EntityManager, written: Written<unknown>): void {
    rememberWritten(
      manager,
      written.outboxIds,
      written.records.map((record) => record.topic),
      written.records.map((record) => record.payload),
    );
  }

  async dispatchAgent(
    manager: EntityManager,
    userId: string,
    input: AgentEventInput,
    actor: Actor,
    tenantId?: string,
    /** The row as this transaction already locked it (FOR UPDATE, with the user's name), to skip reading it again. */
    locked?: AgentRow,
    /** Conversations this transaction already locked, for a step that re-queues them (see dispatchAgentRequeuing). */
    lockedConversations: ConversationRow[] = [],
  ): Promise<Dispatched<AgentRow>> {
    // A transaction moves the row: the kept one would only cost a refused write.
    this.lastAgentRows.delete(userId);
    const current = locked?.user_id === userId ? locked : await this.lockAgent(manager, userId, tenantId);
    const plan = this.planAgentStep(current, input, actor);
    const written = await this.writeAgentStep(manager, plan);
    if (!written) throw new AppException('conflict', { message: 'The agent changed meanwhile; try again' });
    this.remember(manager, written);
    const outboxIds = [...written.outboxIds];
    if (plan.requeue.length > 0) outboxIds.push(...(await this.requeueHeld(manager, userId, plan.requeue, lockedConversations)));
    return { row: written.row, outboxIds };
  }

  /**
   * Plans a conversation step on a row this transaction holds FOR UPDATE, with its effects, without
   * writing the row (see planAgentStep). Effects that write other rows (releasing an agent)
   * are written at once, as in dispatchConversation; their outbox ids are in `outboxIds`.
   */
  async planLockedConversationStep(
    manager: EntityManager,
    current: ConversationRow,
    input: ConversationEventInput,
    actor: Actor,
  ): Promise<{ write: VersionedWrite; outboxIds: string[] }> {
    await assertEmailCloseHasCase(manager, current, input.type, actor);
    const { plan, agents } = await this.planWithAgentsLocked(manager, current, input, actor);
    const outboxIds: string[] = [];
    const effects = await this.conversationEffects(manager, current, plan.next, plan.intents, actor, outboxIds, agents);
    effects.push(conversationPush(plan.next, current));
    return { write: this.conversationWrite(plan, effects), outboxIds };
  }

  /**
   * Writes steps planned on rows this transaction holds (planAgentStep, planLockedConversationStep) in as few statements as one entity per statement allows: the
   * conversations in one, the agents in one per step an agent took (an agent given two
   * conversations writes its second step in a second statement, after the first). Each row keeps
   * its version check and its own log and outbox rows, exactly as one dispatch each would write
   * them; the rows are locked, so a moved version means a bug and aborts the transaction. Answers
   * the outbox ids written.
   */
  async writeLockedSteps(manager: EntityManager, agents: AgentStepPlan[], conversations: VersionedWrite[]): Promise<string[]> {
    const outboxIds: string[] = [];
    const check = <TRow>(written: (Written<TRow> | null)[], entity: 'agent' | 'conversation') => {
      for (const one of written) {
        if (!one) throw new AppException('conflict', { message: `The ${entity} changed meanwhile; try again` });
        this.remember(manager, one);
        outboxIds.push(...one.outboxIds);
      }
    };
    // Waves: the first step of every agent, then the second of those who took two, and so on.
    const waves: AgentStepPlan[][] = [];
    const stepsTaken = new Map<string, number>();
    for (const plan of agents) {
      // Re-queueing writes conversations after the agent: only dispatchAgent does that.
      if (plan.requeue.length > 0) throw new Error(`writeLockedSteps cannot write ${plan.record.event}, which re-queues conversations`);
      const wave = stepsTaken.get(plan.current.user_id) ?? 0;
      stepsTaken.set(plan.current.user_id, wave + 1);
      (waves[wave] ??= []).push(plan);
      // A transaction moves the row: the kept one would only cost a refused write.
      this.lastAgentRows.delete(plan.current.user_id);
    }
    for (const wave of waves)
      check(
        await writeEach<AgentRow>(
          manager,
          wave.map((plan) => this.agentWrite(plan)),
          AGENT_COLUMN_TYPES,
        ),
        'agent',
      );
    if (conversations.length > 0)
      check(await writeEach<ConversationRow>(manager, conversations, CONVERSATION_COLUMN_TYPES), 'conversation');
    return outboxIds;
  }

  /**
   * Steps the agent's machine (no I/O) and works out the row, log row and effects to write; refuses
   * an illegal event (illegal_transition). A caller making many steps on rows its transaction holds
   * FOR UPDATE (routing) plans them all from the rows it holds (an agent's second step from its
   * first plan's `next`), then writes them together with writeLockedSteps.
   */
  planAgentStep(current: AgentRow, input: AgentEventInput, actor: Actor): AgentStepPlan {
    const snapshot = restore(agentPresenceMachine, current.snapshot as never);
    const result = step(agentPresenceMachine, snapshot, { ...input, at: Date.now(), actor } as AgentPresenceEvent);
    if (!result.changed || !result.record) throw illegal('agent', input.type, current.status);
    const context = result.snapshot.context;
    const persisted = persist(agentPresenceMachine, result.snapshot) as AgentRow['snapshot'];
    // The row as the update will leave it: the pushed view and the effects are built from it.
    const next: AgentRow = {
      ...current,
      status: describeAgentState(result.snapshot),
      capacity: context.capacity,
      active_count: context.activeConversationIds.length,
      snapshot: persisted,
      version: current.version + 1,
      last_event: input.type,
      state_since: new Date(context.lastStateChangeAt),
    };
    const effects = agentIntentEffects(current.snapshot.context as unknown as AgentPresenceContext, next, result.intents, this.config);
    const requeue = result.intents.flatMap((intent) => (intent.type === 'requeueConversations' ? intent.params.conversationIds : []));
    // A chat let go during a call frees room the line's chats-during-call rule may give again (the
    // machine offers capacity only in ready; routing applies the blended rule).
    const freedOnCall = next.status === 'inCall' && input.type === 'agent.conversationReleased';
    if ((current.status !== next.status || freedOnCall) && !result.intents.some((intent) => intent.type === 'requestAssignment')) {
      // No capacity offered (a pause, a logout…), but the queues' "agents available" changed: refresh them.
      effects.push(routeAgentEffect(next));
    }
    effects.push(agentPush(next));
    return {
      current,
      next,
      snapshotJson: JSON.stringify(persisted),
      record: result.record,
      logData: agentLogData(result.record, context, input, requeue),
      effects,
      requeue,
    };
  }

  /** Writes a planned agent step (one statement, see writeVersioned); null when the version moved. */
  private async writeAgentStep(manager: EntityManager, plan: AgentStepPlan): Promise<Written<AgentRow> | null> {
    const written = await writeVersioned<AgentRow>(manager, this.agentWrite(plan));
    return written && { ...written, row: { ...written.row, name: plan.current.name } };
  }

  /** Several agents' planned steps outside any transaction, one statement (see writeVersionedBatch). */
  private async writeAgentSteps(plans: AgentStepPlan[]): Promise<(Written<AgentRow> | null)[]> {
    if (plans.length === 1) return [await this.writeAgentStep(this.dataSource.manager, plans[0])];
    const written = await writeVersionedBatch<AgentRow>(
      this.dataSource.manager,
      plans.map((plan) => this.agentWrite(plan)),
      AGENT_COLUMN_TYPES,
    );
    return written.map((one, index) => one && { ...one, row: { ...one.row, name: plans[index].current.name } });
  }

  private agentWrite(plan: AgentStepPlan): VersionedWrite {
    const { current, next } = plan;
    return {
      table: 'agent_presence',
      key: { column: 'user_id', value: current.user_id },
      version: current.version,
      set: [
        ['status', next.status],
        ['capacity', next.capacity],
        ['active_count', next.active_count],
        ['snapshot', plan.snapshotJson],
        ['last_event', next.last_event],
        ['state_since', next.state_since],
        ['updated_at', new Date()],
      ],
      entity: 'agent',
      record: plan.record,
      logData: plan.logData,
      effects: plan.effects,
    };
  }

  /**
   * A conversation step's effects: the plain ones from the pure conversationIntentEffects (policy
   * read first), then those of the intents that run in this transaction (runInTransactionIntents).
   * Plain effects are jobs only, so running the transaction's work after them changes no socket
   * push's order.
   */
  private async conversationEffects(
    manager: EntityManager,
    before: ConversationRow,
    after: ConversationRow,
    intents: ConversationIntent[],
    actor: Actor,
    outboxIds: string[],
    /** Agents' rows this transaction holds (see planWithAgentsLocked), by user id. */
    agents: Map<string, AgentRow> = new Map(),
  ): Promise<OutboxEffect[]> {
    const policy = await readConversationPolicy(manager, after, intents, this.config, Date.now());
    const effects = conversationIntentEffects(before, after, intents, policy);
    effects.push(...(await this.runInTransactionIntents(manager, before, after, intents, actor, outboxIds, agents)));
    return effects;
  }

  /**
   * The conversation intents that must run in the step's transaction (releaseAgent, startInquest)
   * and the close that happens once: the agent's release is stepped here so their load is exact the
   * moment the conversation leaves them (its outbox ids go to `outboxIds`), and the release and
   * close hooks answer the effects to write with the step.
   */
  private async runInTransactionIntents(
    manager: EntityManager,
    before: ConversationRow,
    after: ConversationRow,
    intents: ConversationIntent[],
    actor: Actor,
    outboxIds: string[],
    agents: Map<string, AgentRow>,
  ): Promise<OutboxEffect[]> {
    const effects: OutboxEffect[] = [];
    for (const intent of intents) {
      if (intent.type === 'releaseAgent') {
        const { agentId, conversationId, disposition } = intent.params;
        for (const hook of this.releaseHooks) effects.push(...(await hook(manager, before, after)));
        const agent = agents.get(agentId);
        // Re-queued by the agent's own logout, in this transaction: nothing left to release.
        if (agent && !(agent.snapshot.context as unknown as AgentPresenceContext).activeConversationIds.includes(conversationId)) continue;
        try {
          const released = await this.dispatchAgent(
            manager,
            agentId,
            { type: 'agent.conversationReleased', conversationId, ...(disposition ? { disposition } : {}) },
            actor,
            undefined,
            agent,
          );
          outboxIds.push(...released.outboxIds);
        } catch (error) {
          // The agent already let go (logged out, requeued): nothing to release.
          if (!isIllegalTransition(error) && !(error instanceof AppException && error.code === 'not_found')) throw error;
        }
      } else if (intent.type === 'startInquest') {
        // Closed by someone, the customer only answers the poll now.
        for (const hook of this.closeHooks) effects.push(...(await hook(manager, after)));
      }
    }
    // Closed: once, whichever way (an Inquest ending reaches Closed again and is not a new close).
    if (after.status === 'Closed' && isOpenConversationStatus(before.status)) {
      for (const hook of this.closeHooks) effects.push(...(await hook(manager, after)));
    }
    return effects;
  }
}
