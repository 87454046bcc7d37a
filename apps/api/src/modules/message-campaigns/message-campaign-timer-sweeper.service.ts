import { CAMPAIGN_ENDED_SKIP_REASON, QUEUES, outboxJob } from '@centralita/contracts';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import type { Principal } from '../auth/principal';
import { MachineHostService } from '../machine-host/machine-host.service';
import { jobEffect, writeOutbox } from '../machine-host/outbox';
import { campaignBoardChanged } from './campaign-board-signal';
import { MessageCampaignsService } from './message-campaigns.service';

/** Every API process looks for due message-campaign deadlines this often (as CAMPAIGN_TIMER_POLL_MS for the dialer's). */
export const MESSAGE_CAMPAIGN_TIMER_POLL_MS = 1000;
const BATCH = 100;

type Due = { id: string; tenant_id: string; kind: 'end' | 'start' | 'resume' };

/**
 * Fires message campaigns' deadlines, the dialer's way (CampaignTimerSweeper): each deadline is a
 * column of the campaign's row written with the change that set it, so nothing is lost to a crash,
 * and every API process sweeps the due ones each second, each taken with SKIP LOCKED and checked
 * again under its lock, so it fires once.
 *
 * - `starts_at` of a `scheduled` campaign: it starts (its recipients are written then).
 * - `ends_at` of a scheduled, running or paused one: it finishes; recipients not sent yet are
 *   skipped with reason `campaign_ended` (those being sent keep their fate).
 * - `resume_at` of a running one the worker parked outside its sending window: a new run.
 *
 * `sweep(now)` takes the clock reading to judge by, so a test moves time without waiting.
 */
@Injectable()
export class MessageCampaignTimerSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(MessageCampaignTimerSweeper.name);
  private poller: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly host: MachineHostService,
    private readonly campaigns: MessageCampaignsService,
  ) {}

  onApplicationBootstrap(): void {
    this.poller = setInterval(() => void this.sweep().catch(() => undefined), MESSAGE_CAMPAIGN_TIMER_POLL_MS);
    this.poller.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.poller) clearInterval(this.poller);
    await this.sweeping?.catch(() => undefined);
  }

  /** Fires every deadline due at `now` (epoch ms); one sweep at a time per process. */
  async sweep(now: number = Date.now()): Promise<void> {
    while (this.sweeping) await this.sweeping.catch(() => undefined);
    this.sweeping = this.fireDue(now).finally(() => {
      this.sweeping = null;
    });
    return this.sweeping;
  }

  private async fireDue(now: number): Promise<void> {
    if (this.stopped || !this.dataSource.isInitialized) return;
    const at = new Date(now);
    // An end beats a start or a resume due at the same sweep.
    const due = (await this.dataSource.query(
      `SELECT id, tenant_id, 'end' AS kind FROM message_campaigns WHERE ends_at <= $1 AND status IN ('scheduled', 'running', 'paused')
       UNION ALL
       SELECT id, tenant_id, 'start' FROM message_campaigns WHERE status = 'scheduled' AND starts_at <= $1 AND (ends_at IS NULL OR ends_at > $1)
       UNION ALL
       SELECT id, tenant_id, 'resume' FROM message_campaigns WHERE status = 'running' AND resume_at <= $1 AND (ends_at IS NULL OR ends_at > $1)
       LIMIT $2`,
      [at, BATCH],
    )) as Due[];
    for (const one of due) {
      if (this.stopped) return;
      try {
        if (one.kind === 'end') await this.end(one, at);
        else if (one.kind === 'start') await this.start(one);
        else await this.resume(one, at);
        campaignBoardChanged(one.id);
      } catch (error) {
        this.logger.warn(`message campaign ${one.id} ${one.kind} not fired (next sweep retries): ${(error as Error).message}`);
      }
    }
  }

  private async end(due: Due, at: Date): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const [locked] = (await manager.query(
        `SELECT id FROM message_campaigns WHERE id = $1 AND ends_at <= $2 AND status IN ('scheduled', 'running', 'paused') FOR NO KEY UPDATE SKIP LOCKED`,
        [due.id, at],
      )) as unknown[];
      if (!locked) return;
      await manager.query(
        `UPDATE message_campaigns SET status = 'finished', finished_at = now(), idle_reason = NULL, idle_until = NULL, resume_at = NULL,
           updated_at = now() WHERE id = $1`,
        [due.id],
      );
      await manager.query(
        `UPDATE message_campaign_recipients SET status = 'skipped', skip_reason = $2, claim_token = NULL, updated_at = now()
         WHERE campaign_id = $1 AND status = 'queued'`,
        [due.id, CAMPAIGN_ENDED_SKIP_REASON],
      );
    });
  }

  /**
   * The campaign's own start, as a supervisor's would be. A template no longer approved sends it back
   * to draft (it has no recipients yet), saying why; a supervisor starts it once the template is back.
   */
  private async start(due: Due): Promise<void> {
    const system = { clientId: due.tenant_id } as Principal;
    try {
      await this.campaigns.startCampaign(system, due.id);
    } catch (error) {
      if (!(error instanceof AppException) || error.code !== 'conflict') throw error;
      await this.dataSource.query(
        `UPDATE message_campaigns SET status = 'draft', paused_reason = 'template_not_approved', paused_detail = $2, updated_at = now()
         WHERE id = $1 AND status = 'scheduled'`,
        [due.id, error.message.slice(0, 500)],
      );
    }
  }

  /** A new run for a campaign parked outside its sending window (the job id's generation makes it one). */
  private async resume(due: Due, at: Date): Promise<void> {
    await this.host.transaction(async (manager, outbox) => {
      const [campaign] = (await manager.query(
        `SELECT id, run_generation FROM message_campaigns WHERE id = $1 AND status = 'running' AND resume_at <= $2 FOR NO KEY UPDATE SKIP LOCKED`,
        [due.id, at],
      )) as { id: string; run_generation: number }[];
      if (!campaign) return;
      const generation = campaign.run_generation + 1;
      await manager.query(`UPDATE message_campaigns SET resume_at = NULL, run_generation = $2, updated_at = now() WHERE id = $1`, [
        campaign.id,
        generation,
      ]);
      outbox.push(
        ...(await writeOutbox(manager, [
          jobEffect(
            outboxJob(
              QUEUES.messageCampaigns,
              { name: 'run', data: { tenantId: due.tenant_id, campaignId: campaign.id } },
              { jobId: `message-campaign.${campaign.id}.${generation}` },
            ),
          ),
        ])),
      );
    });
  }
}
