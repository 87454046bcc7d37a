import { OutgoingAddressPolicy, parseHost } from '@centralita/contracts/server';
import Srf from 'drachtio-srf';
import { promises as dns } from 'node:dns';
import {
  CallHandle,
  OUTBOUND_CALL_ID_HEADER,
  TelephonyError,
  validateOriginate,
  type ActiveCall,
  type OriginateRequest,
  type Telephony,
} from './telephony';

/**
 * Production telephony: a drachtio server does the SIP, this process drives it over drachtio's
 * control connection through drachtio-srf.
 *
 * - Origination: `srf.createUAC('sip:<E.164>@<trunk host>:<port>;transport=<t>')` without an SDP
 *   offer (late offer: the carrier offers in its 200 OK, drachtio-srf answers in the ACK), caller
 *   id as the From user and in P-Asserted-Identity, digest credentials from the trunk.
 * - Answering machines: with `amd` we send `X-AMD: on` and read `X-AMD-Result: machine|human` from
 *   the 200 OK (what AMD-capable carriers and SBCs put there); no header means a person.
 * - Bridge: third-party call control by re-INVITE. We INVITE the agent's SIP URI (the registrar
 *   routes it to the agent's registration) offering the contact's SDP, then re-INVITE the contact
 *   with the agent's answer, so media flows contact ⇄ agent. `createB2BUA` needs an inbound
 *   INVITE for its A leg, which an outbound dialer does not have. The agent's INVITE shows the
 *   contact's number as the caller and carries X-Outbound-Call-Id, which the console's softphone
 *   reads to treat the call as the dialer's (screen pop and disposition from the outbound API).
 */

export interface DrachtioConnection {
  host: string;
  port: number;
  secret: string;
}

export interface DrachtioTelephonyOptions extends DrachtioConnection {
  /** How long to wait for the server's authentication answer. */
  connectTimeoutMs?: number;
  now?: () => number;
  /** Connection trouble after start-up (drachtio-srf reconnects by itself). */
  onConnectionError?: (error: Error) => void;
  /**
   * Where INVITEs may go (trunks and the agents' SIP domain are tenant-supplied): every address is
   * checked and the request is sent to the checked address. Default: no non-public range allowed.
   */
  outgoing?: Pick<OutgoingAddressPolicy, 'resolve'>;
  /** SRV look-up of a SIP domain given without a port (RFC 3263); tests inject one. */
  resolveSrv?: (name: string) => Promise<Array<{ name: string; port: number; priority: number; weight: number }>>;
}

/** The part of drachtio-srf we use, typed from its source (its bundled typings lag behind). */
interface SipMessageLike {
  status?: number;
  reason?: string;
  body?: string;
  get(name: string): string | undefined;
  has(name: string): boolean;
}
interface UacRequest extends SipMessageLike {
  cancel(callback?: (error: Error | null) => void): void;
}
interface SrfDialog {
  remote: { sdp?: string };
  destroy(): Promise<unknown>;
  modify(sdp: string): Promise<string>;
  on(event: 'destroy', listener: () => void): void;
}
interface SrfLike {
  connect(options: { host: string; port: number; secret: string }): void;
  disconnect(): void;
  on(event: 'connect', listener: (error: Error | null, hostport?: string) => void): void;
  on(event: 'error' | 'close', listener: (error?: Error) => void): void;
  createUAC(
    uri: string,
    options: {
      callingNumber?: string;
      headers?: Record<string, string>;
      localSdp?: string;
      /** Send the request to this address (`sip:<ip>:<port>;transport=<t>`) whatever the Request-URI says. */
      proxy?: string;
      auth?: { username: string; password: string };
    },
    progress: { cbRequest?: (error: Error | null, request: UacRequest) => void; cbProvisional?: (response: SipMessageLike) => void },
  ): Promise<SrfDialog>;
}

interface DrachtioCall {
  request: OriginateRequest;
  handle: CallHandle;
  invite: UacRequest | null;
  dialog: SrfDialog | null;
  agentDialog: SrfDialog | null;
  bridgedTo: string | null;
  ringTimer: NodeJS.Timeout | null;
  /** Why we CANCELled, if we did: the final 487 then means this. */
  cancelledFor: 'ringTimeout' | 'hangUp' | null;
}

