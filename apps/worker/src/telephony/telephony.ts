import { isE164 } from '@centralita/domain';

/**
 * The worker's door to the telephone network (ARCHITECTURE "Outside world"). Plain TypeScript, no
 * Nest: the simulator and the drachtio adapter both implement `Telephony`, and the dialer only ever
 * sees this file.
 */

export type SipTransport = 'udp' | 'tcp' | 'tls';

/**
 * On the INVITE that bridges a dialer call to the agent: the outbound call's id (the `callId` of
 * the originate request). The console's softphone (apps/web/src/softphone/dialer-call.ts reads the
 * same name) then screen-pops the call from the outbound API and dispositions it with UpdDISPO.
 */
export const OUTBOUND_CALL_ID_HEADER = 'X-Outbound-Call-Id';

/** The tenant's SIP trunk: where INVITEs go and how to answer the carrier's digest challenge. */
export interface SipTrunk {
  host: string;
  port: number;
  transport: SipTransport;
  username?: string;
  password?: string;
  /**
   * The address `host` resolved to when the dialer checked it against the outgoing-address policy:
   * INVITEs are sent there (the Request-URI keeps the host name), so a DNS answer that changes
   * between the check and the call cannot redirect it.
   */
  address?: string;
}

export interface OriginateRequest {
  /** The outbound-call machine's id: one attempt, one call. */
  callId: string;
  tenantId: string;
  /** Caller id presented to the contact. */
  from: string;
  /** E.164. */
  to: string;
  trunk: SipTrunk;
  /** Give up ringing after this long (noAnswer). */
  ringTimeoutSec: number;
  /** Ask for answering-machine detection; without it every answer is reported as human. */
  amd: boolean;
}

/**
 * What happens to a call, in order: at most one `ringing`, then either `answered` followed later by
 * `hungUp`, or one of `busy`, `noAnswer`, `failed`, `hungUp` (a local hang-up before the answer).
 * `at` is when the implementation observed it (epoch ms).
 */
export type TelephonyEvent =
  | { type: 'ringing'; at: number }
  | { type: 'answered'; at: number; by: 'human' | 'machine' }
  | { type: 'busy'; at: number }
  | { type: 'noAnswer'; at: number }
  | { type: 'failed'; at: number; reason: string; sipStatus?: number }
  | { type: 'hungUp'; at: number; by: 'remote' | 'local' };

export type TelephonyEventType = TelephonyEvent['type'];
type Unstamped<T> = T extends unknown ? Omit<T, 'at'> : never;
export type TelephonyEventInput = Unstamped<TelephonyEvent>;

const TERMINAL: ReadonlySet<TelephonyEventType> = new Set(['busy', 'noAnswer', 'failed', 'hungUp']);

export function isTerminal(event: TelephonyEvent): boolean {
  return TERMINAL.has(event.type);
}

export type TelephonyListener = (event: TelephonyEvent) => void;

/**
 * One call's event stream. Listeners added late get the events already emitted first, so the caller
 * can subscribe after `originate` resolves without losing an early `ringing`.
 */
export class CallHandle {
  private readonly history: TelephonyEvent[] = [];
  private readonly listeners = new Set<TelephonyListener>();
  private resolveDone!: (event: TelephonyEvent) => void;
  /** Resolves with the terminal event (busy, noAnswer, failed or hungUp). */
  readonly done: Promise<TelephonyEvent> = new Promise((resolve) => (this.resolveDone = resolve));

  constructor(
    readonly callId: string,
    private readonly now: () => number = Date.now,
  ) {}

  get events(): readonly TelephonyEvent[] {
    return this.history;
  }

  get ended(): boolean {
    const last = this.history.at(-1);
    return last !== undefined && isTerminal(last);
  }

  get answered(): boolean {
    return this.history.some((event) => event.type === 'answered');
  }

