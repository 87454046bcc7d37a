import type { OutboundCallEventJob } from '@centralita/contracts';
import { CallHandle, type ActiveCall, type OriginateRequest, type Telephony, type TelephonyEvent } from '../telephony/telephony';
import { CallPlacer } from './call-placer';
import type { DialerReports } from './dialer-reports';
import type { DialerRows } from './dialer-rows';
import type { TelephonyKind } from './dialing-route';

/** A carrier that only records what it was asked to originate; each call's handle stays open. */
export class RecordingTelephony implements Telephony {
  readonly originated: OriginateRequest[] = [];
  readonly handles = new Map<string, CallHandle>();

  async originate(request: OriginateRequest): Promise<CallHandle> {
    this.originated.push(request);
    const handle = new CallHandle(request.callId);
    this.handles.set(request.callId, handle);
    return handle;
  }

  async bridge(): Promise<void> {}

  async hangUp(callId: string): Promise<void> {
    this.handles.get(callId)?.emit({ type: 'hungUp', by: 'local' });
  }

  activeCalls(): ActiveCall[] {
    return [];
  }

  async close(): Promise<void> {}
}

/** What the dialer reports to the API, kept in order instead of queued. */
export class RecordingReports implements Pick<DialerReports, 'report' | 'forward' | 'campaignIdle' | 'campaignExhausted'> {
  readonly jobs: { callId: string; seq: string; job: OutboundCallEventJob }[] = [];
  readonly forwarded: { callId: string; seq: string; event: TelephonyEvent }[] = [];
  readonly idle: string[] = [];
  readonly exhausted: string[] = [];

  report(callId: string, seq: string, job: OutboundCallEventJob): void {
    this.jobs.push({ callId, seq, job });
  }

  forward(callId: string, seq: string, event: TelephonyEvent): void {
    this.forwarded.push({ callId, seq, event });
  }

  async campaignIdle(campaignId: string): Promise<void> {
    this.idle.push(campaignId);
  }

  async campaignExhausted(campaignId: string): Promise<void> {
    this.exhausted.push(campaignId);
  }

  /** The jobs of one kind, in order. */
  ofKind<K extends OutboundCallEventJob['kind']>(kind: K): Extract<OutboundCallEventJob, { kind: K }>[] {
    return this.jobs.map(({ job }) => job).filter((job): job is Extract<OutboundCallEventJob, { kind: K }> => job.kind === kind);
  }
}

/** A CallPlacer routing like the simulator (or drachtio, which refuses a campaign without a usable trunk), over the fake rows and the recording carrier and reports. */
export function recordingPlacer(
  rows: DialerRows,
  telephony: RecordingTelephony,
  reports: RecordingReports,
  kind: TelephonyKind = 'simulator',
): CallPlacer {
  return new CallPlacer({
    rows,
    telephony,
    kind,
    outgoing: {
      resolve: () => Promise.reject(new Error('the simulator resolves no address')),
    },
    reports,
    calls: { track: () => undefined },
    ringTimeoutSec: 25,
    log: () => undefined,
  });
}