const BUSY = new Set([486, 600]);
const NO_ANSWER = new Set([408, 480, 487]);

export class DrachtioTelephony implements Telephony {
  private readonly calls = new Map<string, DrachtioCall>();

  private constructor(
    private readonly srf: SrfLike,
    private readonly now: () => number,
    private readonly outgoing: Pick<OutgoingAddressPolicy, 'resolve'>,
    private readonly resolveSrv: NonNullable<DrachtioTelephonyOptions['resolveSrv']>,
  ) {}

  /** Connects and authenticates; rejects with a `telephony.connection` error naming the cause. */
  static async connect(options: DrachtioTelephonyOptions): Promise<DrachtioTelephony> {
    const srf = new Srf() as unknown as SrfLike;
    const where = `drachtio server at ${options.host}:${options.port}`;
    await new Promise<void>((resolve, reject) => {
      let settled = false;
      let lastError: Error | undefined;
      const fail = (message: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        stop(srf);
        reject(new TelephonyError('telephony.connection', message));
      };
      const timer = setTimeout(
        () =>
          fail(
            `No answer from the ${where} within ${options.connectTimeoutMs ?? 5000} ms${lastError ? ` (last error: ${lastError.message})` : ''}`,
          ),
        options.connectTimeoutMs ?? 5000,
      );
      srf.on('connect', (error) => {
        if (error) return fail(`The ${where} refused the connection: ${error.message} (check DRACHTIO_SECRET)`);
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve();
      });
      // Without a listener an 'error' event would throw; drachtio-srf retries the connection itself.
      srf.on('error', (error) => {
        lastError = error;
        if (settled && error) options.onConnectionError?.(error);
      });
      srf.connect({ host: options.host, port: options.port, secret: options.secret });
    });
    return new DrachtioTelephony(
      srf,
      options.now ?? Date.now,
      options.outgoing ?? new OutgoingAddressPolicy(),
      options.resolveSrv ?? ((name) => dns.resolveSrv(name)),
    );
  }

  async originate(request: OriginateRequest): Promise<CallHandle> {
    validateOriginate(request);
    const { trunk } = request;
    // The dialer pinned the address it checked; checked again here (no DNS for a literal), or
    // resolved and checked now when a caller gave none.
    const [target] = await this.checked(trunk.address ?? trunk.host);
    const proxy = sipTarget(target, trunk.port, trunk.transport);
    if (this.calls.has(request.callId))
      throw new TelephonyError('telephony.duplicateCall', `Call ${request.callId} is already in progress`);
    const handle = new CallHandle(request.callId, this.now);
    const call: DrachtioCall = {
      request,
      handle,
      invite: null,
      dialog: null,
      agentDialog: null,
      bridgedTo: null,
      ringTimer: null,
      cancelledFor: null,
    };
    this.calls.set(request.callId, call);
    handle.onEvent((event) => {
      if (event.type === 'answered' || event.type === 'ringing') return;
      if (call.ringTimer) clearTimeout(call.ringTimer);
      this.calls.delete(request.callId);
    });

    const uri = `sip:${request.to}@${trunk.host}:${trunk.port};transport=${trunk.transport}`;
    const headers: Record<string, string> = {
      'P-Asserted-Identity': `<sip:${request.from}@${trunk.host}>`,
      'X-Centralita-Call-Id': request.callId,
      'X-Centralita-Tenant-Id': request.tenantId,
    };
    if (request.amd) headers['X-AMD'] = 'on';
    const auth =
      trunk.username !== undefined && trunk.password !== undefined ? { username: trunk.username, password: trunk.password } : undefined;

    this.srf
      .createUAC(
        uri,
        { callingNumber: request.from, headers, proxy, ...(auth ? { auth } : {}) },
        {
          cbRequest: (error, invite) => {
            if (error) return;
            call.invite = invite;
            if (call.cancelledFor) return invite.cancel(() => undefined);
            call.ringTimer = setTimeout(() => this.cancel(call, 'ringTimeout'), request.ringTimeoutSec * 1000);
          },
          cbProvisional: (response) => {
            if (response.status === 180 || response.status === 183) handle.emit({ type: 'ringing' });
          },
        },
      )
      .then(
        (dialog) => this.onAnswer(call, dialog),
        (error: unknown) => this.onRefusal(call, error),
      );
    return handle;
  }

