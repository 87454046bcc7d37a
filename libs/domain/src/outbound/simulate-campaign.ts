import { DomainError } from '../domain-error';
import {
  carrierProfile,
  mulberry32,
  sampleTalkSec,
  simulateAttempt,
  type CarrierProfile,
  type SimulatedOutcome,
} from './carrier-simulator';
import { pace, type DialingMode, type PacerConfig, type PacerStats } from './pacer';

/**
 * Discrete-event simulation of one campaign: the pacer against simulated agents and the simulated
 * carrier. Deterministic for a seed. Times are seconds from the start of the run.
 *
 * Model: agents are idle, talking or in wrap-up (preview adds "previewing" then "dialing" for the
 * agent's own call). A human who answers is connected to the longest-waiting idle agent at once;
 * otherwise they wait, and are abandoned if no agent frees up within `abandonThresholdSec`.
 * Occupancy is (talk + wrap-up) ÷ logged-in time, the usual contact-centre definition.
 *
 * The pacer sees only what a real host can know: counts of idle agents and calls in flight, the
 * campaign's resolved attempts, human answers and abandons, and as "about to free" the agents whose
 * wrap-up timer ends within `lookaheadSec`. Counting agents on calls longer than the average talk
 * as well was tried and made things worse: talk times are long-tailed, so those agents often are
 * not free in time and the extra calls turn into abandons that the controller must then pay back.
 */
export interface SimulateCampaignOptions extends Partial<CarrierProfile> {
  mode: DialingMode;
  agents: number;
  seed: number;
  durationSec: number;
  wrapUpSec?: number;
  /** Regulatory connect threshold; 2 s by default. */
  abandonThresholdSec?: number;
  lookaheadSec?: number;
  /** Seconds a preview agent reads the record before dialing; preview mode only. */
  previewSec?: number;
  pacer?: Omit<PacerConfig, 'mode'>;
}

export interface SimulationResult {
  mode: DialingMode;
  placed: number;
  answered: number;
  connected: number;
  abandoned: number;
  /** abandoned ÷ human-answered. */
  abandonRate: number;
  /** Highest abandonment rate seen after the first 100 human answers (to show the controller never ran away). */
  peakAbandonRate: number;
  occupancy: number;
  outcomes: Record<SimulatedOutcome, number>;
  connectsPerAgentHour: number;
}

type AgentState = 'idle' | 'talking' | 'wrapUp' | 'previewing' | 'dialing';

interface SimAgent {
  state: AgentState;
  /** When the agent last became idle; the longest idle takes the next call. */
  idleSince: number;
  busySince: number;
  wrapEndsAt: number;
}

type SimEvent =
  | { kind: 'callResolved'; outcome: SimulatedOutcome; agent: number | null }
  | { kind: 'abandonCheck'; callId: number }
  | { kind: 'talkEnded'; agent: number }
  | { kind: 'wrapUpEnded'; agent: number }
  | { kind: 'previewEnded'; agent: number };

interface Scheduled {
  at: number;
  seq: number;
  event: SimEvent;
}

/** A binary min-heap on (at, seq): same-time events run in the order they were scheduled. */
class EventQueue {
  private readonly heap: Scheduled[] = [];
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  push(at: number, event: SimEvent): void {
    this.heap.push({ at, seq: this.seq++, event });
    let index = this.heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.before(this.heap[index]!, this.heap[parent]!)) break;
      [this.heap[index], this.heap[parent]] = [this.heap[parent]!, this.heap[index]!];
      index = parent;
    }
  }

  pop(): Scheduled | undefined {
    const top = this.heap[0];
    const last = this.heap.pop();
    if (top === undefined || last === undefined || this.heap.length === 0) return top;
    this.heap[0] = last;
    let index = 0;
    for (;;) {
      const left = index * 2 + 1;
      const right = left + 1;
      let smallest = index;
      if (left < this.heap.length && this.before(this.heap[left]!, this.heap[smallest]!)) smallest = left;
      if (right < this.heap.length && this.before(this.heap[right]!, this.heap[smallest]!)) smallest = right;
      if (smallest === index) return top;
      [this.heap[index], this.heap[smallest]] = [this.heap[smallest]!, this.heap[index]!];
      index = smallest;
    }
  }

  private before(a: Scheduled, b: Scheduled): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }
}

function requirePositive(value: number, name: string): void {
  if (!Number.isFinite(value) || value <= 0) throw new DomainError('machine.invalidInput', `${name} must be > 0, got ${value}`);
}

