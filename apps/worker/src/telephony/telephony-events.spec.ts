import { initial, outboundCallMachine, step, type OutboundCallEvent } from '@centralita/domain';
import { toOutboundCallEvent } from './telephony-events';
import type { TelephonyEvent } from './telephony';

describe(toOutboundCallEvent.name, () => {
  const system = { kind: 'system' as const };
  const cases: [TelephonyEvent, OutboundCallEvent][] = [
    [
      { type: 'ringing', at: 1 },
      { type: 'call.ringing', at: 1, actor: system },
    ],
    [
      { type: 'answered', at: 2, by: 'human' },
      { type: 'call.answered', by: 'human', at: 2, actor: system },
    ],
    [
      { type: 'answered', at: 2, by: 'machine' },
      { type: 'call.answered', by: 'machine', at: 2, actor: system },
    ],
    [
      { type: 'busy', at: 3 },
      { type: 'call.busy', at: 3, actor: system },
    ],
    [
      { type: 'noAnswer', at: 4 },
      { type: 'call.notAnswered', at: 4, actor: system },
    ],
    [
      { type: 'failed', at: 5, reason: 'trunk_busy' },
      { type: 'call.failed', reason: 'trunk_busy', at: 5, actor: system },
    ],
    [
      { type: 'hungUp', at: 6, by: 'remote' },
      { type: 'call.hungUp', at: 6, actor: system },
    ],
    [
      { type: 'hungUp', at: 6, by: 'local' },
      { type: 'call.hungUp', at: 6, actor: system },
    ],
  ];

  it.each(cases)('maps %j one to one onto the outbound-call machine', (event, expected) => {
    expect(toOutboundCallEvent(event)).toEqual(expected);
  });

  it('keeps the SIP status in the failure reason', () => {
    expect(toOutboundCallEvent({ type: 'failed', at: 5, reason: 'Service Unavailable', sipStatus: 503 })).toMatchObject({
      type: 'call.failed',
      reason: 'Service Unavailable (SIP 503)',
    });
  });

  it('produces events the machine accepts along a dialed, answered and hung-up call', () => {
    const input = { id: 'c1', tenantId: 't1', campaignId: 'k1', contactId: 'p1', phone: '+34911234567', attempt: 1, at: 0, actor: system };
    let snapshot = initial(outboundCallMachine, input).snapshot;
    snapshot = step(outboundCallMachine, snapshot, { type: 'call.dialed', at: 0, actor: system }).snapshot;
    const ringing = step(outboundCallMachine, snapshot, toOutboundCallEvent({ type: 'ringing', at: 1 }));
    expect(ringing.changed).toBe(true);
    const busy = step(outboundCallMachine, ringing.snapshot, toOutboundCallEvent({ type: 'busy', at: 2 }));
    expect(busy.changed).toBe(true);
    expect(busy.snapshot.value).toBe('busy');
  });
});