  async bridge(callId: string, agentSipUri: string): Promise<void> {
    const call = this.find(callId);
    if (!/^sips?:[^@\s]+@[^\s]+$/.test(agentSipUri))
      throw new TelephonyError('telephony.invalidRequest', `Not a SIP URI: '${agentSipUri}'`);
    const dialog = call.dialog;
    if (!dialog) throw new TelephonyError('telephony.notAnswered', `Call ${callId} has not been answered`);
    const contactSdp = dialog.remote.sdp;
    if (!contactSdp) throw new TelephonyError('telephony.invalidRequest', `Call ${callId} has no SDP from the contact to offer the agent`);
    const proxy = await this.agentTarget(agentSipUri);
    const agentDialog = await this.srf
      .createUAC(
        agentSipUri,
        {
          callingNumber: call.request.to,
          localSdp: contactSdp,
          proxy,
          headers: { 'X-Centralita-Call-Id': callId, [OUTBOUND_CALL_ID_HEADER]: callId },
        },
        {},
      )
      .catch((error: unknown) => {
        const status = (error as { status?: number }).status;
        throw new TelephonyError(
          'telephony.bridgeFailed',
          `The agent at ${agentSipUri} did not answer (${status ?? (error as Error).message})`,
        );
      });
    if (call.handle.ended) {
      await release(agentDialog);
      throw new TelephonyError('telephony.unknownCall', `Call ${callId} ended while the agent answered`);
    }
    call.agentDialog = agentDialog;
    call.bridgedTo = agentSipUri;
    // The agent leaving ends the contact's call too: from the contact's side that is a local hang-up.
    agentDialog.on('destroy', () => {
      call.agentDialog = null;
      if (!call.handle.ended) void this.hangUp(callId).catch(() => undefined);
    });
    if (agentDialog.remote.sdp) await dialog.modify(agentDialog.remote.sdp);
  }

  async hangUp(callId: string): Promise<void> {
    const call = this.find(callId);
    call.handle.emit({ type: 'hungUp', by: 'local' });
    const { dialog, agentDialog } = call;
    call.dialog = call.agentDialog = null;
    if (dialog) {
      await Promise.all([release(dialog), agentDialog && release(agentDialog)]);
    } else {
      this.cancel(call, 'hangUp');
    }
  }

  activeCalls(): ActiveCall[] {
    return [...this.calls.values()].map(({ request, handle, bridgedTo }) => ({
      callId: request.callId,
      tenantId: request.tenantId,
      to: request.to,
      trunkHost: request.trunk.host,
      answered: handle.answered,
      bridgedTo,
    }));
  }

  async close(): Promise<void> {
    await Promise.all([...this.calls.keys()].map((callId) => this.hangUp(callId).catch(() => undefined)));
    stop(this.srf);
  }

  /** The host's addresses, every one checked against the outgoing-address policy; a refusal is a `telephony.addressRefused` error. */
  private async checked(host: string): Promise<CheckedTarget[]> {
    try {
      return await this.outgoing.resolve(host);
    } catch (error) {
      throw new TelephonyError('telephony.addressRefused', (error as Error).message);
    }
  }

