import { REALTIME_QUEUES, roomName, type LineQueueView, type QueuePositionView } from '@centralita/contracts';
import {
  agentPresenceMachine,
  DEFAULT_ROUTING_POLICY,
  estimateWait,
  restore,
  routingCandidate,
  selectAgent,
  type AgentCandidate,
  type ConversationContext,
  type RoutingPolicy,
} from '@centralita/domain';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Job } from 'bullmq';
import { DataSource, type EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { isIllegalTransition, MachineHostService } from '../machine-host/machine-host.service';
import { QueueRegistry } from '../machine-host/queue-registry.service';
import { REALTIME_CONFIG, type RealtimeConfig } from '../machine-host/realtime-config';
import { RealtimeService } from '../realtime/realtime.service';

const SYSTEM = { kind: 'system' } as const;

/**
 * Assigns waiting conversations to agents. One transaction per assignment, holding an advisory
 * lock on the line (one router per line at a time, across processes) and row locks on the
 * conversation and the agent: agent.conversationAssigned (which refuses beyond capacity) and
 * conversation.assigned commit together or not at all. Lock order is always line → conversation
 * → agent, the same order closing and transferring take, so routers never deadlock with them.
 */
@Injectable()
export class RoutingService implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RoutingService.name);
  private sweeper: NodeJS.Timeout | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly host: MachineHostService,
    private readonly queues: QueueRegistry,
    private readonly realtime: RealtimeService,
    @Inject(REALTIME_CONFIG) private readonly config: RealtimeConfig,
  ) {}

  onModuleInit(): void {
    this.queues.handle(REALTIME_QUEUES.routing, (job) => this.onJob(job));
    this.queues.handle(REALTIME_QUEUES.timers, (job) => this.onTimer(job));
  }

  onApplicationBootstrap(): void {
    // Whatever a lost job or a crash left behind, nothing waits while an eligible agent has room.
    this.sweeper = setInterval(
      () => void this.sweep().catch((error: Error) => this.logger.warn(`sweep: ${error.message}`)),
      this.config.routingSweepMs,
    );
    this.sweeper.unref();
  }

  onApplicationShutdown(): void {
    if (this.sweeper) clearInterval(this.sweeper);
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

  async sweep(): Promise<void> {
    const lines: { attention_line_id: string }[] = await this.dataSource.query(
      `SELECT DISTINCT attention_line_id FROM conversations WHERE status = 'LiningUp' AND attention_line_id IS NOT NULL`,
    );
    for (const line of lines) await this.routeLine(line.attention_line_id);
  }

  async routeAgent(agentId: string): Promise<void> {
    const lines: { attention_line_id: string }[] = await this.dataSource.query(
      `SELECT a.attention_line_id FROM agent_attention_lines a
       WHERE a.user_id = $1 AND EXISTS (SELECT 1 FROM conversations c WHERE c.attention_line_id = a.attention_line_id AND c.status = 'LiningUp')`,
      [agentId],
    );
    for (const line of lines) await this.routeLine(line.attention_line_id);
  }

  /** The agent left holding conversations: each goes back to its line's queue. */
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

  /** Assigns as many waiting conversations of the line as its agents have room for. */
  async routeLine(attentionLineId: string): Promise<number> {
    let assigned = 0;
    for (;;) {
      const done = await this.host.transaction(async (manager, outbox) => {
        await manager.query(`SELECT pg_advisory_xact_lock(hashtext('route:' || $1))`, [attentionLineId]);
        const [head] = (await manager.query(
          `SELECT id FROM conversations WHERE attention_line_id = $1 AND status = 'LiningUp' ORDER BY priority DESC, queued_at, id LIMIT 1 FOR UPDATE`,
          [attentionLineId],
        )) as { id: string }[];
        if (!head) return true;
        const candidates = await this.candidates(manager, attentionLineId);
        const policy = await this.policy(manager, attentionLineId);
        while (candidates.length > 0) {
          const pick = selectAgent(candidates, policy);
          if (!pick) return true;
          try {
            const agent = await this.host.dispatchAgent(
              manager,
              pick.agentId,
              { type: 'agent.conversationAssigned', conversationId: head.id },
              SYSTEM,
            );
            const conversation = await this.host.dispatchConversation(
              manager,
              head.id,
              { type: 'conversation.assigned', agentId: pick.agentId },
              SYSTEM,
            );
            outbox.push(...agent.outboxIds, ...conversation.outboxIds);
            return false;
          } catch (error) {
            // Another line's router filled this agent meanwhile (we saw them before locking): next one.
            if (!isIllegalTransition(error)) throw error;
            candidates.splice(candidates.indexOf(pick), 1);
          }
        }
        return true;
      });
      if (done) break;
      assigned++;
    }
    await this.publishQueue(attentionLineId).catch((error: Error) => this.logger.warn(`queue push: ${error.message}`));
    return assigned;
  }

  private async candidates(manager: EntityManager, attentionLineId: string): Promise<AgentCandidate[]> {
    const rows: { snapshot: never }[] = await manager.query(
      `SELECT p.snapshot FROM agent_presence p JOIN agent_attention_lines a ON a.user_id = p.user_id
       WHERE a.attention_line_id = $1 AND p.status IN ('available', 'busy') AND p.active_count < p.capacity`,
      [attentionLineId],
    );
    return rows.map((row) => routingCandidate(restore(agentPresenceMachine, row.snapshot))).filter((c): c is AgentCandidate => c !== null);
  }

  private async policy(manager: EntityManager, attentionLineId: string): Promise<RoutingPolicy> {
    const [row] = (await manager.query(`SELECT routing_policy FROM attention_line_routing WHERE attention_line_id = $1`, [
      attentionLineId,
    ])) as {
      routing_policy: RoutingPolicy;
    }[];
    return row?.routing_policy ?? DEFAULT_ROUTING_POLICY;
  }

  /** The line's queue as supervisors see it. */
  async lineQueue(attentionLineId: string): Promise<LineQueueView & { tenantId: string }> {
    const [row] = (await this.dataSource.query(
      `SELECT l.name, l.client_id,
         (SELECT count(*)::int FROM conversations c WHERE c.attention_line_id = l.id AND c.status = 'LiningUp') AS waiting,
         (SELECT min(c.queued_at) FROM conversations c WHERE c.attention_line_id = l.id AND c.status = 'LiningUp') AS oldest,
         (SELECT count(*)::int FROM agent_presence p JOIN agent_attention_lines a ON a.user_id = p.user_id
            WHERE a.attention_line_id = l.id AND p.status IN ('available', 'busy') AND p.active_count < p.capacity) AS available
       FROM attention_lines l WHERE l.id = $1`,
      [attentionLineId],
    )) as { name: string; client_id: string; waiting: number; oldest: Date | null; available: number }[];
    if (!row) throw AppException.notFound();
    return {
      attentionLineId,
      tenantId: row.client_id,
      name: row.name,
      waiting: row.waiting,
      longestWaitMs: row.oldest ? Math.max(0, Date.now() - new Date(row.oldest).getTime()) : 0,
      agentsAvailable: row.available,
    };
  }

  /** Position and estimated wait of every waiting customer of the line, in serving order. */
  async positions(attentionLineId: string): Promise<QueuePositionView[]> {
    const waiting: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM conversations WHERE attention_line_id = $1 AND status = 'LiningUp' ORDER BY priority DESC, queued_at, id`,
      [attentionLineId],
    );
    if (waiting.length === 0) return [];
    const handled: { seconds: number }[] = await this.dataSource.query(
      `SELECT EXTRACT(EPOCH FROM (c.closed_at - to_timestamp((c.snapshot->'context'->>'assignedAt')::bigint / 1000.0)))::float AS seconds
       FROM conversations c WHERE c.attention_line_id = $1 AND c.closed_at IS NOT NULL AND c.snapshot->'context'->>'assignedAt' IS NOT NULL
       ORDER BY c.closed_at DESC LIMIT 50`,
      [attentionLineId],
    );
    const [slots] = (await this.dataSource.query(
      `SELECT COALESCE(sum(p.capacity), 0)::int AS slots FROM agent_presence p JOIN agent_attention_lines a ON a.user_id = p.user_id
       WHERE a.attention_line_id = $1 AND p.status NOT IN ('loggedOut')`,
      [attentionLineId],
    )) as { slots: number }[];
    const times = handled.map((row) => row.seconds).filter((seconds) => seconds > 0);
    return waiting.map((row, index) => {
      const estimate = estimateWait(index + 1, times, slots?.slots ?? 0);
      return {
        conversationId: row.id,
        attentionLineId,
        position: index + 1,
        estimatedWaitSeconds: estimate === null ? null : Math.round(estimate),
      };
    });
  }

  async publishQueue(attentionLineId: string): Promise<void> {
    const line = await this.lineQueue(attentionLineId);
    const { tenantId, ...view } = line;
    this.realtime.emit(
      'staff',
      [roomName({ kind: 'tenant', id: tenantId }), roomName({ kind: 'line', id: attentionLineId })],
      'queue.updated',
      view,
    );
    for (const position of await this.positions(attentionLineId)) {
      this.realtime.emit('visitor', [roomName({ kind: 'conversation', id: position.conversationId })], 'queue.position', position);
    }
  }
}
