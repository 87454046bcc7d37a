import {
  campaignTimer,
  LIVE_CAMPAIGN_STATUSES,
  type Actor,
  type CampaignStatus,
  type DialingMode,
  type TransitionRecord,
} from '@centralita/domain';
import { planCreate, planStep, stepWrite } from '../machine-host/machine-runner';
import { appendTransitionLog } from '../machine-host/transition-log';
import { writeVersioned } from '../machine-host/versioned-write';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { dialerCampaignBinding, SYSTEM, type CampaignEventInput, type CampaignRow } from './outbound-rows';
import { OutboundTransactions, type Work } from './outbound-transaction.service';

/**
 * The host of the `dialer-campaign` machine: lock → step (the runner, dialerCampaignBinding) → row +
 * snapshot v+1 + transition_log in one transaction. The timer the campaign's state guards (its
 * start, its window's end) is a deadline written by the same UPDATE (`timer_event`, `timer_at`), so
 * it commits or rolls back with the step and no process can die between the two;
 * CampaignTimerSweeper fires it. The dialer paces every campaign whose row says `running`, so
 * `startDialing`/`stopDialing` need no effect here.
 */
@Injectable()
export class CampaignHostService {
  constructor(private readonly tx: OutboundTransactions) {}

  /** Inserts a draft campaign (row + snapshot v1 + its first log row); the caller fills the columns. */
  async createCampaign(
    manager: EntityManager,
    id: string,
    tenantId: string,
    mode: DialingMode,
    actor: Actor,
  ): Promise<{ snapshot: string; record: TransitionRecord; status: string }> {
    const created = planCreate(dialerCampaignBinding, { id, tenantId, mode }, actor);
    return { snapshot: created.snapshotJson, record: created.record, status: created.status };
  }

  async logCampaignCreated(manager: EntityManager, id: string, tenantId: string, record: TransitionRecord): Promise<void> {
    await appendTransitionLog(manager, 'dialer_campaign', id, tenantId, record, 1);
  }

  async lockCampaign(manager: EntityManager, id: string, tenantId?: string): Promise<CampaignRow> {
    const [row] = (await manager.query(`SELECT * FROM dialer_campaigns WHERE id = $1 AND deleted_at IS NULL FOR UPDATE`, [
      id,
    ])) as CampaignRow[];
    if (!row || (tenantId !== undefined && row.tenant_id !== tenantId)) throw AppException.notFound();
    return row;
  }

  dispatchCampaign(id: string, input: CampaignEventInput, actor: Actor, tenantId?: string): Promise<CampaignRow> {
    return this.tx.run((manager, w) => this.stepCampaign(manager, w, id, input, actor, tenantId));
  }

  async stepCampaign(
    manager: EntityManager,
    w: Work,
    id: string,
    input: CampaignEventInput,
    actor: Actor,
    tenantId?: string,
  ): Promise<CampaignRow> {
    const current = await this.lockCampaign(manager, id, tenantId);
    const plan = planStep(dialerCampaignBinding, current, input, actor);
    const timer = campaignTimer(plan.snapshot);
    // Versioned UPDATE and its log row in one statement (writeVersioned, every machine's persist step).
    const written = await writeVersioned<CampaignRow>(manager, stepWrite(dialerCampaignBinding, plan, []));
    if (!written)
      throw new AppException('conflict', { message: 'The campaign changed meanwhile; try again', messageKey: 'changedMeanwhile' });
    const row = written.row;
    if (timer && Number(current.timer_at) !== timer.at) w.deadlines.push(timer.at);
    w.boards.add(id);
    return row;
  }

  /** Campaigns whose timer is due at `now` (epoch ms), oldest first; the sweeper fires each on its own. */
  async dueTimers(manager: EntityManager, now: number, limit: number): Promise<string[]> {
    const rows = (await manager.query(
      `SELECT id FROM dialer_campaigns WHERE timer_at IS NOT NULL AND deleted_at IS NULL AND timer_at <= $1 ORDER BY timer_at, id LIMIT $2`,
      [now, limit],
    )) as { id: string }[];
    return rows.map((row) => row.id);
  }

  /**
   * Fires one campaign's due timer, in its own transaction. The row is taken with SKIP LOCKED (another
   * process or a supervisor holds it: it is theirs this round) and checked again under the lock, so
   * a timer fires once however many processes sweep. A timer the machine refuses is dropped: it is
   * not one the campaign's state still guards.
   */
  fireTimer(id: string, now: number): Promise<boolean> {
    return this.tx.run(async (manager, w) => {
      const [due] = (await manager.query(
        `SELECT id, timer_event, timer_at FROM dialer_campaigns
          WHERE id = $1 AND timer_at IS NOT NULL AND timer_at <= $2 AND deleted_at IS NULL FOR UPDATE SKIP LOCKED`,
        [id, now],
      )) as Pick<CampaignRow, 'id' | 'timer_event' | 'timer_at'>[];
      if (!due?.timer_event) return false;
      await manager.query('SAVEPOINT campaign_timer');
      try {
        await this.stepCampaign(manager, w, id, { type: due.timer_event, armedAt: Number(due.timer_at) }, SYSTEM);
        return true;
      } catch (error) {
        if (!(error instanceof AppException && error.code === 'illegal_transition')) throw error;
        await manager.query('ROLLBACK TO SAVEPOINT campaign_timer');
        await manager.query(`UPDATE dialer_campaigns SET timer_event = NULL, timer_at = NULL WHERE id = $1`, [id]);
        return false;
      }
    });
  }

  /** Completes a live campaign that has no contact left to call and no callback pending. */
  async completeIfExhausted(manager: EntityManager, w: Work, campaign: CampaignRow): Promise<void> {
    if (LIVE_CAMPAIGN_STATUSES.includes(campaign.status as CampaignStatus)) {
      const [{ open }] = (await manager.query(
        `SELECT count(*)::int AS open FROM outbound_contacts WHERE campaign_id = $1 AND finished = false`,
        [campaign.id],
      )) as { open: number }[];
      const [{ pending }] = (await manager.query(
        `SELECT count(*)::int AS pending FROM outbound_callbacks WHERE campaign_id = $1 AND status = 'pending'`,
        [campaign.id],
      )) as { pending: number }[];
      if (open === 0 && pending === 0) await this.stepCampaign(manager, w, campaign.id, { type: 'campaign.completed' }, SYSTEM);
    }
  }
}
