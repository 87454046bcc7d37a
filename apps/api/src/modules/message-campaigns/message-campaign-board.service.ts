import { MESSAGE_CAMPAIGN_SOCKET_EVENTS, roomName } from '@centralita/contracts';
import { readMessageCampaignBoard } from '@centralita/contracts/server';
import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CoalescedPush } from '../machine-host/coalesced-push';
import { emitEphemeral } from '../machine-host/ephemeral';
import { RealtimeService } from '../realtime/realtime.service';
import { onCampaignBoardChanged } from './campaign-board-signal';

/** Boards are re-read at most this often per campaign while receipts pour in (as the dialer's board). */
const PUSH_EVERY_MS = 300;

/**
 * The message campaign's live board on the API side: what changed here (start, pause, stop, the
 * timers, receipts, replies, a quality pause) is re-read and pushed to the tenant room, coalesced
 * per campaign, like the dialer's `outbound.board` (an ephemeral push: a snapshot read after the
 * fact that the next one replaces; the console re-reads over REST when it reconnects). What the
 * worker changes (sends) it pushes itself through the outbox (pushCampaignBoard).
 */
@Injectable()
export class MessageCampaignBoardService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(MessageCampaignBoardService.name);
  private readonly pushes = new CoalescedPush(PUSH_EVERY_MS, (campaignId) => this.push(campaignId), this.logger);
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly realtime: RealtimeService,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = onCampaignBoardChanged((id) => this.pushes.schedule(id));
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
    this.pushes.clear();
  }

  private async push(campaignId: string): Promise<void> {
    if (!this.dataSource.isInitialized) return;
    const read = await readMessageCampaignBoard(this.dataSource, campaignId);
    if (!read) return;
    emitEphemeral(this.realtime, {
      namespace: 'staff',
      rooms: [roomName({ kind: 'tenant', id: read.tenantId })],
      event: MESSAGE_CAMPAIGN_SOCKET_EVENTS.board,
      data: read.board,
    });
  }
}
