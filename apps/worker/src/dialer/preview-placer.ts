import type { CallPlacer } from './call-placer';
import type { DialerReports } from './dialer-reports';
import type { DialerRows, PreviewRequest } from './dialer-rows';
import type { DialingRoute } from './dialing-route';

export interface PreviewPlacerOptions {
  rows: DialerRows;
  placer: Pick<CallPlacer, 'route' | 'place'>;
  reports: Pick<DialerReports, 'report'>;
  /** The dialer process a claimed preview call belongs to (see DialerRecovery). */
  owner: string;
  /** Only these tenants' requests (null: all). */
  tenantIds: string[] | null;
  log: (message: string) => void;
}

/**
 * Places the preview calls agents asked for (the API reserves the record for the agent): claimed
 * for this process, first asked first, each taking a trunk line like any other call. A request
 * that finds every line in use waits for a later tick, and the agent is told once that it waits.
 */
export class PreviewPlacer {
  /** Preview calls an agent asked for that wait for a free line on their trunk: call id → trunk id. */
  readonly awaitingLine = new Map<string, string>();

  constructor(private readonly options: PreviewPlacerOptions) {}

  async placeRequests(): Promise<void> {
    const requests = await this.options.rows.previewRequests(this.options.tenantIds);
    for (const callId of this.awaitingLine.keys())
      if (!requests.some((request) => request.active_call_id === callId)) this.awaitingLine.delete(callId);
    // Looked up once per campaign and per trunk in a tick: many requests may wait on one trunk.
    const routes = new Map<string, Promise<DialingRoute>>();
    const linesInUse = new Map<string, number>();
    for (const request of requests) {
      if (!routes.has(request.campaign_id)) routes.set(request.campaign_id, this.options.placer.route(request));
      const route = await routes.get(request.campaign_id)!;
      // A preview dial takes a trunk line like any other call. With every line in use it waits for
      // a later tick; preview requests go before pacing, so it gets the first line that frees.
      if (route.ok && route.trunkId && route.maxConcurrentCalls) {
        const inUse = linesInUse.get(route.trunkId) ?? (await this.options.rows.callsOnTrunk(request.tenant_id, route.trunkId));
        linesInUse.set(route.trunkId, inUse);
        if (inUse >= route.maxConcurrentCalls) {
          await this.hold(request, route.trunkId, inUse, route.maxConcurrentCalls);
          continue;
        }
        linesInUse.set(route.trunkId, inUse + 1);
      }
      this.awaitingLine.delete(request.active_call_id);
      if (!(await this.options.rows.claimPreview(request.id, request.active_call_id, this.options.owner))) continue;
      // The agent is waiting for this record: a campaign that cannot dial fails the call (with the code) rather than keep them waiting.
      await this.options.placer.place(
        { id: request.campaign_id, abandon_threshold_ms: request.abandon_threshold_ms },
        request,
        request.active_call_id,
        request.attempts,
        route,
      );
    }
  }

  /**
   * A preview call that waits for a line: recorded once on its contact (since when), logged, and
   * reported so that the API tells the agent, whose desk would otherwise just keep saying "dialling".
   */
  private async hold(request: PreviewRequest, trunkId: string, inUse: number, max: number): Promise<void> {
    const callId = request.active_call_id;
    this.awaitingLine.set(callId, trunkId);
    if (!(await this.options.rows.markPreviewAwaitingLine(request.id, callId))) return;
    this.options.log(`preview call ${callId} waits for a line on trunk ${trunkId} (${inUse} of ${max} in use)`);
    this.options.reports.report(callId, 'w', { kind: 'previewAwaitingLine', callId, at: Date.now() });
  }
}
