import type { OutgoingAddressPolicy } from '@centralita/contracts/server';
import type { Telephony } from '../telephony/telephony';
import type { CallReconciler } from './call-reconciler';
import type { DialerReports } from './dialer-reports';
import type { CampaignRow, ContactRow, DialerRows } from './dialer-rows';
import { chooseRoute, pinTrunkAddress, type DialingRoute, type TelephonyKind } from './dialing-route';

export interface CallPlacerOptions {
  rows: Pick<DialerRows, 'campaignTrunk'>;
  telephony: Telephony;
  kind: TelephonyKind;
  /** Checks and pins a real carrier's trunk address (see pinTrunkAddress). */
  outgoing: Pick<OutgoingAddressPolicy, 'resolve'>;
  reports: Pick<DialerReports, 'report' | 'forward'>;
  /** Holds the placed call's carrier leg (see CallReconciler). */
  calls: Pick<CallReconciler, 'track'>;
  ringTimeoutSec: number;
  log: (message: string) => void;
}

/**
 * Where a campaign's calls go and how a reserved call leaves: the one path both the pacer's calls
 * and the agents' preview calls take to the carrier, so both are reported the same way.
 */
export class CallPlacer {
  /** Originates placed since start (benchmarks). */
  placed = 0;

  constructor(private readonly options: CallPlacerOptions) {}

  /** The campaign's trunk and caller id (see chooseRoute). */
  async route(campaign: Pick<CampaignRow, 'tenant_id' | 'trunk_id' | 'caller_id'>): Promise<DialingRoute> {
    const lookup = await this.options.rows.campaignTrunk(campaign.tenant_id, campaign.trunk_id);
    const route = chooseRoute(this.options.kind, campaign.caller_id, lookup);
    // The simulator connects nowhere; a real carrier only to a checked, pinned address.
    return this.options.kind === 'drachtio' ? pinTrunkAddress(this.options.outgoing, route) : route;
  }

  /** Reports the reserved call to the API, then sends the INVITE through the route's trunk. */
  async place(
    campaign: Pick<CampaignRow, 'id' | 'abandon_threshold_ms'>,
    contact: ContactRow,
    callId: string,
    attempt: number,
    route: DialingRoute,
  ): Promise<void> {
    const { reports } = this.options;
    const at = Date.now();
    reports.report(callId, '0', {
      kind: 'create',
      callId,
      tenantId: contact.tenant_id,
      campaignId: campaign.id,
      contactId: contact.id,
      phone: contact.phone,
      attempt,
      abandonThresholdMs: campaign.abandon_threshold_ms,
      at,
    });
    if (!route.ok) {
      this.options.log(`call ${callId} not placed (${route.code}): ${route.message}`);
      reports.report(callId, 'x', { kind: 'failed', callId, reason: route.code, at: Date.now() });
      return;
    }
    this.placed += 1;
    try {
      const handle = await this.options.telephony.originate({
        callId,
        tenantId: contact.tenant_id,
        from: route.from,
        to: contact.phone,
        trunk: route.trunk,
        ringTimeoutSec: this.options.ringTimeoutSec,
        amd: true,
      });
      this.options.calls.track(callId, handle);
      let seq = 0;
      handle.onEvent((event) => {
        seq += 1;
        reports.forward(callId, String(seq), event);
      });
    } catch (error) {
      reports.report(callId, 'x', {
        kind: 'failed',
        callId,
        reason: `originate: ${(error as Error).message}`.slice(0, 120),
        at: Date.now(),
      });
    }
  }
}
