import {
  campaignTimer,
  LIVE_CAMPAIGN_STATUSES,
  type Actor,
  type CampaignStatus,
  type DialingMode,
  type TransitionRecord,
} from '@centralita/domain';
import { planCreate, planStep, stepWrite } from '../machine-host/machine-runner';
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { ofTenant } from '../machine-host/machine-rows';
import { OutboundMachineRows, PgOutboundMachineRows } from './outbound-machine-rows';
import { dialerCampaignBinding, SYSTEM, type CampaignEventInput, type CampaignRow } from './outbound-rows';
import { OutboundTransactions, type Work } from './outbound-transaction.service';

/**
 * The host of the `dialer-campaign` machine: lock → step (the runner, dialerCampaignBinding) → row +
 * snapshot v+1 + transition_log in one transaction. The timer the campaign's state guards (its
 * start, its window's end) is a deadline written by the same UPDATE (`timer_event`, `timer_at`), so
 * it commits or rolls back with the step and no process can die between the two;
 * CampaignTimerSweeper fires it. The dialer paces every campaign whose row says `running`, so
 * `startDialing`/`stopDialing` need no effect here. Its tables are reached through OutboundMachineRows only.
 */
@Injectable()
export class CampaignHostService {
  private readonly rows: OutboundMachineRows;

  constructor(
    private readonly tx: OutboundTransactions,
    // Nest injects the module's OutboundMachineRows; processes that build the host by hand get PostgreSQL's.
    @Optional() @Inject(OutboundMachineRows) rows?: OutboundMachineRows,
  ) {
    this.rows = rows ?? new PgOutboundMachineRows();
  }

  /** Plans a draft campaign: its machine's first snapshot, status and log record; the caller inserts the row (and logs it with logCampaignCreated). */
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
    await this.rows.appendLog(manager, { entity: 'dialer_campaign', id, tenantId, record, version: 1, data: null });
  }

  async lockCampaign(manager: EntityManager, id: string, tenantId?: string): Promise<CampaignRow> {
    return ofTenant(await this.rows.lockCampaign(manager, id), tenantId);
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
    const written = await this.rows.writeVersioned<CampaignRow>(manager, stepWrite(dialerCampaignBinding, plan, []));
    if (!written)
      throw new AppException('conflict', { message: 'The campaign changed meanwhile; try again', messageKey: 'changedMeanwhile' });
    const row = written.row;
    if (timer && Number(current.timer_at) !== timer.at) w.deadlines.push(timer.at);
    w.boards.add(id);
    return row;
  }

  /** Campaigns whose timer is due at `now` (epoch ms), oldest first; the sweeper fires each on its own. */
  dueTimers(manager: EntityManager, now: number, limit: number): Promise<string[]> {
    return this.rows.dueTimers(manager, now, limit);
  }

  /**
   * Fires one campaign's due timer, in its own transaction. The row is taken with SKIP LOCKED (another
   * process or a supervisor holds it: it is theirs this round) and checked again under the lock, so
   * a timer fires once however many processes sweep. A timer the machine refuses is dropped: it is
   * not one the campaign's state still guards.
   */
  fireTimer(id: string, now: number): Promise<boolean> {
    return this.tx.run(async (manager, w) => {
      const due = await this.rows.lockDueTimer(manager, id, now);
      if (!due?.timer_event) return false;
      await this.rows.savepoint(manager, 'campaign_timer');
      try {
        await this.stepCampaign(manager, w, id, { type: due.timer_event, armedAt: Number(due.timer_at) }, SYSTEM);
        return true;
      } catch (error) {
        if (!(error instanceof AppException && error.code === 'illegal_transition')) throw error;
        await this.rows.rollbackToSavepoint(manager, 'campaign_timer');
        await this.rows.clearTimer(manager, id);
        return false;
      }
    });
  }

  /** Completes a live campaign that has no contact left to call and no callback pending. */
  async completeIfExhausted(manager: EntityManager, w: Work, campaign: CampaignRow): Promise<void> {
    if (LIVE_CAMPAIGN_STATUSES.includes(campaign.status as CampaignStatus)) {
      const open = await this.rows.countOpenContacts(manager, campaign.id);
      const pending = await this.rows.countPendingCallbacks(manager, campaign.id);
      if (open === 0 && pending === 0) await this.stepCampaign(manager, w, campaign.id, { type: 'campaign.completed' }, SYSTEM);
    }
  }
}
