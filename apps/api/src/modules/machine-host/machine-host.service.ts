import { type Actor, type AgentPresenceContext, type ConversationContext } from '@centralita/domain';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { assertEmailCloseHasCase } from '../cases/email-close-rule';
import { AgentRowCache } from './agent-row-cache';
import { ConversationHooks, type ConversationCloseHook, type ConversationReleaseHook, type RequeueNotifier } from './conversation-hooks';
import { agentStepEffects } from './effects/agent-effects';
import { ConversationStepEffects } from './conversation-step-effects';
import { conversationPush } from './effects/effect-builders';
import {
  agentBinding,
  conversationBinding,
  requeuedBy,
  type AgentEventInput,
  type AgentStepPlan,
  type ConversationEventInput,
  type ConversationStepPlan,
} from './machine-bindings';
import { MachineRows, ofTenant, PgMachineRows, type NewConversation } from './machine-rows';
import { isIllegalTransition, planCreate, planStep, stepWrite } from './machine-runner';
import { RetryTransaction, runMachineTransaction } from './machine-transaction';
import { MachineWrites, rememberInTransaction } from './machine-writes';
import type { OutboxEffect } from './outbox';
import { OutboxRelay } from './outbox-relay.service';
import { REALTIME_CONFIG, type RealtimeConfig } from './realtime-config';
import type { CompanionInsert, VersionedWrite, Written } from './versioned-write';
import type { AgentRow, ConversationRow } from './views';

// The host's public seam: other modules import these from here.
export { isIllegalTransition } from './machine-runner';
export { RetryTransaction } from './machine-transaction';
export type { AgentEventInput, AgentStepPlan, ConversationEventInput, ConversationStepPlan } from './machine-bindings';
export type { ConversationCloseHook, ConversationReleaseHook, RequeueNotifier } from './conversation-hooks';
export type { NewConversation } from './machine-rows';

export type EntityType = 'conversation' | 'agent';

export interface Dispatched<TRow> {
  row: TRow;
  outboxIds: string[];
}

/** How often an agent event alone is re-read and re-stepped when another event moved its version. */
const AGENT_WRITE_ATTEMPTS = 8;
/** How often a conversation event alone is read and stepped again when its version moved. */
const CONVERSATION_WRITE_ATTEMPTS = 8;

