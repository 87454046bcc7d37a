import { CARRIER_LEG_CALL_STATUSES } from '@centralita/domain';
import type { DataSource } from 'typeorm';
import { TelephonyError, type CallHandle, type Telephony } from '../telephony/telephony';
import { resolveAgentTarget, simulatedAgentUri, type TelephonyKind } from './dialing-route';

/**
 * The carrier legs this dialer process holds, kept in line with the API's machines each tick: a call
 * whose machine left the carrier-leg states is hung up, a call connected to an agent is bridged to
 * the agent's softphone.
 */
export class CallReconciler {
  private readonly live = new Map<string, { handle: CallHandle; bridged: boolean }>();
  /** Bridges under way (an agent's phone may ring a while): never awaited by a tick, awaited by settle(). */
  private readonly bridges = new Set<Promise<void>>();
  /** Calls whose bridge to the agent failed, with the code (tests, diagnostics). */
  readonly bridgeFailures = new Map<string, string>();

  constructor(
    private readonly options: { dataSource: DataSource; telephony: Telephony; kind: TelephonyKind; log: (message: string) => void },
  ) {}

  private log(message: string): void {
    this.options.log(message);
  }

  /** A call just placed: held until its carrier leg is done. */
  track(callId: string, handle: CallHandle): void {
    this.live.set(callId, { handle, bridged: false });
    void handle.done.then(() => this.live.delete(callId));
  }

  has(callId: string): boolean {
    return this.live.has(callId);
  }

  get size(): number {
    return this.live.size;
  }

  /** Waits for the bridges under way. */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.bridges]);
  }

  /** Calls whose machine has left the live states lose their carrier leg; connected calls are bridged. */
  async reconcile(): Promise<void> {
    if (this.live.size === 0) return;
    const rows = (await this.options.dataSource.query(
      `SELECT id, tenant_id, status, agent_id FROM outbound_calls WHERE id = ANY($1::uuid[])`,
      [[...this.live.keys()]],
    )) as { id: string; tenant_id: string; status: string; agent_id: string | null }[];
    for (const row of rows) {
      const call = this.live.get(row.id);
      if (!call || call.handle.ended) continue;
      if (!CARRIER_LEG_CALL_STATUSES.includes(row.status as (typeof CARRIER_LEG_CALL_STATUSES)[number])) {
        await this.options.telephony.hangUp(row.id).catch(() => undefined);
      } else if (row.status === 'connected' && !call.bridged && row.agent_id) {
        call.bridged = true;
        // Not awaited: the agent's phone may ring for a while and the other campaigns keep pacing meanwhile.
        const bridging = this.bridgeToAgent(row.id, row.tenant_id, row.agent_id);
        this.bridges.add(bridging);
        void bridging.finally(() => this.bridges.delete(bridging));
      }
    }
  }

  /**
   * INVITEs the agent's softphone registration (`sip:<auth_user>@<softphone domain>`). The
   * simulator bridges an agent without a softphone account to a placeholder URI (simulated agents
   * do not register). When the bridge cannot be made the contact's call is hung up with the code
   * logged (the API's machine then goes to wrap-up): a contact never waits on an open line.
   */
  private async bridgeToAgent(callId: string, tenantId: string, agentId: string): Promise<void> {
    try {
      const target = await resolveAgentTarget(this.options.dataSource, tenantId, agentId);
      let uri: string;
      if (target.ok) uri = target.uri;
      else if (this.options.kind === 'simulator') uri = simulatedAgentUri(agentId);
      else return await this.bridgeFailed(callId, target.code, target.message);
      await this.options.telephony.bridge(callId, uri);
    } catch (error) {
      const code = error instanceof TelephonyError ? error.code : 'telephony.bridgeFailed';
      // The call ended while the agent's phone rang: nothing left to hang up.
      if (code === 'telephony.unknownCall') return;
      await this.bridgeFailed(callId, code, (error as Error).message);
    }
  }

  private async bridgeFailed(callId: string, code: string, message: string): Promise<void> {
    this.bridgeFailures.set(callId, code);
    // Bounded: only the recent failures matter for diagnostics.
    if (this.bridgeFailures.size > 1000) this.bridgeFailures.delete(this.bridgeFailures.keys().next().value!);
    this.log(`call ${callId}: bridge to the agent failed (${code}): ${message}; hanging up the contact`);
    await this.options.telephony.hangUp(callId).catch(() => undefined);
  }
}
