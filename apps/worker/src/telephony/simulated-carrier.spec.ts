import type { CarrierProfile } from '@centralita/domain';
import { SimulatedCarrier } from './simulated-carrier';
import { TelephonyError, type OriginateRequest, type TelephonyEvent } from './telephony';

const trunk = { host: 'sip.carrier.test', port: 5060, transport: 'udp' as const };
let sequence = 0;
const request = (overrides: Partial<OriginateRequest> = {}): OriginateRequest => ({
  callId: `call-${++sequence}`,
  tenantId: 'tenant-1',
  from: '+34910000000',
  to: '+34911234567',
  trunk,
  ringTimeoutSec: 30,
  amd: true,
  ...overrides,
});
const fast: Partial<CarrierProfile> = {
  ringSec: { min: 2, max: 4 },
  busySignalSec: 1,
  failureSec: 1,
  machineDetectionSec: 1,
  talkSec: { mean: 5, sd: 1 },
};
const only = (rates: Partial<CarrierProfile>): Partial<CarrierProfile> => ({
  answerRate: 0,
  machineRate: 0,
  busyRate: 0,
  failedRate: 0,
  ...fast,
  ...rates,
});
const types = (events: readonly TelephonyEvent[]) =>
  events.map((event) => (event.type === 'answered' || event.type === 'hungUp' ? `${event.type}:${event.by}` : event.type));