/**
 * Where the conversation and agent-presence machines are dispatched. Each step goes through the
 * runner (machine-runner.ts: restore → step → the row the step leaves → one versioned write with
 * its log row and outbox rows, see machine-bindings.ts); this class chooses the path — locked in a
 * transaction, or alone with a version check and group commit — and runs the intents whose work
 * belongs in the step's transaction. Rows are reached through MachineRows only. After commit the
 * relay delivers the outbox; its poller covers a crash between.
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
  private readonly rows: MachineRows;
  private readonly writes: MachineWrites;
  private readonly agentRows = new AgentRowCache();
  private readonly hooks = new ConversationHooks();
  private readonly stepEffects: ConversationStepEffects;

  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: OutboxRelay,
    @Inject(REALTIME_CONFIG) private readonly config: RealtimeConfig,
    // Nest injects the module's MachineRows; processes that build the host by hand get PostgreSQL's.
    @Optional() @Inject(MachineRows) rows?: MachineRows,
  ) {
    this.rows = rows ?? new PgMachineRows();
    this.writes = new MachineWrites(this.rows, dataSource);
    this.stepEffects = new ConversationStepEffects(this.rows, this.hooks, config, (manager, agentId, input, actor, locked) =>
      this.dispatchAgent(manager, agentId, input, actor, undefined, locked),
    );
  }

  /** Registers what ends when an agent lets go of a conversation (see ConversationReleaseHook). */
  onConversationReleased(hook: ConversationReleaseHook): void {
    this.hooks.onReleased(hook);
  }

  /** Registers what ends when a conversation is closed (see ConversationCloseHook). */
  onConversationClosed(hook: ConversationCloseHook): void {
    this.hooks.onClosed(hook);
  }

  /** Registers what a re-queued customer is told (see requeueHeld); the host itself knows no channel. */
  onRequeued(notifier: RequeueNotifier): void {
    this.hooks.onRequeued(notifier);
  }

  /** One transaction, its outbox handed to the relay after commit; `retry` runs it again on a deadlock (machine-transaction.ts). */
  transaction<T>(work: (manager: EntityManager, outbox: string[]) => Promise<T>, options: { retry?: boolean } = {}): Promise<T> {
    return runMachineTransaction(this.dataSource, this.relay, work, options);
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
      const kept = attempt === 1 ? this.agentRows.kept(userId) : undefined;
      const readAt = kept?.readAt ?? Date.now();
      const current = ofTenant(kept ? kept.row : await this.rows.readAgent(this.dataSource.manager, userId), tenantId);
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
      const written = await this.writes.agentAlone(plan);
      if (written) {
        this.agentRows.keep(userId, written.row, readAt);
        this.relay.kick(written.outboxIds, written.records);
        return written.row;
      }
      this.agentRows.forget(userId);
      if (attempt >= AGENT_WRITE_ATTEMPTS) throw new AppException('conflict', { message: 'The agent changed meanwhile; try again' });
    }
  }

  async lockConversation(manager: EntityManager, id: string, tenantId?: string): Promise<ConversationRow> {
    return ofTenant(await this.rows.lockConversation(manager, id), tenantId);
  }

  async lockAgent(manager: EntityManager, userId: string, tenantId?: string): Promise<AgentRow> {
    return ofTenant(await this.rows.lockAgent(manager, userId), tenantId);
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
    const rows = await this.rows.lockAgents(manager, ids, tenantId ?? null);
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
        const held = await this.rows.lockHeldConversations(manager, userId);
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
      const notice = this.hooks.requeued(manager, requeued.row);
      if (notice) outboxIds.push(...(await this.rows.writeOutbox(manager, await notice)));
    }
    return outboxIds;
  }

  async createConversation(manager: EntityManager, input: NewConversation, actor: Actor): Promise<Dispatched<ConversationRow>> {
    const at = Date.now();
    const created = planCreate(conversationBinding, { id: input.id, tenantId: input.tenantId, channel: input.channel }, actor, at);
    const row = await this.rows.insertConversation(manager, {
      ...input,
      status: created.status,
      snapshotJson: created.snapshotJson,
      lastEvent: created.lastEvent,
      at: new Date(at),
    });
    await this.rows.appendLog(manager, {
      entity: 'conversation',
      id: row.id,
      tenantId: row.tenant_id,
      record: created.record,
      version: 1,
      data: created.logData,
    });
    const outboxIds = await this.rows.writeOutbox(manager, [conversationPush(row, null)]);
    return { row, outboxIds };
  }

  /** Creates the presence row (logged out) the first time an agent is seen; no-op afterwards. */
  async ensureAgent(manager: EntityManager, userId: string, tenantId: string, capacity: number, pauseReasons: string[]): Promise<void> {
    const at = Date.now();
    const created = planCreate(agentBinding, { agentId: userId, tenantId, capacity, pauseReasons }, { kind: 'agent', id: userId }, at);
    const inserted = await this.rows.insertAgent(manager, {
      userId,
      tenantId,
      status: created.status,
      capacity,
      snapshotJson: created.snapshotJson,
      lastEvent: created.lastEvent,
      stateSince: new Date(at),
    });
    if (inserted)
      await this.rows.appendLog(manager, {
        entity: 'agent',
        id: userId,
        tenantId,
        record: created.record,
        version: 1,
        data: created.logData,
      });
  }

  async dispatchConversation(
    manager: EntityManager,
    id: string,
    input: ConversationEventInput,
    actor: Actor,
    tenantId?: string,
    /** The row as this transaction already locked it (FOR NO KEY UPDATE), to skip reading it again. */
    locked?: ConversationRow,
  ): Promise<Dispatched<ConversationRow>> {
    const current = locked?.id === id ? locked : await this.lockConversation(manager, id, tenantId);
    await assertEmailCloseHasCase(manager, current, input.type, actor);
    const { plan, agents } = await this.planWithAgentsLocked(manager, current, input, actor);
    // Effects first (a released agent is stepped in this same transaction, its rows written before
    // ours, as they always were); then the conversation's row, log row and outbox in one statement.
    const outboxIds: string[] = [];
    const effects = await this.stepEffects.effects(manager, current, plan.next, plan.intents, actor, outboxIds, agents);
    effects.push(conversationPush(plan.next, current));
    const written = await this.rows.writeVersioned<ConversationRow>(manager, stepWrite(conversationBinding, plan, effects));
    if (!written) throw new AppException('conflict', { message: 'The conversation changed meanwhile; try again' });
    rememberInTransaction(manager, written);
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
    const plan = planStep(conversationBinding, current, input, actor);
    if (plan.intents.length > 0) return 'needs-transaction';
    const effects = [conversationPush(plan.next, current), ...extra.effects];
    const written = await this.writes.conversationAlone({ ...stepWrite(conversationBinding, plan, effects), companion: extra.companion });
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
    const written = await this.rows.insertAtVersion<ConversationRow>(this.dataSource.manager, {
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
    const manager = this.dataSource.manager;
    for (let attempt = 1; attempt <= CONVERSATION_WRITE_ATTEMPTS; attempt++) {
      const given = attempt === 1 ? current : undefined;
      const row = given ?? ofTenant(await this.rows.readConversation(manager, id), tenantId);
      await assertEmailCloseHasCase(manager, row, input.type, actor);
      let plan: ConversationStepPlan;
      try {
        plan = planStep(conversationBinding, row, input, actor);
      } catch (error) {
        if (given && isIllegalTransition(error)) continue;
        throw error;
      }
      if (plan.intents.some((intent) => intent.type === 'releaseAgent')) return this.dispatch('conversation', id, input, actor, tenantId);
      const effects = await this.stepEffects.effects(manager, row, plan.next, plan.intents, actor, []);
      effects.push(conversationPush(plan.next, row));
      const written = await this.writes.conversationAlone(stepWrite(conversationBinding, plan, effects));
      if (written) {
        this.relay.kick(written.outboxIds, written.records);
        return written.row;
      }
    }
    throw new AppException('conflict', { message: 'The conversation changed meanwhile; try again' });
  }

  /**
   * Plans a step of a conversation this transaction holds. A step that releases its agent needs
   * the agent's row too: it is locked (after the conversation, as the lock order says) and the step
   * planned again, so its time is read after any wait for that lock, not before it.
   */
  private async planWithAgentsLocked(manager: EntityManager, current: ConversationRow, input: ConversationEventInput, actor: Actor) {
    const first = planStep(conversationBinding, current, input, actor);
    const released = first.intents.flatMap((intent) => (intent.type === 'releaseAgent' ? [intent.params.agentId] : []));
    if (released.length === 0) return { plan: first, agents: new Map<string, AgentRow>() };
    const agents = await this.lockAgents(manager, released);
    return { plan: planStep(conversationBinding, current, input, actor), agents };
  }

  async dispatchAgent(
    manager: EntityManager,
    userId: string,
    input: AgentEventInput,
    actor: Actor,
    tenantId?: string,
    /** The row as this transaction already locked it (FOR NO KEY UPDATE, with the user's name), to skip reading it again. */
    locked?: AgentRow,
    /** Conversations this transaction already locked, for a step that re-queues them (see dispatchAgentRequeuing). */
    lockedConversations: ConversationRow[] = [],
  ): Promise<Dispatched<AgentRow>> {
    // A transaction moves the row: the kept one would only cost a refused write.
    this.agentRows.forget(userId);
    const current = locked?.user_id === userId ? locked : await this.lockAgent(manager, userId, tenantId);
    const plan = this.planAgentStep(current, input, actor);
    const written = await this.writes.agent(manager, plan);
    if (!written) throw new AppException('conflict', { message: 'The agent changed meanwhile; try again' });
    rememberInTransaction(manager, written);
    const outboxIds = [...written.outboxIds];
    if (plan.requeue.length > 0) outboxIds.push(...(await this.requeueHeld(manager, userId, plan.requeue, lockedConversations)));
    return { row: written.row, outboxIds };
  }

  /**
   * Plans a conversation step on a row this transaction holds FOR NO KEY UPDATE, with its effects, without
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
    const effects = await this.stepEffects.effects(manager, current, plan.next, plan.intents, actor, outboxIds, agents);
    effects.push(conversationPush(plan.next, current));
    return { write: stepWrite(conversationBinding, plan, effects), outboxIds };
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
      this.agentRows.forget(plan.current.user_id);
    }
    return this.writes.locked(manager, waves, conversations);
  }

  /**
   * Steps the agent's machine (no I/O) and works out the row, log row and effects to write; refuses
   * an illegal event (illegal_transition). A caller making many steps on rows its transaction holds
   * FOR NO KEY UPDATE (routing) plans them all from the rows it holds (an agent's second step from its
   * first plan's `next`), then writes them together with writeLockedSteps.
   */
  planAgentStep(current: AgentRow, input: AgentEventInput, actor: Actor): AgentStepPlan {
    const plan = planStep(agentBinding, current, input, actor);
    const effects = agentStepEffects(current, plan.next, input.type, plan.intents, this.config);
    return { ...plan, effects, requeue: requeuedBy(plan.intents) };
  }
}
