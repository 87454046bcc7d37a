import { QUEUES, roomName, type CampaignQueueView, type LineQueueView, type QueuePositionView } from '@centralita/contracts';
import {
  agentPresenceMachine,
  ASSIGNABLE_AGENT_STATUSES,
  DEFAULT_BLENDED_RULES,
  DEFAULT_ROUTING_POLICY,
  estimateWait,
  inCallCandidate,
  mayTakeCall,
  mayTakeChat,
  estimateWaitForNewcomer,
  restore,
  READY_AGENT_STATUSES,
  routingCandidate,
  selectAgent,
  sqlStatusList,
  type AgentCandidate,
  type BlendedLineRules,
  type BlendedLoad,
  type ConversationContext,
  type RoutingPolicy,
} from '@centralita/domain';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Job } from 'bullmq';
import type Redis from 'ioredis';
import { DataSource, type EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { NaturalBatcher } from '../../common/natural-batcher';
import { isIllegalTransition, MachineHostService, type AgentStepPlan } from '../machine-host/machine-host.service';
import type { VersionedWrite } from '../machine-host/versioned-write';
import type { AgentRow, ConversationRow } from '../machine-host/views';
import { emitEphemeral, emitEphemeralPerRoom } from '../machine-host/ephemeral';
import { writeOutbox, type OutboxEffect } from '../machine-host/outbox';
import { QueueRegistry } from '../machine-host/queue-registry.service';
import { REALTIME_CONFIG, type RealtimeConfig } from '../machine-host/realtime-config';
import { hasVisitor } from '../conversations/visitor';
import { RealtimeService } from '../realtime/realtime.service';
import { REDIS, RedisKeys } from '../redis/redis.module';
import { QUEUE_PUBLISH_INTERVAL_MS, QueuePublishThrottle } from './queue-publisher';

const SYSTEM = { kind: 'system' } as const;
/** Assignments per routing transaction: fewer commits under load, short lock holds otherwise. */
const ROUTING_BATCH = 20;
/**
 * Candidates a round locks per head it routes when the line's blended rules may refuse some of them
 * (chats during calls): agents on a call are then among the candidates and may be over the line's
 * limit. Without that rule every candidate may take any chat, and the first agents in the policy's
 * order are exactly the ones the round gives its heads to (see lockCandidatePage).
 */
const CANDIDATES_PER_HEAD_WHEN_FILTERED = 2;
/** Presence statuses ready for conversations, and those the presence machine may be assigned one in (with inCall), as SQL lists. */
const READY_SQL = sqlStatusList(READY_AGENT_STATUSES);
const ASSIGNABLE_SQL = sqlStatusList(ASSIGNABLE_AGENT_STATUSES);

/**
 * Each policy's order of the candidates (selectAgent's comparisons, in SQL), so a round locks only
 * the agents it will give its heads to. Occupancy as a float: with capacities of 1 to 5, equal ratios
 * divide to the same float and different ones stay apart, as the cross-multiplied comparison sees them.
 */
const IDLE_SINCE_SQL = `(p.snapshot->'context'->>'idleSince')::bigint`;
const OCCUPANCY_SQL = `p.active_count::float8 / p.capacity`;
const POLICY_ORDER_SQL: Record<RoutingPolicy, string> = {
  'longest-idle': `${IDLE_SINCE_SQL}, ${OCCUPANCY_SQL}, p.user_id`,
  'least-occupied': `${OCCUPANCY_SQL}, ${IDLE_SINCE_SQL}, p.user_id`,
};

/** The steps a routing batch planned, written together at its end (MachineHostService.writeLockedSteps). */
interface AssignmentSteps {
  agents: AgentStepPlan[];
  conversations: VersionedWrite[];
}

/** What routeAgent needs of an agent: its tenant and campaign, and each of its lines with whether anyone waits there. */
interface AgentLines {
  tenant_id: string | null;
  campaign_id: string | null;
  attention_line_id: string | null;
  waiting: boolean;
}

/**
 * The line's agents with room that a round has locked so far (what selectAgent picks from), their
 * rows as this transaction locked them, and what each holds (calls and chats, on a call or not) for
 * the line's blended rules. A round locks them a page at a time in the policy's order (see
 * lockCandidatePage) and takes the next page only when those it holds cannot serve the head at hand.
 */
interface Candidates {
  list: AgentCandidate[];
  rows: Map<string, AgentRow>;
  loads: Map<string, BlendedLoad>;
  /** Agents this round gave a conversation to: their place in the policy's order only moved back. */
  served: Set<string>;
  /** Every agent row this round locked, candidate or not: the next page starts after them. */
  locked: string[];
  /** No agent of the line with room is left to lock (the last page came short, or all were asked for). */
  exhausted: boolean;
  /** true: skip agents another transaction holds (a page at a time); false: wait for them, all at once, in id order. */
  skipLocked: boolean;
  pageSize: number;
  attentionLineId: string;
  callChannels: string[];
  policy: RoutingPolicy;
  blended: BlendedLineRules;
}

/** Where a view is read from: the pool, or the transaction holding the view's version (see withViewVersion). */
type Db = { query: (sql: string, parameters?: unknown[]) => Promise<any> }; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The version a REST answer carries: the last one pushed for that view (see VIEW_VERSIONS in the contract). */
const VIEW_VERSION_SQL = (key: string) =>
  `COALESCE((SELECT vv.version FROM realtime_view_versions vv WHERE vv.view_key = ${key}), 0)::text`;

/**
 * A channel whose conversations routing offers only under conditions of its own (issue 22: a phone
 * conversation needs a voice server that can bridge the call and an agent who can talk). Registered
 * by the channel's module; channels without a rule are offered as always.
 */
export interface ChannelOfferRule {
  /** false: the channel's conversations are offered to nobody now (they keep waiting, chats behind them are served). */
  offerable(): boolean;
  /** Of the line's candidates with room, the ones who may take this conversation. */
  eligible(manager: EntityManager, conversation: ConversationRow, candidates: AgentCandidate[]): Promise<AgentCandidate[]>;
  /** Effects written with the assignment, in its transaction. */
  assigned(manager: EntityManager, conversation: ConversationRow, agentId: string): Promise<OutboxEffect[]>;
}

interface LineRun {
  /** Set by a call that arrived during the run: go round once more. */
  again: boolean;
  done: Promise<number>;
}

/**
 * Assigns waiting conversations to agents. One transaction per batch of assignments, holding an
 * advisory lock on the line (one router per line at a time, across processes) and row locks on the
 * conversations and the agents: agent.conversationAssigned (which refuses beyond capacity) and
 * conversation.assigned commit together or not at all. Locks follow the host's one order (line →
 * conversations by id → agents by id, see MachineHostService), the order closing, transferring and
 * logging out take, so routers never deadlock with them. Capacity is what the agent's presence
 * holds, and that is exactly what is Active with them: a logout re-queues its conversations in its
 * own transaction.
 */
@Injectable()
export class RoutingService implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RoutingService.name);
  private sweeper: NodeJS.Timeout | null = null;
  /** Routing runs in progress in this process, by line (see routeLine). */
  private readonly lineRuns = new Map<string, LineRun>();
  /** Queue pushes of this process, paced per line (see publishQueueSoon). */
  private readonly publishing: QueuePublishThrottle;
  /** Campaign queue pushes in progress in this process, by campaign (see publishCampaignSoon). */
  private readonly publishingCampaigns = new Map<string, { again: boolean }>();
  /** Conditions some channels put on being offered (see ChannelOfferRule), by channel code. */
  private readonly channelRules = new Map<string, ChannelOfferRule>();
  /**
   * Agents' lines, looked up for many agents in one query when their presence changes come in a
   * burst (every presence change asks, see routeAgent): a lookup goes at once while one is free,
   * the ones asked meanwhile share the next.
   */
  private readonly agentLines = new NaturalBatcher<string, AgentLines[]>({
    maxInFlight: 1,
    maxBatch: 256,
    run: (agentIds) => this.lookUpAgentLines(agentIds),
  });

  constructor(
    private readonly dataSource: DataSource,
    private readonly host: MachineHostService,
    private readonly queues: QueueRegistry,
    private readonly realtime: RealtimeService,
    @Inject(REALTIME_CONFIG) private readonly config: RealtimeConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(QUEUE_PUBLISH_INTERVAL_MS) publishIntervalMs: number,
  ) {
    this.publishing = new QueuePublishThrottle(
      publishIntervalMs,
      (attentionLineId) => this.publishQueue(attentionLineId),
      (_line, error) => this.logger.warn(`queue push: ${error.message}`),
    );
  }

  /** Registers the offer conditions of a channel's conversations (one rule per channel). */
  registerChannelRule(channel: string, rule: ChannelOfferRule): void {
    if (this.channelRules.has(channel)) throw new Error(`channel ${channel} has two routing rules`);
    this.channelRules.set(channel, rule);
  }

  onModuleInit(): void {
    this.queues.handle(QUEUES.routing, (job) => this.onJob(job));
    this.queues.handle(QUEUES.machineTimers, (job) => this.onTimer(job));
  }

  onApplicationBootstrap(): void {
    // Whatever a lost job or a crash left behind, nothing waits while an eligible agent has room.
    this.sweeper = setInterval(
      () => void this.sweepIfDue().catch((error: Error) => this.logger.warn(`sweep: ${error.message}`)),
      this.config.routingSweepMs,
    );
    this.sweeper.unref();
  }

  onApplicationShutdown(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.publishing.stop();
  }

  private async onJob(job: Job): Promise<void> {
    const data = job.data as { tenantId: string; attentionLineId?: string; agentId?: string; conversationIds?: string[] };
    if (job.name === 'line' && data.attentionLineId) await this.routeLine(data.attentionLineId);
    else if (job.name === 'agent' && data.agentId) await this.routeAgent(data.agentId);
    else if (job.name === 'requeue' && data.conversationIds) await this.requeue(data.conversationIds);
  }

  /** Timer events run through the host like any other event; a stale timer is simply refused. */
  private async onTimer(job: Job): Promise<void> {
    const { entity, id, event } = job.data as { entity: 'conversation' | 'agent'; id: string; event: { type: string } };
    try {
      if (entity === 'conversation') await this.host.dispatch('conversation', id, event as never, SYSTEM);
      else await this.host.dispatch('agent', id, event as never, SYSTEM);
    } catch (error) {
      if (!isIllegalTransition(error) && !(error instanceof AppException && error.code === 'not_found')) throw error;
    }
  }

  /**
   * Every API process runs the sweeper's timer, but one sweep per period is enough: the first
   * process to take the period's Redis key sweeps, the others skip (a process that dies holding it
   * only skips that period). Sweeping twice would still be safe (each line is routed under its
   * advisory lock), only wasteful: N processes would each query every waiting line and queue on
   * the same line locks.
   */
  private async sweepIfDue(): Promise<void> {
    const taken = await this.redis.set(this.keys.key('routing-sweep'), '1', 'PX', Math.max(1, this.config.routingSweepMs - 100), 'NX');
    if (taken === 'OK') await this.sweep();
  }

  async sweep(): Promise<void> {
    const lines: { attention_line_id: string }[] = await this.dataSource.query(
      `SELECT DISTINCT attention_line_id FROM conversations WHERE status = 'LiningUp' AND attention_line_id IS NOT NULL`,
    );
    for (const line of lines) await this.routeLine(line.attention_line_id);
  }

  /**
   * The agent's capacity or state changed: route the lines they serve that have customers waiting,
   * and refresh the others' queue views (their "agents available" moved), then the view of the
   * campaign they are logged into (it counts them whichever lines they serve). Every presence change
   * runs this, so it reads the lines and the campaign in one round trip.
   */
  async routeAgent(agentId: string): Promise<void> {
    const rows = await this.agentLines.submit(agentId);
    for (const line of rows) {
      if (!line.attention_line_id) continue;
      if (line.waiting) await this.routeLine(line.attention_line_id);
      else this.publishQueueSoon(line.attention_line_id);
    }
    // Pushed once the lines above were routed, so the view counts what they assigned.
    const [presence] = rows;
    if (presence?.tenant_id && presence.campaign_id) this.publishCampaignSoon(presence.tenant_id, presence.campaign_id);
  }

  /** Each agent's rows (at least one, with nulls for an unknown agent), in the order asked. */
  private async lookUpAgentLines(agentIds: string[]): Promise<AgentLines[][]> {
    const rows: (AgentLines & { asked: number })[] = await this.dataSource.query(
      `SELECT me.asked, p.tenant_id, p.campaign_id, a.attention_line_id,
         EXISTS (SELECT 1 FROM conversations c WHERE c.attention_line_id = a.attention_line_id AND c.status = 'LiningUp') AS waiting
       FROM unnest($1::uuid[]) WITH ORDINALITY AS me(user_id, asked)
       LEFT JOIN agent_presence p ON p.user_id = me.user_id
       LEFT JOIN agent_attention_lines a ON a.user_id = me.user_id`,
      [agentIds],
    );
    const byAgent: AgentLines[][] = agentIds.map(() => []);
    for (const { asked, ...row } of rows) byAgent[Number(asked) - 1].push(row);
    return byAgent;
  }

  /**
   * The agent left holding conversations: each goes back to its line's queue. The host now does
   * this in the logout's own transaction; this handles 'requeue' jobs an older process queued.
   */
  async requeue(conversationIds: string[]): Promise<void> {
    for (const id of conversationIds) {
      const [row] = (await this.dataSource.query(`SELECT attention_line_id, agent_id, status, snapshot FROM conversations WHERE id = $1`, [
        id,
      ])) as {
        attention_line_id: string | null;
        status: string;
        snapshot: { context: ConversationContext };
      }[];
      if (!row || row.status !== 'Active' || !row.attention_line_id) continue;
      try {
        await this.host.dispatch(
          'conversation',
          id,
          {
            type: 'conversation.transferred',
            to: { kind: 'line', attentionLineId: row.attention_line_id, pollId: row.snapshot.context.pollId },
          },
          SYSTEM,
        );
      } catch (error) {
        if (!isIllegalTransition(error)) throw error;
      }
    }
  }

  /**
   * Assigns as many waiting conversations of the line as its agents have room for. Calls for a
   * line already being routed in this process join that run instead of queueing on the line's
   * lock (each waiter would hold a pool connection): the run goes round once more, so whatever was
   * queued before the call is seen, and the call resolves when that round is done.
   */
  routeLine(attentionLineId: string): Promise<number> {
    const current = this.lineRuns.get(attentionLineId);
    if (current) {
      current.again = true;
      return current.done;
    }
    const run: LineRun = { again: false, done: Promise.resolve(0) };
    run.done = (async () => {
      let assigned = 0;
      try {
        do {
          run.again = false;
          assigned += await this.routeLineOnce(attentionLineId);
        } while (run.again);
      } finally {
        this.lineRuns.delete(attentionLineId);
      }
      this.publishQueueSoon(attentionLineId);
      return assigned;
    })();
    this.lineRuns.set(attentionLineId, run);
    return run.done;
  }

  /**
   * One pass over the line: transactions of up to ROUTING_BATCH assignments each, under the
   * line's advisory lock (one router per line across processes), until the queue is empty or no
   * agent has room. A transaction locks only the agents it can use and skips those another
   * transaction holds (see candidates); when it then ran out of agents while one it skipped had
   * room, the next transaction waits for them: the holder may be another line's router that leaves
   * the agent room without asking for routing, and nothing else would serve this line before the sweep.
   */
  private async routeLineOnce(attentionLineId: string): Promise<number> {
    let assigned = 0;
    let skipLocked = true;
    for (;;) {
      const batch = await this.host.transaction(
        async (manager, outbox) => {
          await manager.query(`SELECT pg_advisory_xact_lock(hashtext('route:' || $1))`, [attentionLineId]);
          // Channels offered to nobody now stay out of the heads, so the chats behind them are served.
          const withheld = [...this.channelRules].filter(([, rule]) => !rule.offerable()).map(([channel]) => channel);
          // The queue's heads, locked in id order (the lock order: a batch of customers' messages
          // locks conversations that way too, so locking them in queue order could deadlock with it;
          // measured at +0.2 ms a routing transaction), then served in queue order. One that left the
          // queue before its lock was granted is not returned.
          const heads = (
            (await manager.query(
              `SELECT * FROM conversations
             WHERE id = ANY(ARRAY(SELECT id FROM conversations WHERE attention_line_id = $1 AND status = 'LiningUp'
                                    AND channel <> ALL($3::text[])
                                  ORDER BY priority DESC, queued_at, id LIMIT $2))
               AND attention_line_id = $1 AND status = 'LiningUp'
             ORDER BY id FOR UPDATE`,
              [attentionLineId, ROUTING_BATCH, withheld],
            )) as ConversationRow[]
          ).sort(
            (x, y) =>
              y.priority - x.priority ||
              new Date(x.queued_at!).getTime() - new Date(y.queued_at!).getTime() ||
              (x.id < y.id ? -1 : x.id > y.id ? 1 : 0),
          );
          if (heads.length === 0) return { assigned: 0, more: false, skippedWithRoom: false };
          // Conversations of a channel with an offer rule are live calls (phone): the blended rules count them apart.
          const callChannels = [...this.channelRules.keys()];
          const { policy, blended } = await this.lineRules(manager, attentionLineId);
          const candidates = await this.candidates(manager, {
            attentionLineId,
            callChannels,
            policy,
            blended,
            skipLocked,
            pageSize: heads.length * (blended.chatsDuringCall > 0 ? CANDIDATES_PER_HEAD_WHEN_FILTERED : 1),
          });
          const loadOf = (candidate: AgentCandidate) => candidates.loads.get(candidate.agentId)!;
          // Every assignment of the batch is planned first (the rows are locked), then written
          // together: a few statements for the batch instead of two per assignment.
          const steps: AssignmentSteps = { agents: [], conversations: [] };
          let count = 0;
          // Conversations of a channel with a rule that nobody eligible can take now: passed over, not a stop.
          let passed = 0;
          for (const head of heads) {
            const rule = this.channelRules.get(head.channel);
            if (!rule) {
              // A chat: agents on a call only up to the line's chats-during-call limit.
              if (!(await this.assign(manager, outbox, head, candidates, steps, (candidate) => mayTakeChat(loadOf(candidate), blended))))
                break;
              count++;
              continue;
            }
            // A call: never to an agent on a call, to one holding chats only when the line says so.
            // The channel's rule judges the line's candidates together (e.g. agents who have not failed
            // this call first): it sees them all, as it would with a round that locked them all.
            await this.lockRemainingCandidates(manager, candidates);
            const offered = candidates.list.filter((candidate) => mayTakeCall(loadOf(candidate), blended));
            const eligible = new Set(
              offered.length === 0 ? [] : (await rule.eligible(manager, head, offered)).map((candidate) => candidate.agentId),
            );
            const agentId =
              eligible.size === 0
                ? null
                : await this.assign(manager, outbox, head, candidates, steps, (candidate) => eligible.has(candidate.agentId));
            if (!agentId) {
              passed++;
              continue;
            }
            outbox.push(...(await writeOutbox(manager, await rule.assigned(manager, head, agentId))));
            count++;
          }
          outbox.push(...(await this.host.writeLockedSteps(manager, steps.agents, steps.conversations)));
          // Heads left for want of an agent (every page was taken by then, see assign): did the round
          // skip one with room that another transaction held?
          const skippedWithRoom = count < heads.length && candidates.skipLocked && (await this.skippedWithRoom(manager, candidates));
          return {
            assigned: count,
            more: count > 0 && count + passed === heads.length && heads.length === ROUTING_BATCH,
            skippedWithRoom,
          };
        },
        { retry: true },
      );
      assigned += batch.assigned;
      if (!batch.more && !batch.skippedWithRoom) return assigned;
      skipLocked = !batch.skippedWithRoom;
    }
  }

  /**
   * Plans giving one waiting conversation to the best candidate with room (written with the rest
   * of the batch), updating `candidates` with the agent's new load; answers the agent, or null when
   * nobody (of those `allowed`, when given) can take it. Takes the next page of candidates while
   * none of those held may take it that this round has not served yet: an agent not locked yet
   * comes after every unserved one in the policy's order, and serving only moves an agent back
   * (busier, idle since now), so the pick is the one a round holding all of them would make.
   */
  private async assign(
    manager: EntityManager,
    outbox: string[],
    head: ConversationRow,
    candidates: Candidates,
    steps: AssignmentSteps,
    allowed?: (candidate: AgentCandidate) => boolean,
  ): Promise<string | null> {
    const conversationId = head.id;
    const { list, rows } = candidates;
    for (;;) {
      const usable = allowed ? list.filter(allowed) : list;
      if (!candidates.exhausted && !usable.some((candidate) => !candidates.served.has(candidate.agentId))) {
        await this.lockCandidatePage(manager, candidates);
        continue;
      }
      const pick = selectAgent(usable, candidates.policy);
      if (!pick) return null;
      const index = list.indexOf(pick);
      let agent: AgentStepPlan;
      try {
        // Both rows were locked by this transaction (heads, candidates): stepped from what it holds,
        // the agent from the step planned before when it already took one in this batch.
        // An agent on a call is a candidate only where the line's rule let them be (see routeLineOnce).
        const duringCall = candidates.loads.get(pick.agentId)?.onCall === true;
        agent = this.host.planAgentStep(
          rows.get(pick.agentId)!,
          { type: 'agent.conversationAssigned', conversationId, ...(duringCall ? { duringCall } : {}) },
          SYSTEM,
        );
      } catch (error) {
        // Another line's router filled this agent meanwhile (we saw them before locking): next one.
        if (!isIllegalTransition(error)) throw error;
        list.splice(index, 1);
        continue;
      }
      const conversation = await this.host.planLockedConversationStep(
        manager,
        head,
        { type: 'conversation.assigned', agentId: pick.agentId },
        SYSTEM,
      );
      rows.set(pick.agentId, agent.next);
      candidates.served.add(pick.agentId);
      steps.agents.push(agent);
      steps.conversations.push(conversation.write);
      outbox.push(...conversation.outboxIds);
      const load = candidates.loads.get(pick.agentId);
      if (load) {
        if (this.channelRules.has(head.channel)) load.calls++;
        else load.chats++;
      }
      const nextSnapshot = restore(agentPresenceMachine, agent.next.snapshot as never);
      const updated = routingCandidate(nextSnapshot) ?? inCallCandidate(nextSnapshot);
      if (updated) list[index] = updated;
      else list.splice(index, 1);
      return pick.agentId;
    }
  }

  /**
   * The round's first page of the line's agents with room, locked (see lockCandidatePage). Agents
   * on a call are among them when the line allows chats during calls (the caller applies the line's
   * limit), with what each holds counted from the conversations Active with them, in this
   * transaction: capacity and the blended rules are judged on the database at assignment time.
   */
  private async candidates(
    manager: EntityManager,
    round: Pick<Candidates, 'attentionLineId' | 'callChannels' | 'policy' | 'blended' | 'skipLocked' | 'pageSize'>,
  ): Promise<Candidates> {
    const candidates: Candidates = {
      ...round,
      list: [],
      rows: new Map(),
      loads: new Map(),
      served: new Set(),
      locked: [],
      exhausted: false,
    };
    await this.lockCandidatePage(manager, candidates);
    return candidates;
  }

  /** Locks all of the line's agents with room the round does not hold yet. */
  private async lockRemainingCandidates(manager: EntityManager, candidates: Candidates): Promise<void> {
    if (!candidates.exhausted) await this.lockCandidatePage(manager, candidates, null);
  }

  /**
   * Locks the next `limit` agents of the line with room, in the policy's order, skipping those
   * another transaction holds (FOR UPDATE SKIP LOCKED): a round never waits on an agent row, so the
   * order it locks them in cannot deadlock, and it locks only agents it can use instead of every
   * agent of the line. Whoever holds a skipped agent routes again when it frees room (a presence
   * step offers it, see requestAssignment), and a round left short re-runs waiting for them (see
   * routeLineOnce). That waiting round locks them all in user-id order, the one order of the host:
   * a batch assigns to several agents, and routers of lines sharing agents waiting for each other
   * in the order each picked them would deadlock.
   * Agents on a call only when the line allows chats during calls: they may take nothing else.
   */
  private async lockCandidatePage(
    manager: EntityManager,
    candidates: Candidates,
    limit: number | null = candidates.pageSize,
  ): Promise<void> {
    const statuses = candidates.blended.chatsDuringCall > 0 ? ASSIGNABLE_SQL : READY_SQL;
    const rows: AgentRow[] = await manager.query(
      candidates.skipLocked
        ? `SELECT p.*, u.name FROM agent_presence p JOIN agent_attention_lines a ON a.user_id = p.user_id JOIN users u ON u.id = p.user_id
           WHERE a.attention_line_id = $1 AND p.status IN ${statuses} AND p.active_count < p.capacity AND p.user_id <> ALL($2::uuid[])
           ORDER BY ${POLICY_ORDER_SQL[candidates.policy]} LIMIT $3 FOR UPDATE OF p SKIP LOCKED`
        : `SELECT p.*, u.name FROM agent_presence p JOIN agent_attention_lines a ON a.user_id = p.user_id JOIN users u ON u.id = p.user_id
           WHERE a.attention_line_id = $1 AND p.status IN ${statuses} AND p.active_count < p.capacity
           ORDER BY p.user_id FOR UPDATE OF p`,
      candidates.skipLocked ? [candidates.attentionLineId, candidates.locked, limit] : [candidates.attentionLineId],
    );
    candidates.exhausted = !candidates.skipLocked || limit === null || rows.length < limit;
    candidates.locked.push(...rows.map((row) => row.user_id));
    const page = rows
      .map((row) => {
        const snapshot = restore(agentPresenceMachine, row.snapshot as never);
        return routingCandidate(snapshot) ?? inCallCandidate(snapshot);
      })
      .filter((c): c is AgentCandidate => c !== null);
    const held = (
      page.length === 0
        ? []
        : await manager.query(
            `SELECT agent_id, count(*) FILTER (WHERE channel = ANY($2::text[]))::int AS calls,
               count(*) FILTER (WHERE channel <> ALL($2::text[]))::int AS chats
             FROM conversations WHERE agent_id = ANY($1::uuid[]) AND status = 'Active' GROUP BY agent_id`,
            [page.map((candidate) => candidate.agentId), candidates.callChannels],
          )
    ) as { agent_id: string; calls: number; chats: number }[];
    const counts = new Map(held.map((row) => [row.agent_id, row]));
    const statusOf = new Map(rows.map((row) => [row.user_id, row.status]));
    for (const candidate of page) {
      candidates.list.push(candidate);
      candidates.loads.set(candidate.agentId, {
        onCall: statusOf.get(candidate.agentId) === 'inCall',
        calls: counts.get(candidate.agentId)?.calls ?? 0,
        chats: counts.get(candidate.agentId)?.chats ?? 0,
      });
    }
    for (const row of rows) candidates.rows.set(row.user_id, row);
  }

  /**
   * Whether an agent of the line had room that the round did not lock (read without locking: as
   * last committed). Asked once every page is taken, so such an agent was held by another
   * transaction when the round skipped them.
   */
  private async skippedWithRoom(manager: EntityManager, candidates: Candidates): Promise<boolean> {
    const statuses = candidates.blended.chatsDuringCall > 0 ? ASSIGNABLE_SQL : READY_SQL;
    const [row] = (await manager.query(
      `SELECT EXISTS (SELECT 1 FROM agent_presence p JOIN agent_attention_lines a ON a.user_id = p.user_id
         WHERE a.attention_line_id = $1 AND p.status IN ${statuses} AND p.active_count < p.capacity AND p.user_id <> ALL($2::uuid[])) AS skipped`,
      [candidates.attentionLineId, candidates.locked],
    )) as { skipped: boolean }[];
    return row.skipped;
  }

  /** The line's routing policy and blended rules (defaults for a line without a routing row). */
  private async lineRules(manager: EntityManager, attentionLineId: string): Promise<{ policy: RoutingPolicy; blended: BlendedLineRules }> {
    const [row] = (await manager.query(
      `SELECT routing_policy, chats_during_call, offer_calls_with_chats FROM attention_line_routing WHERE attention_line_id = $1`,
      [attentionLineId],
    )) as { routing_policy: RoutingPolicy; chats_during_call: number; offer_calls_with_chats: boolean }[];
    return {
      policy: row?.routing_policy ?? DEFAULT_ROUTING_POLICY,
      blended: row ? { chatsDuringCall: row.chats_during_call, offerCallsWithChats: row.offer_calls_with_chats } : DEFAULT_BLENDED_RULES,
    };
  }

  /** The line's queue as supervisors see it. */
  async lineQueue(
    attentionLineId: string,
    db: Db = this.dataSource,
  ): Promise<LineQueueView & { tenantId: string; campaignId: string | null }> {
    const [row] = (await db.query(
      `SELECT l.name, l.client_id, l.campaign_id, ${VIEW_VERSION_SQL(`'line:' || l.id`)} AS version,
         (SELECT count(*)::int FROM conversations c WHERE c.attention_line_id = l.id AND c.status = 'LiningUp') AS waiting,
         (SELECT min(c.queued_at) FROM conversations c WHERE c.attention_line_id = l.id AND c.status = 'LiningUp') AS oldest,
         (SELECT count(*)::int FROM agent_presence p JOIN agent_attention_lines a ON a.user_id = p.user_id
            WHERE a.attention_line_id = l.id AND p.status IN ${READY_SQL} AND p.active_count < p.capacity) AS available
       FROM attention_lines l WHERE l.id = $1`,
      [attentionLineId],
    )) as {
      name: string;
      client_id: string;
      campaign_id: string | null;
      version: string;
      waiting: number;
      oldest: Date | null;
      available: number;
    }[];
    if (!row) throw AppException.notFound();
    return {
      attentionLineId,
      version: Number(row.version),
      tenantId: row.client_id,
      campaignId: row.campaign_id,
      name: row.name,
      waiting: row.waiting,
      longestWaitMs: row.oldest ? Math.max(0, Date.now() - new Date(row.oldest).getTime()) : 0,
      agentsAvailable: row.available,
    };
  }

  /**
   * Live queues of the tenant's campaigns (or of the given ones): waiting customers over the
   * campaign's lines, and agents logged into the campaign with room for one more conversation.
   */
  async campaignQueues(tenantId: string, campaignIds?: string[], db: Db = this.dataSource): Promise<CampaignQueueView[]> {
    const rows = (await db.query(
      `SELECT c.id, c.name, ${VIEW_VERSION_SQL(`'campaign:' || c.id`)} AS version,
         (SELECT count(*)::int FROM attention_lines l WHERE l.campaign_id = c.id AND l.deleted_at IS NULL) AS lines,
         (SELECT count(*)::int FROM conversations v JOIN attention_lines l ON l.id = v.attention_line_id
            WHERE l.campaign_id = c.id AND v.status = 'LiningUp') AS waiting,
         (SELECT min(v.queued_at) FROM conversations v JOIN attention_lines l ON l.id = v.attention_line_id
            WHERE l.campaign_id = c.id AND v.status = 'LiningUp') AS oldest,
         (SELECT count(*)::int FROM agent_presence p
            WHERE p.campaign_id = c.id AND p.status IN ${READY_SQL} AND p.active_count < p.capacity) AS available
       FROM campaigns c
       WHERE c.client_id = $1 AND c.deleted_at IS NULL AND ($2::uuid[] IS NULL OR c.id = ANY($2::uuid[]))
       ORDER BY c.name, c.id`,
      [tenantId, campaignIds ?? null],
    )) as { id: string; name: string; version: string; lines: number; waiting: number; oldest: Date | null; available: number }[];
    const now = Date.now();
    return rows.map((row) => ({
      campaignId: row.id,
      version: Number(row.version),
      name: row.name,
      lines: row.lines,
      waiting: row.waiting,
      longestWaitMs: row.oldest ? Math.max(0, now - new Date(row.oldest).getTime()) : 0,
      agentsAvailable: row.available,
    }));
  }

  /** Position and estimated wait of every waiting customer of the line, in serving order. */
  positions(attentionLineId: string, db: Db = this.dataSource): Promise<QueuePositionView[]> {
    return this.rankedPositions(attentionLineId, db, () => true);
  }

  /** Positions of the waiting customers whose channel `include` keeps, each ranked among everyone waiting. */
  private async rankedPositions(
    attentionLineId: string,
    db: Db,
    include: (channel: string | null) => boolean,
  ): Promise<QueuePositionView[]> {
    const waiting: { id: string; version: string; channel: string | null }[] = await db.query(
      // $1 is typed once for both uses: a bare `'line:' || $1` would make it text against a uuid column.
      `SELECT id, channel, ${VIEW_VERSION_SQL(`'line:' || $1::uuid`)} AS version FROM conversations
       WHERE attention_line_id = $1::uuid AND status = 'LiningUp' ORDER BY priority DESC, queued_at, id`,
      [attentionLineId],
    );
    const kept = waiting.map((row, index) => ({ row, position: index + 1 })).filter(({ row }) => include(row.channel));
    if (kept.length === 0) return [];
    const { times, slots } = await this.lineServing(attentionLineId, db);
    return kept.map(({ row, position }) => {
      const estimate = estimateWait(position, times, slots);
      return {
        conversationId: row.id,
        attentionLineId,
        position,
        estimatedWaitSeconds: estimate === null ? null : Math.round(estimate),
        nobodyServing: slots === 0,
        version: Number(row.version),
      };
    });
  }

  /**
   * Expected wait for a customer about to start a chat on the line (the widget shows it before the
   * chat starts): their position when others wait, else Erlang C from the line's staffing and its
   * arrivals over the last hour. Null with no recent handle times or nobody serving; `nobodyServing`
   * says which, so the widget can tell the customer that no agent is attending right now.
   */
  async newcomerWait(attentionLineId: string): Promise<{ seconds: number | null; nobodyServing: boolean }> {
    const [[queue], serving] = await Promise.all([
      this.dataSource.query(
        `SELECT count(*) FILTER (WHERE status = 'LiningUp')::int AS waiting,
           count(*) FILTER (WHERE queued_at > now() - interval '1 hour')::int AS arrivals
         FROM conversations WHERE attention_line_id = $1 AND (status = 'LiningUp' OR queued_at > now() - interval '1 hour')`,
        [attentionLineId],
      ) as Promise<{ waiting: number; arrivals: number }[]>,
      this.lineServing(attentionLineId),
    ]);
    const estimate = estimateWaitForNewcomer({
      waiting: queue?.waiting ?? 0,
      recentHandleTimesSec: serving.times,
      slots: serving.slots,
      arrivalRatePerSec: (queue?.arrivals ?? 0) / 3600,
    });
    return { seconds: estimate === null ? null : Math.round(estimate), nobodyServing: serving.slots === 0 };
  }

  /** The line's last 50 handle times (assignment to close, seconds) and the slots of the agents serving it now. */
  private async lineServing(attentionLineId: string, db: Db = this.dataSource): Promise<{ times: number[]; slots: number }> {
    const handled: { seconds: number }[] = await db.query(
      `SELECT EXTRACT(EPOCH FROM (c.closed_at - to_timestamp((c.snapshot->'context'->>'assignedAt')::bigint / 1000.0)))::float AS seconds
       FROM conversations c WHERE c.attention_line_id = $1 AND c.closed_at IS NOT NULL AND c.snapshot->'context'->>'assignedAt' IS NOT NULL
       ORDER BY c.closed_at DESC LIMIT 50`,
      [attentionLineId],
    );
    // Slots of the agents serving now: paused or away agents would make the estimate optimistic.
    const [slots] = (await db.query(
      `SELECT COALESCE(sum(p.capacity), 0)::int AS slots FROM agent_presence p JOIN agent_attention_lines a ON a.user_id = p.user_id
       WHERE a.attention_line_id = $1 AND p.status IN ${READY_SQL}`,
      [attentionLineId],
    )) as { slots: number }[];
    return { times: handled.map((row) => row.seconds).filter((seconds) => seconds > 0), slots: slots?.slots ?? 0 };
  }

  /**
   * Pushes the line's queue soon, paced (QUEUE_PUBLISH_INTERVAL_MS): the first call pushes at once,
   * calls while that push runs or within the interval after it fold into one trailing push, so a
   * busy line costs at most one queue view and one round of position pushes per interval, however
   * many routing rounds it has, and its customers still end told their last position.
   */
  publishQueueSoon(attentionLineId: string): void {
    this.publishing.request(attentionLineId);
  }

  /**
   * Pushes the campaign's queue soon, folding calls the same way: every presence change of an
   * agent logged into the campaign asks for it (routeAgent), and so does every line push of the
   * campaign, so a burst of changes costs a few views, each read after the changes it covers,
   * instead of one query and one tenant-wide broadcast per change. One push at a time per campaign
   * also keeps an older view from overtaking a newer one.
   */
  publishCampaignSoon(tenantId: string, campaignId: string): void {
    this.coalesce(this.publishingCampaigns, campaignId, async () => {
      const views = await this.withViewVersion(`campaign:${campaignId}`, async (db) => ({
        value: await this.campaignQueues(tenantId, [campaignId], db),
      }));
      for (const campaign of views) {
        emitEphemeral(this.realtime, {
          namespace: 'staff',
          rooms: [roomName({ kind: 'tenant', id: tenantId })],
          event: 'campaignQueue.updated',
          data: campaign,
        });
      }
    });
  }

  /**
   * Runs `push` now unless a push of the same key is being prepared; then that one goes round once
   * more when done, so whatever changed before the call is seen by a push that starts after it.
   */
  private coalesce(pending: Map<string, { again: boolean }>, key: string, push: () => Promise<void>): void {
    const state = pending.get(key);
    if (state) {
      state.again = true;
      return;
    }
    const entry = { again: false };
    pending.set(key, entry);
    void (async () => {
      try {
        do {
          entry.again = false;
          await push().catch((error: Error) => this.logger.warn(`queue push: ${error.message}`));
        } while (entry.again);
      } finally {
        pending.delete(key);
      }
    })();
  }

  /**
   * Runs `read` in a transaction holding the view's version row (`line:<id>`, `campaign:<id>`),
   * just moved to the next value of the shared sequence: every process's pushes of one view are
   * read in version order, so a client keeping the highest version keeps the newest view (see
   * VIEW_VERSIONS in the contract). `read` gets what the line's customers were last told, by any
   * process, and may store what it tells them now.
   */
  private withViewVersion<T>(
    key: string,
    read: (db: Db, told: Record<string, string>) => Promise<{ value: T; told?: Record<string, string> }>,
  ): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      const [row] = (await manager.query(
        `INSERT INTO realtime_view_versions (view_key, version) VALUES ($1, nextval('realtime_view_version_seq'))
         ON CONFLICT (view_key) DO UPDATE SET version = nextval('realtime_view_version_seq') RETURNING told`,
        [key],
      )) as { told: Record<string, string> }[];
      const { value, told } = await read(manager, row.told);
      if (told) await manager.query(`UPDATE realtime_view_versions SET told = $2 WHERE view_key = $1`, [key, JSON.stringify(told)]);
      return value;
    });
  }

  async publishQueue(attentionLineId: string): Promise<void> {
    // The line's view and its customers' positions share the line's version, read in one transaction.
    const { line, changed } = await this.withViewVersion(`line:${attentionLineId}`, async (db, previous) => {
      const line = await this.lineQueue(attentionLineId, db);
      // Only customers whose position or estimate moved since any process last told them hear about
      // it, and only widget visitors: a messaging channel's customer has no socket to hear it on.
      const told: Record<string, string> = {};
      const changed: QueuePositionView[] = [];
      for (const position of await this.rankedPositions(attentionLineId, db, hasVisitor)) {
        const key = `${position.position}/${position.estimatedWaitSeconds}/${position.nobodyServing}`;
        told[position.conversationId] = key;
        if (previous[position.conversationId] !== key) changed.push(position);
      }
      // Nobody moved and nobody left: what was told stands, no need to write it again.
      const same = changed.length === 0 && Object.keys(told).length === Object.keys(previous).length;
      return { value: { line, changed }, told: same ? undefined : told };
    });
    const { tenantId, campaignId, ...view } = line;
    emitEphemeral(this.realtime, {
      namespace: 'staff',
      rooms: [roomName({ kind: 'tenant', id: tenantId }), roomName({ kind: 'line', id: attentionLineId })],
      event: 'queue.updated',
      data: view,
    });
    if (campaignId) this.publishCampaignSoon(tenantId, campaignId);
    emitEphemeralPerRoom(this.realtime, {
      namespace: 'visitor',
      event: 'queue.position',
      pushes: changed.map((position) => ({ room: roomName({ kind: 'conversation', id: position.conversationId }), data: position })),
    });
  }
}