  /**
   * Where the agent's INVITE goes: the SIP domain of `sip:<user>@<domain>[:port]`, through its SRV
   * record when it has no port (RFC 3263, as a SIP stack would), resolved and checked like a trunk.
   */
  private async agentTarget(agentSipUri: string): Promise<string> {
    const match = /^(sips?):[^@\s]+@(\[[^\]]+\]|[^:;>\s]+)(?::(\d{1,5}))?/.exec(agentSipUri);
    if (!match) throw new TelephonyError('telephony.invalidRequest', `Not a SIP URI: '${agentSipUri}'`);
    const secure = match[1] === 'sips';
    let host = match[2];
    let port = match[3] === undefined ? null : Number(match[3]);
    let transport: string | null = null;
    if (port === null && parseHost(host)?.kind === 'name') {
      const service = `_${secure ? 'sips._tcp' : 'sip._udp'}.${host}`;
      const records = await withTimeout(this.resolveSrv(service), 3000).catch(() => []);
      const best = [...records].sort((a, b) => a.priority - b.priority || b.weight - a.weight)[0];
      if (best) {
        host = best.name;
        port = best.port;
        transport = secure ? 'tls' : 'udp';
      }
    }
    const [target] = await this.checked(host);
    return sipTarget(target, port ?? (secure ? 5061 : 5060), transport);
  }

  private onAnswer(call: DrachtioCall, dialog: SrfDialog): void {
    if (call.ringTimer) clearTimeout(call.ringTimer);
    if (call.handle.ended) {
      // Answered while we were hanging up (the 200 crossed our CANCEL): end it at once.
      void release(dialog);
      return;
    }
    call.dialog = dialog;
    dialog.on('destroy', () => {
      call.dialog = null;
      call.handle.emit({ type: 'hungUp', by: 'remote' });
      if (call.agentDialog) void release(call.agentDialog);
    });
    const answer = (dialog as unknown as { res?: SipMessageLike }).res;
    const amdResult = answer?.get('X-AMD-Result')?.trim().toLowerCase();
    const by = call.request.amd && amdResult === 'machine' ? 'machine' : 'human';
    if (!call.handle.emit({ type: 'answered', by })) void release(dialog);
  }

  private onRefusal(call: DrachtioCall, error: unknown): void {
    const status = typeof (error as { status?: unknown }).status === 'number' ? (error as { status: number }).status : undefined;
    const reason = (error as { reason?: string }).reason ?? (error instanceof Error ? error.message : String(error));
    if (call.cancelledFor === 'hangUp') return void call.handle.emit({ type: 'hungUp', by: 'local' });
    if (status !== undefined && BUSY.has(status)) return void call.handle.emit({ type: 'busy' });
    if (call.cancelledFor === 'ringTimeout' || (status !== undefined && NO_ANSWER.has(status)))
      return void call.handle.emit({ type: 'noAnswer' });
    call.handle.emit(
      status === undefined ? { type: 'failed', reason: `drachtio: ${reason}` } : { type: 'failed', reason, sipStatus: status },
    );
  }

  private cancel(call: DrachtioCall, why: 'ringTimeout' | 'hangUp'): void {
    if (call.cancelledFor || call.dialog) return;
    call.cancelledFor = why;
    // Without the INVITE yet, cbRequest sends the CANCEL as soon as it arrives.
    call.invite?.cancel(() => undefined);
  }

  private find(callId: string): DrachtioCall {
    const call = this.calls.get(callId);
    if (!call) throw new TelephonyError('telephony.unknownCall', `No active call ${callId}`);
    return call;
  }
}

interface CheckedTarget {
  address: string;
  family: 4 | 6;
}

/** `sip:<address>:<port>[;transport=<t>]`, the form drachtio takes as the request's destination. */
function sipTarget(target: CheckedTarget, port: number, transport: string | null): string {
  const host = target.family === 6 ? `[${target.address}]` : target.address;
  return `sip:${host}:${port}${transport ? `;transport=${transport}` : ''}`;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

/** BYE, waiting for its answer at most a few seconds: a vanished far end must not hold us up. */
async function release(dialog: SrfDialog, timeoutMs = 3000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
  await Promise.race([dialog.destroy().catch(() => undefined), timeout]);
  clearTimeout(timer);
}

/** Ends the control connection and stops drachtio-srf's reconnect loop. */
function stop(srf: SrfLike): void {
  try {
    srf.disconnect();
  } catch {
    // No socket left (the server is gone): drachtio-srf would keep reconnecting, so flag its wire
    // protocol as closing and drop the pending retry (lib/wire-protocol.js `closing`, `reconnectVars`).
    const wire = (srf as unknown as { _app?: { client?: { wp?: WireProtocolInternals } } })._app?.client?.wp;
    if (wire) {
      wire.closing = true;
      if (wire.reconnectVars?.retryTimer) clearTimeout(wire.reconnectVars.retryTimer);
      if (wire.reconnectVars) wire.reconnectVars.retryTimer = null;
    }
  }
}

interface WireProtocolInternals {
  closing?: boolean;
  reconnectVars?: { retryTimer: NodeJS.Timeout | null };
}
