import { carrierProfile, mulberry32, sampleTalkSec, simulateAttempt, type CarrierProfile, type RandomSource } from '@centralita/domain';
import {
  CallHandle,
  isTerminal,
  TelephonyError,
  validateOriginate,
  type ActiveCall,
  type OriginateRequest,
  type Telephony,
  type TelephonyEventInput,
} from './telephony';

export interface SimulatedCarrierOptions {
  /** Same seed and same order of originate calls ⇒ same outcomes and timings. */
  seed?: number;
  /** Rates and time distributions; libs/domain's defaults where omitted. */
  profile?: Partial<CarrierProfile>;
  /** Multiplies every simulated second: 1 is real time, 0.01 makes a 20 s ring last 200 ms. */
  timeFactor?: number;
  /** Calls a trunk carries at once; one more is refused with failed {reason: 'trunk_busy'}. */
  maxCallsPerTrunk?: number;
  now?: () => number;
}

interface SimulatedCall {
  request: OriginateRequest;
  handle: CallHandle;
  timers: Set<NodeJS.Timeout>;
  bridgedTo: string | null;
}

/** Seconds from dialing to the first ring, capped by when the call resolves. */
const POST_DIAL_DELAY_SEC = 1;

/**
 * The embedded carrier: every call's fate is drawn at originate time from libs/domain's seeded
 * simulator (outcome, ring time, talk time), then played out with real timers scaled by `timeFactor`.
 * Drawing everything up front keeps a seed's run identical whatever order the timers fire in.
 */
export class SimulatedCarrier implements Telephony {
  private readonly profile: CarrierProfile;
  private readonly random: RandomSource;
  private readonly timeFactor: number;
  private readonly maxCallsPerTrunk: number;
  private readonly now: () => number;
  private readonly calls = new Map<string, SimulatedCall>();

  constructor(options: SimulatedCarrierOptions = {}) {
    this.profile = carrierProfile(options.profile);
    this.random = mulberry32(options.seed ?? 1);
    this.timeFactor = options.timeFactor ?? 1;
    if (!(this.timeFactor > 0)) throw new TelephonyError('telephony.invalidRequest', 'timeFactor must be > 0');
    this.maxCallsPerTrunk = options.maxCallsPerTrunk ?? 30;
    if (!Number.isInteger(this.maxCallsPerTrunk) || this.maxCallsPerTrunk < 1)
      throw new TelephonyError('telephony.invalidRequest', 'maxCallsPerTrunk must be a whole number ≥ 1');
    this.now = options.now ?? Date.now;
  }

  async originate(request: OriginateRequest): Promise<CallHandle> {
    validateOriginate(request);
    if (this.calls.has(request.callId))
      throw new TelephonyError('telephony.duplicateCall', `Call ${request.callId} is already in progress`);
    const handle = new CallHandle(request.callId, this.now);

    if (this.callsOnTrunk(request) >= this.maxCallsPerTrunk) {
      handle.emit({ type: 'failed', reason: 'trunk_busy' });
      return handle;
    }

    const call: SimulatedCall = { request, handle, timers: new Set(), bridgedTo: null };
    this.calls.set(request.callId, call);
    handle.onEvent((event) => isTerminal(event) && this.forget(call));

    const attempt = simulateAttempt(this.profile, this.random);
    // Always drawn, even when unused, so one call's outcome never shifts the next call's draws.
    const talkSec = sampleTalkSec(this.profile, this.random);
    // A call's events happen in order: each is scheduled when the previous one fired, so timer
    // jitter on a loaded machine can never swap two close events (a seed always gives one story).
    const steps: [number, TelephonyEventInput][] = [];
    const at = (sec: number, event: TelephonyEventInput) => steps.push([sec, event]);

    switch (attempt.outcome) {
      case 'busy':
        at(attempt.resolvedAfterSec, { type: 'busy' });
        break;
      case 'failed':
        at(attempt.resolvedAfterSec, { type: 'failed', reason: 'network_failure', sipStatus: 503 });
        break;
      case 'noAnswer':
        at(Math.min(POST_DIAL_DELAY_SEC, request.ringTimeoutSec), { type: 'ringing' });
        at(request.ringTimeoutSec, { type: 'noAnswer' });
        break;
      case 'human':
      case 'machine': {
        const answerSec = attempt.resolvedAfterSec;
        at(Math.min(POST_DIAL_DELAY_SEC, answerSec, request.ringTimeoutSec), { type: 'ringing' });
        if (answerSec > request.ringTimeoutSec) {
          at(request.ringTimeoutSec, { type: 'noAnswer' });
          break;
        }
        // Without AMD nobody can tell a machine from a person.
        const by = attempt.outcome === 'machine' && request.amd ? 'machine' : 'human';
        at(answerSec, { type: 'answered', by });
        at(answerSec + talkSec, { type: 'hungUp', by: 'remote' });
        break;
      }
    }
    this.play(call, steps, 0);
    return handle;
  }

  async bridge(callId: string, agentSipUri: string): Promise<void> {
    const call = this.find(callId);
    if (!/^sips?:[^@\s]+@[^\s]+$/.test(agentSipUri))
      throw new TelephonyError('telephony.invalidRequest', `Not a SIP URI: '${agentSipUri}'`);
    if (!call.handle.answered) throw new TelephonyError('telephony.notAnswered', `Call ${callId} has not been answered`);
    call.bridgedTo = agentSipUri;
  }

  async hangUp(callId: string): Promise<void> {
    const call = this.find(callId);
    call.handle.emit({ type: 'hungUp', by: 'local' });
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
    for (const call of [...this.calls.values()]) call.handle.emit({ type: 'hungUp', by: 'local' });
  }

  private find(callId: string): SimulatedCall {
    const call = this.calls.get(callId);
    if (!call) throw new TelephonyError('telephony.unknownCall', `No active call ${callId}`);
    return call;
  }

  private callsOnTrunk({ trunk }: OriginateRequest): number {
    let count = 0;
    for (const { request } of this.calls.values()) if (request.trunk.host === trunk.host && request.trunk.port === trunk.port) count++;
    return count;
  }

  /** Emits `steps` (absolute simulated seconds, ascending) one after the other from `nowSec`. */
  private play(call: SimulatedCall, steps: [number, TelephonyEventInput][], nowSec: number): void {
    const [next, ...rest] = steps;
    if (!next) return;
    const [sec, event] = next;
    this.schedule(call, Math.max(0, sec - nowSec), () => {
      call.handle.emit(event);
      this.play(call, rest, sec);
    });
  }

  private schedule(call: SimulatedCall, sec: number, fire: () => void): void {
    const timer = setTimeout(
      () => {
        call.timers.delete(timer);
        fire();
      },
      sec * 1000 * this.timeFactor,
    );
    call.timers.add(timer);
  }

  private forget(call: SimulatedCall): void {
    for (const timer of call.timers) clearTimeout(timer);
    call.timers.clear();
    if (this.calls.get(call.request.callId) === call) this.calls.delete(call.request.callId);
  }
}
