import type { OutboundCallEventJob } from '@centralita/contracts';
import { Injectable } from '@nestjs/common';
import { AppException } from '../../common/app.exception';
import { isIllegalTransition } from '../machine-host/machine-host.service';
import { CallHostService } from './call-host.service';
import { CampaignHostService } from './campaign-host.service';
import { SYSTEM, type CallEventInput, type CampaignRow } from './outbound-rows';
import { OutboundTransactions } from './outbound-transaction.service';

/**
 * Applies the jobs of `outbound-call-events`: what the dialer worker reports from the carrier, and
 * the call host's own abandon and wrap-up timers, as steps of the outbound machines. The dialer never
 * runs a machine; this is its only way in.
 */
@Injectable()
export class OutboundEventsService {
  constructor(
    private readonly tx: OutboundTransactions,
    private readonly calls: CallHostService,
    private readonly campaigns: CampaignHostService,
  ) {}

  /**
   * Applies one job from the dialer (or one of this host's timers). Jobs are consumed concurrently
   * and by every API process, so a call's carrier events carry their order with them: the dialer
   * numbers them 1, 2, … per call (job id `<callId>.<seq>`) and `applyCarrierEvent` applies number n
   * only after n-1 (a re-delivered one is dropped). Waiting for a predecessor, a call not created yet,
   * a deadlock or a moved version are transient: retried here a few times, then by BullMQ's backoff.
   */
  async apply(job: OutboundCallEventJob, jobId?: string): Promise<void> {
    const seq = CARRIER_EVENTS.has(job.kind) ? carrierSequence(jobId) : null;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.applyOnce(job, seq);
      } catch (error) {
        if (attempt >= TRANSIENT_ATTEMPTS || !isTransient(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 25 * attempt));
      }
    }
  }

  /**
   * A numbered carrier event, in order: applied when it is the call's next one, dropped when already
   * applied, retried when an earlier one is still on its way. A refused transition (the agent or a
   * timer moved the call first) still counts as applied, so the events after it are not held up; its
   * partial work is undone to a savepoint.
   */
  private async applyCarrierEvent(callId: string, seq: number, input: CallEventInput, at: number): Promise<void> {
    await this.tx.run(async (manager, w) => {
      const call = await this.calls.lockCall(manager, callId);
      const applied = Number(call.carrier_seq ?? 0);
      if (seq <= applied) return;
      if (seq > applied + 1) throw new CarrierEventEarly(callId, seq, applied);
      const mark = { outbox: w.outbox.length, timers: w.timers.length };
      await manager.query('SAVEPOINT carrier_event');
      try {
        await this.calls.stepCall(manager, w, callId, input, SYSTEM, undefined, at, call);
      } catch (error) {
        if (!isIllegalTransition(error)) throw error;
        await manager.query('ROLLBACK TO SAVEPOINT carrier_event');
        w.outbox.length = mark.outbox;
        w.timers.length = mark.timers;
      }
      await manager.query('UPDATE outbound_calls SET carrier_seq = $2 WHERE id = $1', [callId, seq]);
    });
  }

  /** One try of `apply`; refused events are expected (races with the agent) and dropped. */
  private async applyOnce(job: OutboundCallEventJob, seq: number | null): Promise<void> {
    const carrier = (callId: string, input: CallEventInput, at: number) =>
      seq === null ? this.calls.dispatchCall(callId, input, SYSTEM, undefined, at) : this.applyCarrierEvent(callId, seq, input, at);
    try {
      switch (job.kind) {
        case 'create':
          await this.calls.createCall(job);
          return;
        // Campaign timers are deadline columns now (CampaignTimerSweeper); these two kinds only drain jobs an
        // older version left in Redis. A timer fired twice is refused by the machine and dropped.
        case 'campaignStartTimer':
          await this.campaigns.dispatchCampaign(job.campaignId, { type: 'campaign.startTimeReached', armedAt: job.armedAt }, SYSTEM);
          return;
        case 'campaignExhausted':
          await this.tx.run(async (manager, w) => {
            const [campaign] = (await manager.query(`SELECT * FROM dialer_campaigns WHERE id = $1 FOR NO KEY UPDATE`, [
              job.campaignId,
            ])) as CampaignRow[];
            if (campaign) await this.campaigns.completeIfExhausted(manager, w, campaign);
          });
          return;
        case 'campaignIdle':
          // The dialer changed the campaign's idle reason: push the board after commit (nothing else to write).
          await this.tx.run(async (_manager, w) => {
            w.boards.add(job.campaignId);
          });
          return;
        case 'campaignEndTimer':
          await this.campaigns.dispatchCampaign(job.campaignId, { type: 'campaign.endTimeReached', armedAt: job.armedAt }, SYSTEM);
          return;
        case 'previewAwaitingLine':
          await this.tx.run((manager, w) => this.calls.pushPreviewLine(manager, w, job.callId));
          return;
        case 'ringing':
          await carrier(job.callId, { type: 'call.ringing' }, job.at);
          return;
        case 'answered':
          await carrier(job.callId, { type: 'call.answered', by: job.by }, job.at);
          return;
        case 'busy':
          await carrier(job.callId, { type: 'call.busy' }, job.at);
          return;
        case 'noAnswer':
          await carrier(job.callId, { type: 'call.notAnswered' }, job.at);
          return;
        case 'failed':
          await carrier(job.callId, { type: 'call.failed', reason: job.reason }, job.at);
          return;
        case 'hungUp':
          await carrier(job.callId, { type: 'call.hungUp' }, job.at);
          return;
        case 'abandonTimer':
          await this.calls.dispatchCall(job.callId, { type: 'call.abandonTimerExpired', armedAt: job.armedAt }, SYSTEM);
          return;
        case 'wrapUpTimer':
          await this.calls.dispatchCall(job.callId, { type: 'call.wrapUpExpired', armedAt: job.armedAt }, SYSTEM);
          return;
      }
    } catch (error) {
      if (isIllegalTransition(error)) return;
      if (error instanceof AppException && error.code === 'not_found') {
        // A carrier event can precede its call's 'create' (another consumer holds it, or it failed
        // and waits for its retry): retry the event after it instead of losing it, which would
        // leave the call dialling forever.
        if (CARRIER_EVENTS.has(job.kind)) throw new CallNotCreatedYet((job as { callId: string }).callId);
        return;
      }
      throw error;
    }
  }
}