export function simulateCampaign(options: SimulateCampaignOptions): SimulationResult {
  const {
    mode,
    agents: agentCount,
    seed,
    durationSec,
    wrapUpSec = 10,
    abandonThresholdSec = 2,
    lookaheadSec = 10,
    previewSec = 10,
    pacer: pacerConfig = {},
    ...carrierOverrides
  } = options;
  if (!Number.isInteger(agentCount) || agentCount < 1) throw new DomainError('machine.invalidInput', 'agents must be a whole number ≥ 1');
  requirePositive(durationSec, 'durationSec');
  const profile = carrierProfile(carrierOverrides);
  const random = mulberry32(seed);
  const queue = new EventQueue();
  const agents: SimAgent[] = Array.from({ length: agentCount }, () => ({
    state: 'idle',
    idleSince: 0,
    busySince: 0,
    wrapEndsAt: 0,
  }));
  const outcomes: Record<SimulatedOutcome, number> = { human: 0, machine: 0, busy: 0, noAnswer: 0, failed: 0 };
  /** Humans on the line with no agent yet, oldest first. */
  const waiting: number[] = [];
  let now = 0;
  let nextCallId = 0;
  let placed = 0;
  let inFlight = 0;
  let resolved = 0;
  let connected = 0;
  let abandoned = 0;
  let busySeconds = 0;
  let peakAbandonRate = 0;

  const clip = (at: number) => Math.min(at, durationSec);

  function becomeIdle(index: number): void {
    const agent = agents[index]!;
    if (agent.state === 'talking' || agent.state === 'wrapUp') busySeconds += clip(now) - clip(agent.busySince);
    agent.state = 'idle';
    agent.idleSince = now;
    if (waiting.length > 0) {
      connect(index);
      waiting.shift();
    } else if (mode === 'preview') {
      agent.state = 'previewing';
      queue.push(now + previewSec, { kind: 'previewEnded', agent: index });
    }
  }

  function connect(index: number): void {
    const agent = agents[index]!;
    const talk = sampleTalkSec(profile, random);
    agent.state = 'talking';
    agent.busySince = now;
    connected++;
    queue.push(now + talk, { kind: 'talkEnded', agent: index });
  }

  function longestIdleAgent(): number | null {
    let best: number | null = null;
    agents.forEach((agent, index) => {
      if (agent.state === 'idle' && (best === null || agent.idleSince < agents[best]!.idleSince)) best = index;
    });
    return best;
  }

  function place(agent: number | null): void {
    const attempt = simulateAttempt(profile, random);
    placed++;
    inFlight++;
    queue.push(now + attempt.resolvedAfterSec, { kind: 'callResolved', outcome: attempt.outcome, agent });
  }

  function stats(): PacerStats {
    let available = 0;
    let aboutToFree = 0;
    for (const agent of agents) {
      if (agent.state === 'idle') available++;
      else if (agent.state === 'wrapUp' && agent.wrapEndsAt - now <= lookaheadSec) aboutToFree++;
    }
    return {
      agentsAvailable: available,
      agentsAboutToFree: aboutToFree,
      callsInFlight: inFlight,
      attemptsResolved: resolved,
      answeredByHuman: outcomes.human,
      abandoned,
    };
  }

  function dial(): void {
    if (mode === 'preview' || now >= durationSec) return;
    const count = pace(stats(), { mode, ...pacerConfig });
    for (let i = 0; i < count; i++) place(null);
  }

  function handle(event: SimEvent): void {
    switch (event.kind) {
      case 'callResolved': {
        inFlight--;
        resolved++;

        outcomes[event.outcome]++;
        if (event.outcome === 'human') {
          const agent = event.agent ?? longestIdleAgent();
          if (agent !== null) connect(agent);
          else {
            const callId = nextCallId++;
            waiting.push(callId);
            queue.push(now + abandonThresholdSec, { kind: 'abandonCheck', callId });
          }
        } else if (event.agent !== null) {
          becomeIdle(event.agent);
        }
        break;
      }
      case 'abandonCheck': {
        const position = waiting.indexOf(event.callId);
        if (position >= 0) {
          waiting.splice(position, 1);
          abandoned++;
          if (outcomes.human >= 100) peakAbandonRate = Math.max(peakAbandonRate, abandoned / outcomes.human);
        }
        break;
      }
      case 'talkEnded': {
        const agent = agents[event.agent]!;
        agent.state = 'wrapUp';
        agent.wrapEndsAt = now + wrapUpSec;
        queue.push(agent.wrapEndsAt, { kind: 'wrapUpEnded', agent: event.agent });
        break;
      }
      case 'wrapUpEnded':
        becomeIdle(event.agent);
        break;
      case 'previewEnded':
        if (now >= durationSec) break;
        agents[event.agent]!.state = 'dialing';
        place(event.agent);
        break;
    }
  }

  agents.forEach((_agent, index) => becomeIdle(index));
  dial();
  while (queue.size > 0) {
    const next = queue.pop()!;
    if (next.at > durationSec) break;
    now = next.at;
    handle(next.event);
    dial();
  }
  now = durationSec;
  for (const agent of agents) if (agent.state === 'talking' || agent.state === 'wrapUp') busySeconds += durationSec - clip(agent.busySince);

  return {
    mode,
    placed,
    answered: outcomes.human,
    connected,
    abandoned,
    abandonRate: outcomes.human === 0 ? 0 : abandoned / outcomes.human,
    peakAbandonRate,
    occupancy: busySeconds / (agentCount * durationSec),
    outcomes,
    connectsPerAgentHour: connected / agentCount / (durationSec / 3600),
  };
}
