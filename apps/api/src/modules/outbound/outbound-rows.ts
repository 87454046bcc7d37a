import type { OutboundCallView } from '@centralita/contracts';
import {
  campaignTimer,
  describeCampaignState,
  describeOutboundCallState,
  dialerCampaignMachine,
  outboundCallMachine,
  sqlStatusList,
  type Actor,
  type DialerCampaignEvent,
  type DialingMode,
  type OutboundCallEvent,
  type RetryPolicy,
} from '@centralita/domain';
import type { MachineBinding } from '../machine-host/machine-runner';

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

const stamp = (value: number | null): Date | null => (value === null ? null : new Date(value));

/** The outbound-call machine on `outbound_calls`, keyed by id (see machine-runner.ts). */
export const outboundCallBinding: MachineBinding<typeof outboundCallMachine, CallRow, CallEventInput> = {
  machine: outboundCallMachine,
  table: 'outbound_calls',
  keyColumn: 'id',
  keyOf: (row) => row.id,
  entity: 'outbound_call',
  noun: 'the call',
  statusOf: describeOutboundCallState,
  derive: (current, { snapshot, context, input }) => ({
    ...current,
    status: describeOutboundCallState(snapshot),
    last_event: input.type,
    outcome: context.outcome,
    disposition: context.disposition,
    agent_id: context.agentId,
    end_reason: context.endReason,
    answered_at: stamp(context.answeredAt),
    connected_at: stamp(context.connectedAt),
    hung_up_at: stamp(context.hungUpAt),
    finished_at: stamp(context.finishedAt),
  }),
  columns: (next, snapshotJson) => [
    ['status', next.status],
    ['snapshot', snapshotJson],
    ['last_event', next.last_event],
    ['outcome', next.outcome],
    ['disposition', next.disposition],
    ['agent_id', next.agent_id],
    ['end_reason', next.end_reason],
    ['answered_at', next.answered_at],
    ['connected_at', next.connected_at],
    ['hung_up_at', next.hung_up_at],
    ['finished_at', next.finished_at],
    ['updated_at', new Date()],
  ],
  logData: () => null,
  initialLogData: () => null,
};

/**
 * The dialer-campaign machine on `dialer_campaigns`, keyed by id. The one timer its state guards is
 * written by the step's own UPDATE (timer_event, timer_at), so it commits or rolls back with it.
 */
export const dialerCampaignBinding: MachineBinding<typeof dialerCampaignMachine, CampaignRow, CampaignEventInput> = {
  machine: dialerCampaignMachine,
  table: 'dialer_campaigns',
  keyColumn: 'id',
  keyOf: (row) => row.id,
  entity: 'dialer_campaign',
  noun: 'the campaign',
  statusOf: describeCampaignState,
  derive: (current, { snapshot, input }) => {
    const timer = campaignTimer(snapshot);
    return {
      ...current,
      status: describeCampaignState(snapshot),
      last_event: input.type,
      timer_event: timer?.event ?? null,
      // bigint: PostgreSQL answers it as text, as the row read has it.
      timer_at: timer === null ? null : String(timer.at),
    };
  },
  columns: (next, snapshotJson) => [
    ['status', next.status],
    ['snapshot', snapshotJson],
    ['last_event', next.last_event],
    ['timer_event', next.timer_event],
    ['timer_at', next.timer_at === null ? null : Number(next.timer_at)],
    ['updated_at', new Date()],
  ],
  logData: () => null,
  initialLogData: () => null,
};

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