const TRANSIENT_ATTEMPTS = 8;

/** Failures that succeed when tried again: PostgreSQL deadlocks and serialization failures, a moved version. */
function isTransient(error: unknown): boolean {
  if (error instanceof CarrierEventEarly || error instanceof CallNotCreatedYet) return true;
  if (error instanceof AppException) return error.code === 'conflict';
  const e = error as { code?: string; driverError?: { code?: string } };
  const code = e?.driverError?.code ?? e?.code;
  return code === '40P01' || code === '40001';
}

/** A carrier event whose predecessor (by the dialer's numbering) is not applied yet. */
class CarrierEventEarly extends Error {
  constructor(callId: string, seq: number, applied: number) {
    super(`call ${callId}: carrier event ${seq} waits for event ${applied + 1}`);
  }
}

class CallNotCreatedYet extends Error {
  constructor(callId: string) {
    super(`call ${callId} is not created yet`);
  }
}

/**
 * The dialer's number for a carrier event, from the job id `<callId>.<seq>`; null for reports that are
 * not numbered (an originate failure, calls the dialer lost in a restart): those apply as they come.
 */
export function carrierSequence(jobId: string | undefined): number | null {
  const match = /\.(\d+)$/.exec(jobId ?? '');
  if (!match) return null;
  const seq = Number(match[1]);
  return Number.isSafeInteger(seq) && seq > 0 ? seq : null;
}

/** Events the dialer reports from the carrier, in order after the call's 'create'. */
const CARRIER_EVENTS = new Set<OutboundCallEventJob['kind']>(['ringing', 'answered', 'busy', 'noAnswer', 'failed', 'hungUp']);
