import { roomName, type CampaignQueueView, type LineQueueView, type QueuePositionView } from '@centralita/contracts';
import { estimateWait, estimateWaitForNewcomer } from '@centralita/domain';
import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { hasVisitor } from '../conversations/visitor';
import { emitEphemeral, emitEphemeralPerRoom } from '../machine-host/ephemeral';
import { RealtimeService } from '../realtime/realtime.service';
import { QueueViewRows, type Db } from './queue-view-rows';

/**
 * The queues as supervisors and waiting customers see them: a line's and a campaign's queue, each
 * customer's position and expected wait, and their pushes. Each push reads its view in a
 * transaction holding the view's version (withViewVersion), so every process's pushes of one view
 * are ordered. Reads only: what routing changed is read after the fact. A line's pushes are paced by
 * RoutingService (publishQueueSoon), which asks for them after each routing round.
 */
@Injectable()
export class QueueViews {
  private readonly logger = new Logger(QueueViews.name);
  /** Campaign queue pushes in progress in this process, by campaign (see publishCampaignSoon). */
  private readonly publishingCampaigns = new Map<string, { again: boolean }>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly rows: QueueViewRows,
    private readonly realtime: RealtimeService,
  ) {}

  /** The line's queue as supervisors see it. */
  async lineQueue(
    attentionLineId: string,
    db: Db = this.dataSource.manager,
  ): Promise<LineQueueView & { tenantId: string; campaignId: string | null }> {
    const row = await this.rows.lineQueue(db, attentionLineId);
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
  async campaignQueues(tenantId: string, campaignIds?: string[], db: Db = this.dataSource.manager): Promise<CampaignQueueView[]> {
    const rows = await this.rows.campaignQueues(db, tenantId, campaignIds ?? null);
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
  positions(attentionLineId: string, db: Db = this.dataSource.manager): Promise<QueuePositionView[]> {
    return this.rankedPositions(attentionLineId, db, () => true);
  }

  /** Positions of the waiting customers whose channel `include` keeps, each ranked among everyone waiting. */
  private async rankedPositions(
    attentionLineId: string,
    db: Db,
    include: (channel: string | null) => boolean,
  ): Promise<QueuePositionView[]> {
    const waiting = await this.rows.waitingInOrder(db, attentionLineId);
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
    const [queue, serving] = await Promise.all([
      this.rows.arrivals(this.dataSource.manager, attentionLineId),
      this.lineServing(attentionLineId, this.dataSource.manager),
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
  private async lineServing(attentionLineId: string, db: Db): Promise<{ times: number[]; slots: number }> {
    const times = await this.rows.handleTimes(db, attentionLineId);
    const slots = await this.rows.servingSlots(db, attentionLineId);
    return { times: times.filter((seconds) => seconds > 0), slots };
  }

  /**
   * Pushes the line's queue view to its staff and the changed positions to its waiting widget
   * visitors, then asks for the campaign's push. The line's view and its customers' positions share
   * the line's version, read in one transaction.
   */
  async publishQueue(attentionLineId: string): Promise<void> {
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

  /**
   * Pushes the campaign's queue soon, folding calls: every presence change of an agent logged into
   * the campaign asks for it (RoutingService.routeAgent), and so does every line push of the
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
      const previous = await this.rows.nextViewVersion(manager, key);
      const { value, told } = await read(manager, previous);
      if (told) await this.rows.storeTold(manager, key, told);
      return value;
    });
  }
}