describe(SimulatedCarrier.name, () => {
  const carriers: SimulatedCarrier[] = [];
  const carrier = (options: ConstructorParameters<typeof SimulatedCarrier>[0] = {}) => {
    const created = new SimulatedCarrier({ timeFactor: 0.001, ...options });
    carriers.push(created);
    return created;
  };
  afterEach(async () => {
    await Promise.all(carriers.splice(0).map((created) => created.close()));
  });

  it('plays a human answer as ringing, answered by a human, then the remote hang-up', async () => {
    const handle = await carrier({ profile: only({ answerRate: 1 }) }).originate(request());
    await handle.done;
    expect(types(handle.events)).toEqual(['ringing', 'answered:human', 'hungUp:remote']);
  });

  it('reports an answering machine as such when AMD is on', async () => {
    const handle = await carrier({ profile: only({ machineRate: 1 }) }).originate(request({ amd: true }));
    await handle.done;
    expect(types(handle.events)).toEqual(['ringing', 'answered:machine', 'hungUp:remote']);
  });

  it('reports an answering machine as a human when AMD is off', async () => {
    const handle = await carrier({ profile: only({ machineRate: 1 }) }).originate(request({ amd: false }));
    expect(await handle.waitFor('answered')).toMatchObject({ by: 'human' });
  });

  it('plays busy without ringing', async () => {
    const handle = await carrier({ profile: only({ busyRate: 1 }) }).originate(request());
    await handle.done;
    expect(types(handle.events)).toEqual(['busy']);
  });

  it('plays a network failure with its SIP status', async () => {
    const handle = await carrier({ profile: only({ failedRate: 1 }) }).originate(request());
    expect(await handle.done).toMatchObject({ type: 'failed', reason: 'network_failure', sipStatus: 503 });
    expect(handle.events).toHaveLength(1);
  });

  it('rings until the ring timeout when nobody answers', async () => {
    const handle = await carrier({ profile: only({}) }).originate(request({ ringTimeoutSec: 5 }));
    await handle.done;
    expect(types(handle.events)).toEqual(['ringing', 'noAnswer']);
  });

  it('gives up at the ring timeout when the person would answer later', async () => {
    const handle = await carrier({ profile: only({ answerRate: 1, ringSec: { min: 10, max: 10 } }) }).originate(
      request({ ringTimeoutSec: 3 }),
    );
    await handle.done;
    expect(types(handle.events)).toEqual(['ringing', 'noAnswer']);
  });

  it('scales simulated seconds by the time factor', async () => {
    const handle = await carrier({ profile: only({ busyRate: 1, busySignalSec: 5 }), timeFactor: 0.01 }).originate(request());
    const started = Date.now();
    await handle.done;
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(40);
    // Unscaled it would take 5 s; the bound leaves a loaded machine room and still proves the scaling.
    expect(elapsed).toBeLessThan(3000);
  });

  it('gives the same outcomes for the same seed and different ones for another seed', async () => {
    const run = async (seed: number) => {
      const simulated = carrier({ seed, profile: fast });
      const handles = [];
      for (let i = 0; i < 40; i++) handles.push(await simulated.originate(request({ ringTimeoutSec: 6 })));
      await Promise.all(handles.map((handle) => handle.done));
      return handles.map((handle) => types(handle.events).join(','));
    };
    const first = await run(42);
    expect(await run(42)).toEqual(first);
    expect(await run(7)).not.toEqual(first);
    expect(new Set(first).size).toBeGreaterThan(2);
  });

  it('refuses a call over the trunk limit with trunk_busy, and not on another trunk', async () => {
    const simulated = carrier({ profile: only({ answerRate: 1, talkSec: { mean: 10_000, sd: 1 } }), maxCallsPerTrunk: 2 });
    await simulated.originate(request());
    await simulated.originate(request());
    const refused = await simulated.originate(request());
    expect(refused.events).toEqual([expect.objectContaining({ type: 'failed', reason: 'trunk_busy' })]);
    const elsewhere = await simulated.originate(request({ trunk: { ...trunk, host: 'other.carrier.test' } }));
    expect(elsewhere.ended).toBe(false);
    expect(simulated.activeCalls()).toHaveLength(3);
  });

  it('accepts a call on the trunk again once a call ends', async () => {
    const simulated = carrier({ profile: only({ answerRate: 1, talkSec: { mean: 10_000, sd: 1 } }), maxCallsPerTrunk: 1 });
    const first = await simulated.originate(request());
    await simulated.hangUp(first.callId);
    const second = await simulated.originate(request());
    expect(second.ended).toBe(false);
  });

  it('hangs up an answered call locally and forgets it', async () => {
    const simulated = carrier({ profile: only({ answerRate: 1, talkSec: { mean: 1000, sd: 1 } }) });
    const handle = await simulated.originate(request());
    await handle.waitFor('answered');
    expect(simulated.activeCalls()).toEqual([expect.objectContaining({ callId: handle.callId, answered: true })]);
    await simulated.hangUp(handle.callId);
    expect(await handle.done).toMatchObject({ type: 'hungUp', by: 'local' });
    expect(simulated.activeCalls()).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(types(handle.events)).toEqual(['ringing', 'answered:human', 'hungUp:local']);
  });

  it('hangs up a ringing call before the answer', async () => {
    const simulated = carrier({ profile: only({ answerRate: 1, ringSec: { min: 1000, max: 1000 } }), timeFactor: 0.01 });
    const handle = await simulated.originate(request({ ringTimeoutSec: 2000 }));
    await handle.waitFor('ringing');
    await simulated.hangUp(handle.callId);
    expect(types(handle.events)).toEqual(['ringing', 'hungUp:local']);
  });

  it('bridges only an answered call to a SIP URI', async () => {
    const simulated = carrier({
      profile: only({ answerRate: 1, ringSec: { min: 30, max: 30 }, talkSec: { mean: 1000, sd: 1 } }),
      timeFactor: 0.01,
    });
    const handle = await simulated.originate(request());
    await expect(simulated.bridge(handle.callId, 'sip:agent-7@pbx.test')).rejects.toMatchObject({ code: 'telephony.notAnswered' });
    await handle.waitFor('answered');
    await expect(simulated.bridge(handle.callId, 'agent-7')).rejects.toMatchObject({ code: 'telephony.invalidRequest' });
    await simulated.bridge(handle.callId, 'sip:agent-7@pbx.test');
    expect(simulated.activeCalls()[0]).toMatchObject({ bridgedTo: 'sip:agent-7@pbx.test' });
  });

  it('refuses unknown calls, duplicate ids and bad numbers with coded errors', async () => {
    const simulated = carrier({ profile: only({ answerRate: 1, talkSec: { mean: 10_000, sd: 1 } }) });
    await expect(simulated.hangUp('nope')).rejects.toMatchObject({ code: 'telephony.unknownCall' });
    const handle = await simulated.originate(request());
    await expect(simulated.originate(request({ callId: handle.callId }))).rejects.toMatchObject({ code: 'telephony.duplicateCall' });
    await expect(simulated.originate(request({ to: '911' }))).rejects.toThrow(TelephonyError);
    await expect(simulated.originate(request({ to: '911' }))).rejects.toThrow(/E\.164/);
  });
});
