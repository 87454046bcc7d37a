import type { DataSource, EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { NaturalBatcher } from '../../common/natural-batcher';
import { AGENT_COLUMN_TYPES, agentBinding, CONVERSATION_COLUMN_TYPES, type AgentStepPlan } from './machine-bindings';
import type { MachineRows } from './machine-rows';
import { stepWrite } from './machine-runner';
import { rememberWritten } from './outbox';
import type { ColumnTypes, VersionedWrite, Written } from './versioned-write';
import type { AgentRow, ConversationRow } from './views';

/**
 * Agent events alone are group-committed: at most this many statements in flight at once, each
 * writing up to AGENT_BATCH_MAX agents' steps. Two keeps a statement always ready to go while the
 * other is in PostgreSQL, and leaves the rest of the pool to everything else.
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

/** Hands a one-statement write's outbox rows to the transaction's list, for the relay after commit. */
export function rememberInTransaction(manager: EntityManager, written: Written<unknown>): void {
  rememberWritten(
    manager,
    written.outboxIds,
    written.records.map((record) => record.topic),
    written.records.map((record) => record.payload),
  );
}

/**
 * How the host's planned steps reach MachineRows: one at a time in a transaction, several locked
 * ones in as few statements as one entity per statement allows, and the steps written alone
 * (outside any transaction) group-committed.
 */
export class MachineWrites {
  /** Conversation steps written alone (customers' messages), group-committed, one step per conversation per statement. */
  private readonly conversationsAlone = new NaturalBatcher<VersionedWrite, Written<ConversationRow> | null>({
    maxInFlight: CONVERSATION_WRITES_IN_FLIGHT,
    maxBatch: CONVERSATION_BATCH_MAX,
    keyOf: (write) => write.key.value,
    run: (writes) => this.writeConversationSteps(writes),
  });

  /**
   * Writes of agent events alone, group-committed: while AGENT_WRITES_IN_FLIGHT statements are in
   * PostgreSQL, the steps planned meanwhile (other agents' events) gather and go as one statement.
   * One agent's steps never share a statement: its later step waits for the next one.
   */
  private readonly agentsAlone = new NaturalBatcher<AgentStepPlan, Written<AgentRow> | null>({
    maxInFlight: AGENT_WRITES_IN_FLIGHT,
    maxBatch: AGENT_BATCH_MAX,
    keyOf: (plan) => plan.current.user_id,
    run: (plans) => this.writeAgentSteps(plans),
  });

  constructor(
    private readonly rows: MachineRows,
    private readonly dataSource: Pick<DataSource, 'manager'>,
  ) {}

  /** A conversation step outside any transaction; null when its version moved. */
  conversationAlone(write: VersionedWrite): Promise<Written<ConversationRow> | null> {
    return this.conversationsAlone.submit(write);
  }

  /** An agent step outside any transaction; null when its version moved. */
  agentAlone(plan: AgentStepPlan): Promise<Written<AgentRow> | null> {
    return this.agentsAlone.submit(plan);
  }

  /** Writes a planned agent step (one statement, see writeVersioned); null when the version moved. */
  async agent(manager: EntityManager, plan: AgentStepPlan): Promise<Written<AgentRow> | null> {
    const written = await this.rows.writeVersioned<AgentRow>(manager, stepWrite(agentBinding, plan, plan.effects));
    // The presence row has no name: the user's, read with it, goes back on the written row.
    return written && { ...written, row: { ...written.row, name: plan.current.name } };
  }

  /**
   * Steps planned on rows the manager's transaction holds, agents' waves first (the first step of
   * every agent, then the second of those who took two…), then the conversations; each checked and
   * remembered for the relay. A moved version means a bug (the rows are locked): 409, aborting the
   * transaction. Answers the outbox ids written.
   */
  async locked(manager: EntityManager, waves: AgentStepPlan[][], conversations: VersionedWrite[]): Promise<string[]> {
    const outboxIds: string[] = [];
    const check = <TRow>(written: (Written<TRow> | null)[], entity: 'agent' | 'conversation') => {
      for (const one of written) {
        if (!one) throw new AppException('conflict', { message: `The ${entity} changed meanwhile; try again` });
        rememberInTransaction(manager, one);
        outboxIds.push(...one.outboxIds);
      }
    };
    for (const wave of waves)
      check(
        await this.each<AgentRow>(
          manager,
          wave.map((plan) => stepWrite(agentBinding, plan, plan.effects)),
          AGENT_COLUMN_TYPES,
        ),
        'agent',
      );
    if (conversations.length > 0)
      check(await this.each<ConversationRow>(manager, conversations, CONVERSATION_COLUMN_TYPES), 'conversation');
    return outboxIds;
  }

  /** Versioned writes of distinct rows: one statement either way (writeVersionedBatch for several). */
  private async each<TRow>(manager: EntityManager, writes: VersionedWrite[], types: ColumnTypes): Promise<(Written<TRow> | null)[]> {
    return writes.length === 1
      ? [await this.rows.writeVersioned<TRow>(manager, writes[0])]
      : this.rows.writeVersionedBatch<TRow>(manager, writes, types);
  }

  /** Conversation steps outside any transaction, one statement for all (see writeVersionedBatch). */
  private async writeConversationSteps(writes: VersionedWrite[]): Promise<(Written<ConversationRow> | null)[]> {
    const manager = this.dataSource.manager;
    if (writes.length === 1) return [await this.rows.writeVersioned<ConversationRow>(manager, writes[0])];
    // One shape per statement: steps with a companion (customers' messages) and without go apart.
    const withCompanion = writes.filter((write) => write.companion);
    const without = writes.filter((write) => !write.companion);
    const results = new Map<VersionedWrite, Written<ConversationRow> | null>();
    for (const group of [withCompanion, without]) {
      if (group.length === 0) continue;
      const written = await this.rows.writeVersionedBatch<ConversationRow>(manager, group, CONVERSATION_COLUMN_TYPES);
      group.forEach((write, index) => results.set(write, written[index]));
    }
    return writes.map((write) => results.get(write) ?? null);
  }

  /** Several agents' planned steps outside any transaction, one statement (see writeVersionedBatch). */
  private async writeAgentSteps(plans: AgentStepPlan[]): Promise<(Written<AgentRow> | null)[]> {
    if (plans.length === 1) return [await this.agent(this.dataSource.manager, plans[0])];
    const written = await this.rows.writeVersionedBatch<AgentRow>(
      this.dataSource.manager,
      plans.map((plan) => stepWrite(agentBinding, plan, plan.effects)),
      AGENT_COLUMN_TYPES,
    );
    return written.map((one, index) => one && { ...one, row: { ...one.row, name: plans[index].current.name } });
  }
}
