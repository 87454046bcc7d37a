import type { OutboundCallView } from '@centralita/contracts';
import {
  sqlStatusList,
  type Actor,
  type DialerCampaignEvent,
  type DialingMode,
  type OutboundCallEvent,
  type RetryPolicy,
} from '@centralita/domain';
import { AppException } from '../../common/app.exception';

/** The rows of the outbound machines, their views, and what every outbound step shares. */

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type CallEventInput = DistributiveOmit<OutboundCallEvent, 'at' | 'actor'>;
export type CampaignEventInput = DistributiveOmit<DialerCampaignEvent, 'at' | 'actor'>;

/** The actor of everything the dialer and the host's timers do. */
export const SYSTEM: Actor = { kind: 'system', id: 'dialer' };
/** Wrap-up ends by itself after this long when the agent picks no disposition. */
export const WRAP_UP_SECONDS = 120;

export interface CampaignRow {
  id: string;
  tenant_id: string;
  name: string;
  phone_list_id: string;
  mode: DialingMode;
  abandon_cap_percent: string;
  abandon_threshold_ms: number;
  max_attempts: number;
  retry_delays: Record<string, number>;
  calling_windows: Record<string, { from: string; to: string }[]>;
  schedule_from: Date | null;
  schedule_to: Date | null;
  trunk_id: string | null;
  caller_id: string | null;
  agent_ids: string[];
  status: string;
  snapshot: { value: unknown; context: Record<string, unknown>; status: string };
  version: number;
  last_event: string;
  created_at: Date;
  /** The one timer the campaign's state guards (see campaignTimer), swept by CampaignTimerSweeper. */
  timer_event: 'campaign.startTimeReached' | 'campaign.endTimeReached' | null;
  /** When it fires, epoch ms (bigint: PostgreSQL answers it as text). */
  timer_at: string | null;
  updated_at: Date;
  deleted_at: Date | null;
}

export interface CallRow {
  id: string;
  tenant_id: string;
  campaign_id: string;
  contact_id: string;
  phone: string;
  attempt: number;
  status: string;
  snapshot: { value: unknown; context: Record<string, unknown>; status: string };
  version: number;
  last_event: string;
  outcome: string | null;
  disposition: string | null;
  agent_id: string | null;
  end_reason: string | null;
  created_at: Date;
  answered_at: Date | null;
  connected_at: Date | null;
  hung_up_at: Date | null;
  finished_at: Date | null;
  /** The last carrier event (by the dialer's numbering) applied to this call. */
  carrier_seq?: number;
}

export function illegalStep(noun: string, eventType: string, status: string): AppException {
  return new AppException('illegal_transition', {
    message: `${eventType} is not allowed while ${noun} is ${status}`,
    data: { event: eventType, state: status },
  });
}

export function retryPolicyOf(campaign: Pick<CampaignRow, 'max_attempts' | 'retry_delays'>): RetryPolicy {
  const byOutcome: RetryPolicy['byOutcome'] = {};
  for (const [outcome, delaySec] of Object.entries(campaign.retry_delays ?? {})) {
    (byOutcome as Record<string, { delaySec: number }>)[outcome] = { delaySec };
  }
  return { maxAttempts: campaign.max_attempts, byOutcome };
}

export function callView(row: CallRow, contactName: string | null = null): OutboundCallView {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    campaignId: row.campaign_id,
    contactId: row.contact_id,
    phone: row.phone,
    contactName,
    attempt: row.attempt,
    status: row.status,
    outcome: row.outcome,
    disposition: row.disposition,
    agentId: row.agent_id,
    version: row.version,
    createdAt: new Date(row.created_at).toISOString(),
    answeredAt: row.answered_at ? new Date(row.answered_at).toISOString() : null,
    connectedAt: row.connected_at ? new Date(row.connected_at).toISOString() : null,
    finishedAt: row.finished_at ? new Date(row.finished_at).toISOString() : null,
  };
}

/** A list of machine statuses as an SQL literal, `('a', 'b')`: the domain's one writer of them (status-sets.ts). */
export const sqlStatuses = sqlStatusList;

/** The actor of a staff member acting as supervisor on a campaign or a call. */
export function supervisorActor(principal: { userId: string }): Actor {
  return { kind: 'supervisor', id: principal.userId };
}
