import { tierDailyLimit, scheduleProblem } from '@centralita/contracts';
import { sendingSlot } from './sending-window';

const at = (iso: string) => Date.parse(iso);
const weekdays9to21 = {
  mon: [{ from: '09:00', to: '21:00' }],
  tue: [{ from: '09:00', to: '21:00' }],
  wed: [{ from: '09:00', to: '21:00' }],
  thu: [{ from: '09:00', to: '21:00' }],
  fri: [{ from: '09:00', to: '21:00' }],
};

describe(sendingSlot.name, () => {
  it('sends at any hour when the campaign has no windows', () => {
    expect(sendingSlot('+34911000101', at('2026-03-29T02:30:00Z'), null)).toEqual({ kind: 'now' });
  });

  it('judges the window in the recipient’s zone, from the number (Madrid and New York at the same instant)', () => {
    // 2026-06-03 (a Wednesday) 12:00 UTC = 14:00 in Madrid (CEST), 08:00 in New York (EDT).
    const noonUtc = at('2026-06-03T12:00:00Z');
    expect(sendingSlot('+34911000101', noonUtc, weekdays9to21)).toEqual({ kind: 'now' });
    expect(sendingSlot('+12125550100', noonUtc, weekdays9to21)).toEqual({ kind: 'later', at: at('2026-06-03T13:00:00Z') });
  });

  it('takes numbers without the plus sign as the phone list stores them', () => {
    expect(sendingSlot('34911000101', at('2026-06-03T12:00:00Z'), weekdays9to21)).toEqual({ kind: 'now' });
  });

  it('waits over the weekend to Monday’s opening', () => {
    // Friday 2026-06-05 22:00 in Madrid (20:00 UTC): next opening Monday 09:00 CEST = 07:00 UTC.
    expect(sendingSlot('+34911000101', at('2026-06-05T20:00:00Z'), weekdays9to21)).toEqual({
      kind: 'later',
      at: at('2026-06-08T07:00:00Z'),
    });
  });

  it('lands on the local opening across the spring-forward night (Madrid, 29 March 2026)', () => {
    // Saturday 28 March 23:00 CET (22:00 UTC); the clocks go 02:00 → 03:00 that night, so Sunday 09:00 is CEST (07:00 UTC).
    const sunday = { sun: [{ from: '09:00', to: '12:00' }] };
    expect(sendingSlot('+34911000101', at('2026-03-28T22:00:00Z'), sunday)).toEqual({ kind: 'later', at: at('2026-03-29T07:00:00Z') });
    // One hour later in UTC is still outside in local time (08:00 CEST at 06:00 UTC).
    expect(sendingSlot('+34911000101', at('2026-03-29T06:59:00Z'), sunday)).toEqual({ kind: 'later', at: at('2026-03-29T07:00:00Z') });
    expect(sendingSlot('+34911000101', at('2026-03-29T07:00:00Z'), sunday)).toEqual({ kind: 'now' });
  });

  it('lands on the local opening across the fall-back night (New York, 1 November 2026)', () => {
    // Saturday 31 October 22:00 EDT (02:00 UTC Sunday); Sunday 09:00 is EST (14:00 UTC), not 13:00.
    const sunday = { sun: [{ from: '09:00', to: '12:00' }] };
    expect(sendingSlot('+12125550100', at('2026-11-01T02:00:00Z'), sunday)).toEqual({ kind: 'later', at: at('2026-11-01T14:00:00Z') });
    expect(sendingSlot('+12125550100', at('2026-11-01T13:30:00Z'), sunday).kind).toBe('later');
  });

  it('never sends to a number whose zone is unknown when windows apply', () => {
    expect(sendingSlot('+999123456789', at('2026-06-03T12:00:00Z'), weekdays9to21)).toEqual({ kind: 'unknownZone' });
    expect(sendingSlot('+999123456789', at('2026-06-03T12:00:00Z'), null)).toEqual({ kind: 'now' });
  });
});

describe(scheduleProblem.name, () => {
  const now = at('2026-06-03T12:00:00Z');
  it('names the field of a bad schedule', () => {
    expect(scheduleProblem({ startsAt: 'mañana' }, now)).toMatch(/^startsAt/);
    expect(scheduleProblem({ endsAt: '2026-06-03T11:00:00Z' }, now)).toMatch(/^endsAt/);
    expect(scheduleProblem({ startsAt: '2026-06-04T10:00:00Z', endsAt: '2026-06-04T09:00:00Z' }, now)).toMatch(/^endsAt/);
    expect(scheduleProblem({ callingWindows: { someday: [] } as never }, now)).toMatch(/^callingWindows/);
    expect(scheduleProblem({ callingWindows: { mon: [{ from: '21:00', to: '09:00' }] } }, now)).toMatch(/^callingWindows\.mon/);
    expect(scheduleProblem({ callingWindows: {} }, now)).toMatch(/^callingWindows must open/);
  });

  it('accepts a future start and end and the dialer’s windows', () => {
    expect(
      scheduleProblem({ startsAt: '2026-06-04T10:00:00Z', endsAt: '2026-06-05T10:00:00Z', callingWindows: weekdays9to21 }, now),
    ).toBeNull();
    expect(scheduleProblem({}, now)).toBeNull();
  });
});

describe(tierDailyLimit.name, () => {
  it('reads Meta’s tiers as daily limits; unlimited or not set is no limit', () => {
    expect(tierDailyLimit('TIER_250')).toBe(250);
    expect(tierDailyLimit('TIER_1K')).toBe(1000);
    expect(tierDailyLimit('TIER_100K')).toBe(100_000);
    expect(tierDailyLimit('TIER_UNLIMITED')).toBeNull();
    expect(tierDailyLimit('TIER_NOT_SET')).toBeNull();
    expect(tierDailyLimit('2000')).toBe(2000);
  });
});