  /** Subscribes (replaying past events); returns the unsubscribe function. */
  onEvent(listener: TelephonyListener): () => void {
    for (const event of this.history) listener(event);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The first event of that type; rejects if the call ends without one. */
  waitFor<T extends TelephonyEventType>(type: T): Promise<Extract<TelephonyEvent, { type: T }>> {
    return new Promise((resolve, reject) => {
      const unsubscribe = this.onEvent((event) => {
        if (event.type === type) {
          queueMicrotask(unsubscribe);
          resolve(event as Extract<TelephonyEvent, { type: T }>);
        } else if (isTerminal(event)) {
          queueMicrotask(unsubscribe);
          reject(new Error(`Call ${this.callId} ended with '${event.type}' before '${type}'`));
        }
      });
    });
  }

  /**
   * For implementations: records and publishes an event. Events after the end, a second ringing or
   * a second answer are dropped, so listeners always see a well-formed sequence.
   */
  emit(input: TelephonyEventInput): boolean {
    if (this.ended) return false;
    if (input.type === 'ringing' && (this.history.length > 0 || this.answered)) return false;
    if (input.type === 'answered' && this.answered) return false;
    const event = { ...input, at: this.now() } as TelephonyEvent;
    this.history.push(event);
    for (const listener of [...this.listeners]) listener(event);
    if (isTerminal(event)) {
      this.listeners.clear();
      this.resolveDone(event);
    }
    return true;
  }
}

export interface ActiveCall {
  callId: string;
  tenantId: string;
  to: string;
  trunkHost: string;
  /** Answered (and not yet hung up). */
  answered: boolean;
  /** The agent's SIP URI once bridged. */
  bridgedTo: string | null;
}

export type TelephonyErrorCode =
  | 'telephony.unknownCall'
  | 'telephony.duplicateCall'
  | 'telephony.notAnswered'
  | 'telephony.invalidRequest'
  | 'telephony.connection'
  | 'telephony.bridgeFailed'
  /** The trunk or the agent's SIP domain is (or resolves to) an address the outgoing-address policy refuses. */
  | 'telephony.addressRefused';

export class TelephonyError extends Error {
  constructor(
    readonly code: TelephonyErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'TelephonyError';
  }
}

export interface Telephony {
  /**
   * Starts a call. Resolves once the call is under way (its handle then reports what happens);
   * rejects only for bad input or a duplicate call id — carrier refusals arrive as `failed`.
   */
  originate(request: OriginateRequest): Promise<CallHandle>;
  /**
   * Connects an answered call to an agent's SIP URI; the agent's leg carries OUTBOUND_CALL_ID_HEADER
   * and the contact's number as the caller. Rejects with `telephony.bridgeFailed` when the agent
   * does not answer (the contact's call stays up: the caller decides what to do with it).
   */
  bridge(callId: string, agentSipUri: string): Promise<void>;
  /** Ends the call (CANCEL before the answer, BYE after); the handle reports `hungUp {by: 'local'}`. */
  hangUp(callId: string): Promise<void>;
  activeCalls(): ActiveCall[];
  /** Ends every call and releases connections and timers. */
  close(): Promise<void>;
}

/** Shared checks for both implementations: a refusal names the field. */
export function validateOriginate(request: OriginateRequest): void {
  const problems: string[] = [];
  if (!request.callId?.trim()) problems.push('callId is required');
  if (!request.tenantId?.trim()) problems.push('tenantId is required');
  if (!request.from?.trim()) problems.push('from (caller id) is required');
  if (!isE164(request.to ?? '')) problems.push(`to must be an E.164 number, got '${request.to}'`);
  if (!request.trunk?.host?.trim()) problems.push('trunk.host is required');
  if (!Number.isInteger(request.trunk?.port) || request.trunk.port < 1 || request.trunk.port > 65535)
    problems.push('trunk.port must be an integer between 1 and 65535');
  if (!['udp', 'tcp', 'tls'].includes(request.trunk?.transport)) problems.push('trunk.transport must be udp, tcp or tls');
  if (!(request.ringTimeoutSec > 0)) problems.push('ringTimeoutSec must be > 0');
  if (problems.length) throw new TelephonyError('telephony.invalidRequest', `Invalid originate request: ${problems.join('; ')}`);
}
