import { QUEUES, type CampaignQueueView, type LineQueueView, type QueuePositionView } from '@centralita/contracts';
import {
  agentPresenceMachine,
  DEFAULT_BLENDED_RULES,
  DEFAULT_ROUTING_POLICY,
  inCallCandidate,
  mayTakeCall,
  mayTakeChat,
  restore,
  routingCandidate,
  selectAgent,
  type AgentCandidate,
  type BlendedLineRules,
  type BlendedLoad,
  type RoutingPolicy,
} from '@centralita/domain';
import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import type { Job } from 'bullmq';
import type Redis from 'ioredis';
import { DataSource, type EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { NaturalBatcher } from '../../common/natural-batcher';
import { isIllegalTransition, MachineHostService, type AgentStepPlan } from '../machine-host/machine-host.service';
import type { VersionedWrite } from '../machine-host/versioned-write';
import type { AgentRow, ConversationRow } from '../machine-host/views';
import { writeOutbox, type OutboxEffect } from '../machine-host/outbox';
import { QueueRegistry } from '../machine-host/queue-registry.service';
import { REALTIME_CONFIG, type RealtimeConfig } from '../machine-host/realtime-config';
import { REDIS, RedisKeys } from '../redis/redis.module';
import { QUEUE_PUBLISH_INTERVAL_MS, QueuePublishThrottle } from './queue-publisher';
import type { Db } from './queue-view-rows';
import { QueueViews } from './queue-views';
import { RoutingRows, type AgentLines } from './routing-rows';

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

/** The steps a routing batch planned, written together at its end (MachineHostService.writeLockedSteps). */
interface AssignmentSteps {
  agents: AgentStepPlan[];
  conversations: VersionedWrite[];
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
 * own transaction. Its statements are RoutingRows'; the queue views and their pushes are
 * QueueViews', reached through the delegating methods below (their callers predate the split).
 */
@Injectable()
export class RoutingService implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RoutingService.name);
  private sweeper: NodeJS.Timeout | null = null;
  /** Routing runs in progress in this process, by line (see routeLine). */
  private readonly lineRuns = new Map<string, LineRun>();
  /** Queue pushes of this process, paced per line (see publishQueueSoon). */
  private readonly publishing: QueuePublishThrottle;
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
    run: (agentIds) => this.rows.agentLines(this.dataSource.manager, agentIds),
  });

  constructor(
    private readonly dataSource: DataSource,
    private readonly host: MachineHostService,
    private readonly queues: QueueRegistry,
    @Inject(REALTIME_CONFIG) private readonly config: RealtimeConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(QUEUE_PUBLISH_INTERVAL_MS) publishIntervalMs: number,
    private readonly rows: RoutingRows,
    private readonly views: QueueViews,
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

  /** Before the connections close: the queue pushes still waiting for their interval go now (see flush). */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    await this.publishing.flush();
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
    for (const line of await this.rows.waitingLines(this.dataSource.manager)) await this.routeLine(line);
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
    if (presence?.tenant_id && presence.campaign_id) this.views.publishCampaignSoon(presence.tenant_id, presence.campaign_id);
  }

  /**
   * The agent left holding conversations: each goes back to its line's queue. The host now does
   * this in the logout's own transaction; this handles 'requeue' jobs an older process queued.
   */
  async requeue(conversationIds: string[]): Promise<void> {
    for (const id of conversationIds) {
      const row = await this.rows.readForRequeue(this.dataSource.manager, id);
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
          await this.rows.lockLine(manager, attentionLineId);
          // Channels offered to nobody now stay out of the heads, so the chats behind them are served.
          const withheld = [...this.channelRules].filter(([, rule]) => !rule.offerable()).map(([channel]) => channel);
          // The queue's heads, locked in id order (the lock order: a batch of customers' messages
          // locks conversations that way too, so locking them in queue order could deadlock with it;
          // measured at +0.2 ms a routing transaction), then served in queue order. One that left the
          // queue before its lock was granted is not returned.
          const heads = (await this.rows.lockHeads(manager, attentionLineId, ROUTING_BATCH, withheld)).sort(
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
   * another transaction holds (FOR NO KEY UPDATE SKIP LOCKED): a round never waits on an agent row, so the
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
    const rows = await this.rows.lockCandidates(
      manager,
      { attentionLineId: candidates.attentionLineId, withInCall: candidates.blended.chatsDuringCall > 0, policy: candidates.policy },
      candidates.skipLocked ? { skipLocked: true, lockedAlready: candidates.locked, limit } : { skipLocked: false },
    );
    candidates.exhausted = !candidates.skipLocked || limit === null || rows.length < limit;
    candidates.locked.push(...rows.map((row) => row.user_id));
    const page = rows
      .map((row) => {
        const snapshot = restore(agentPresenceMachine, row.snapshot as never);
        return routingCandidate(snapshot) ?? inCallCandidate(snapshot);
      })
      .filter((c): c is AgentCandidate => c !== null);
    const held =
      page.length === 0
        ? []
        : await this.rows.heldLoads(
            manager,
            page.map((candidate) => candidate.agentId),
            candidates.callChannels,
          );
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
    return this.rows.roomBeyond(
      manager,
      { attentionLineId: candidates.attentionLineId, withInCall: candidates.blended.chatsDuringCall > 0 },
      candidates.locked,
    );
  }

  /** The line's routing policy and blended rules (defaults for a line without a routing row). */
  private async lineRules(manager: EntityManager, attentionLineId: string): Promise<{ policy: RoutingPolicy; blended: BlendedLineRules }> {
    const row = await this.rows.lineRouting(manager, attentionLineId);
    return {
      policy: row?.routing_policy ?? DEFAULT_ROUTING_POLICY,
      blended: row ? { chatsDuringCall: row.chats_during_call, offerCallsWithChats: row.offer_calls_with_chats } : DEFAULT_BLENDED_RULES,
    };
  }

  /** The line's queue as supervisors see it (QueueViews). */
  lineQueue(attentionLineId: string, db?: Db): Promise<LineQueueView & { tenantId: string; campaignId: string | null }> {
    return this.views.lineQueue(attentionLineId, db);
  }

  /** Live queues of the tenant's campaigns, or of the given ones (QueueViews). */
  campaignQueues(tenantId: string, campaignIds?: string[], db?: Db): Promise<CampaignQueueView[]> {
    return this.views.campaignQueues(tenantId, campaignIds, db);
  }

  /** Position and estimated wait of every waiting customer of the line, in serving order (QueueViews). */
  positions(attentionLineId: string, db?: Db): Promise<QueuePositionView[]> {
    return this.views.positions(attentionLineId, db);
  }

  /** Expected wait for a customer about to start a chat on the line (QueueViews). */
  newcomerWait(attentionLineId: string): Promise<{ seconds: number | null; nobodyServing: boolean }> {
    return this.views.newcomerWait(attentionLineId);
  }

  /**
   * Pushes the line's queue soon, paced (QUEUE_PUBLISH_INTERVAL_MS): the first call pushes at once,
   * calls while that push runs or within the interval after it fold into one trailing push, so a
   * busy line costs at most one queue view and one round of position pushes per interval, however
   * many routing rounds it has, and its customers still end told their last position. The pacing
   * stays with routing, which asks for it after each round; the push itself is QueueViews'.
   */
  publishQueueSoon(attentionLineId: string): void {
    this.publishing.request(attentionLineId);
  }

  /**
   * Pushes the line's queue and its customers' changed positions now (QueueViews). The pacing above
   * pushes through this method, so every push of a line is one call here (queue-pacing.e2e-spec counts them).
   */
  publishQueue(attentionLineId: string): Promise<void> {
    return this.views.publishQueue(attentionLineId);
  }
}
