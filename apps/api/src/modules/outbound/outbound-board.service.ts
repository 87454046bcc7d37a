import {
  OUTBOUND_SOCKET_EVENTS,
  roomName,
  type CampaignIdleReason,
  type DialerCampaignStatus,
  type DialerMode,
  type OutboundBoardView,
} from '@centralita/contracts';
import { CARRIER_LEG_CALL_STATUSES, HUMAN_ANSWERED_CALL_STATUSES, UNANSWERED_CALL_STATUSES } from '@centralita/domain';
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { CoalescedPush } from '../machine-host/coalesced-push';
import { emitEphemeral } from '../machine-host/ephemeral';
import { RealtimeService } from '../realtime/realtime.service';
import { callView, sqlStatuses, type CallRow } from './outbound-rows';
import { OutboundTransactions } from './outbound-transaction.service';

const LIVE = sqlStatuses(CARRIER_LEG_CALL_STATUSES);
const IN_FLIGHT = sqlStatuses(UNANSWERED_CALL_STATUSES);
const HUMAN = sqlStatuses(HUMAN_ANSWERED_CALL_STATUSES);
/** Boards are recomputed at most this often per campaign while calls change. */
const PUSH_EVERY_MS = 300;

/** The supervisor's live board: computed from the machines' rows, pushed to the tenant room when a campaign's calls change. */
@Injectable()
export class OutboundBoardService implements OnModuleDestroy {
  private readonly logger = new Logger(OutboundBoardService.name);
  private readonly pushes = new CoalescedPush(PUSH_EVERY_MS, (campaignId) => this.push(campaignId), this.logger);

  constructor(
    private readonly dataSource: DataSource,
    private readonly realtime: RealtimeService,
    tx: OutboundTransactions,
  ) {
    tx.onBoardsChanged((ids) => ids.forEach((id) => this.pushes.schedule(id)));
  }

  onModuleDestroy(): void {
    this.pushes.clear();
  }

  private async push(campaignId: string): Promise<void> {
    if (!this.dataSource.isInitialized) return;
    const [row] = (await this.dataSource.query(`SELECT tenant_id FROM dialer_campaigns WHERE id = $1`, [campaignId])) as {
      tenant_id: string;
    }[];
    if (!row) return;
    const view = await this.board(row.tenant_id, campaignId);
    emitEphemeral(this.realtime, {
      namespace: 'staff',
      rooms: [roomName({ kind: 'tenant', id: row.tenant_id })],
      event: OUTBOUND_SOCKET_EVENTS.board,
      data: view,
    });
  }

  async board(tenantId: string, campaignId: string): Promise<OutboundBoardView> {
    const [campaign] = (await this.dataSource.query(
      `SELECT id, tenant_id, status, mode, abandon_cap_percent, agent_ids, idle_reason, idle_since, idle_until
         FROM dialer_campaigns WHERE id = $1 AND tenant_id = $2 AND deleted_at IS NULL`,
      [campaignId, tenantId],
    )) as {
      id: string;
      tenant_id: string;
      status: DialerCampaignStatus;
      mode: DialerMode;
      abandon_cap_percent: string;
      agent_ids: string[];
      idle_reason: CampaignIdleReason | null;
      idle_since: Date | null;
      idle_until: Date | null;
    }[];
    if (!campaign) throw AppException.notFound();
    const [[counts], [remaining], agents, recent] = (await Promise.all([
      this.dataSource.query(
        `SELECT count(*) FILTER (WHERE status IN ${LIVE})::int AS in_progress, count(*) FILTER (WHERE status IN ${IN_FLIGHT})::int AS in_flight,
                count(*)::int AS dialed, count(*) FILTER (WHERE status IN ${HUMAN})::int AS answered,
                count(*) FILTER (WHERE status = 'abandoned')::int AS abandoned
           FROM outbound_calls WHERE campaign_id = $1`,
        [campaignId],
      ),
      this.dataSource.query(`SELECT count(*)::int AS n FROM outbound_contacts WHERE campaign_id = $1 AND finished = false`, [campaignId]),
      this.dataSource.query(
        `SELECT p.user_id AS "agentId", u.name, p.status FROM agent_presence p JOIN users u ON u.id = p.user_id
          WHERE p.tenant_id = $1 AND p.status <> 'loggedOut' AND (cardinality($2::uuid[]) = 0 OR p.user_id = ANY($2::uuid[])) ORDER BY u.name`,
        [tenantId, campaign.agent_ids ?? []],
      ),
      this.dataSource.query(
        `SELECT oc.*, ct.name AS contact_name FROM outbound_calls oc JOIN outbound_contacts ct ON ct.id = oc.contact_id
          WHERE oc.campaign_id = $1 ORDER BY oc.updated_at DESC, oc.id LIMIT 20`,
        [campaignId],
      ),
    ])) as [
      [{ in_progress: number; in_flight: number; dialed: number; answered: number; abandoned: number }],
      [{ n: number }],
      { agentId: string; name: string; status: string }[],
      (CallRow & { contact_name: string | null })[],
    ];
    const agentsByState: Record<string, number> = {};
    for (const agent of agents) agentsByState[agent.status] = (agentsByState[agent.status] ?? 0) + 1;
    const waiting = agentsByState['waitingOutboundCall'] ?? 0;
    return {
      campaignId,
      tenantId,
      status: campaign.status,
      mode: campaign.mode,
      dialLevel: waiting === 0 ? 0 : Math.round((counts.in_flight / waiting) * 100) / 100,
      callsInProgress: counts.in_progress,
      dialed: counts.dialed,
      answered: counts.answered,
      abandoned: counts.abandoned,
      abandonRatePercent: counts.answered === 0 ? null : Math.round((counts.abandoned / counts.answered) * 10000) / 100,
      abandonCapPercent: Number(campaign.abandon_cap_percent),
      remainingRecords: remaining.n,
      agentsByState,
      agents,
      recentCalls: recent.map((call) => callView(call, call.contact_name)),
      // The dialer's reason for its last empty round; only a running campaign is idle (paused says so itself).
      idle:
        campaign.status === 'running' && campaign.idle_reason && campaign.idle_since
          ? {
              reason: campaign.idle_reason,
              since: new Date(campaign.idle_since).toISOString(),
              until: campaign.idle_until ? new Date(campaign.idle_until).toISOString() : null,
            }
          : null,
      at: new Date().toISOString(),
    };
  }
}
