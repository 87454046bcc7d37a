import { describe, expect, it } from '@jest/globals';
import { DomainError } from '../domain-error';
import {
  contactLocalTime,
  isWithinCallingWindow,
  nextCallingWindowStart,
  validateCallingWindows,
  type CallingWindows,
} from './calling-window';

const weekdays9to21: CallingWindows = {
  mon: [{ from: '09:00', to: '21:00' }],
  tue: [{ from: '09:00', to: '21:00' }],
  wed: [{ from: '09:00', to: '21:00' }],
  thu: [{ from: '09:00', to: '21:00' }],
  fri: [{ from: '09:00', to: '21:00' }],
};
const madrid = '+34912345678';
const bogota = '+576012345678';
const newYork = '+12125550100';
const canary = '+34928123456';

describe(isWithinCallingWindow.name, () => {
  // 2025-01-15 is a Wednesday; Madrid is UTC+1 in winter, UTC+2 in summer; Bogotá UTC−5 all year.
  it('allows a call inside the window in the contact’s local time', () => {
    expect(isWithinCallingWindow(madrid, Date.UTC(2025, 0, 15, 8, 30), weekdays9to21)).toBe(true); // 09:30 Madrid
  });

  it('refuses a call before the window opens locally', () => {
    expect(isWithinCallingWindow(madrid, Date.UTC(2025, 0, 15, 7, 30), weekdays9to21)).toBe(false); // 08:30 Madrid
  });

  it('judges the same instant by each contact’s own zone', () => {
    const at = Date.UTC(2025, 0, 15, 10, 0); // 11:00 Madrid, 05:00 Bogotá
    expect(isWithinCallingWindow(madrid, at, weekdays9to21)).toBe(true);
    expect(isWithinCallingWindow(bogota, at, weekdays9to21)).toBe(false);
  });

  it('follows daylight saving time', () => {
    // 07:30 UTC is 08:30 in Madrid in January (closed) but 09:30 in July (open).
    expect(isWithinCallingWindow(madrid, Date.UTC(2025, 6, 15, 7, 30), weekdays9to21)).toBe(true);
  });

  it('treats the end of a range as excluded', () => {
    // Saturday 02:00 UTC is Friday 21:00 in New York (UTC−5).
    expect(isWithinCallingWindow(newYork, Date.UTC(2025, 0, 18, 2, 0), weekdays9to21)).toBe(false);
  });

  it('takes the weekday from the contact’s date, not UTC’s', () => {
    // Saturday 01:59 UTC is still Friday 20:59 in New York.
    expect(isWithinCallingWindow(newYork, Date.UTC(2025, 0, 18, 1, 59), weekdays9to21)).toBe(true);
  });

  it('refuses a day without ranges', () => {
    expect(isWithinCallingWindow(madrid, Date.UTC(2025, 0, 18, 11, 0), weekdays9to21)).toBe(false); // Saturday 12:00 Madrid
  });

  it('uses the Canary Islands’ own hour for their numbers', () => {
    // 08:30 UTC: 09:30 in Madrid but 08:30 in Las Palmas (UTC+0).
    expect(isWithinCallingWindow(canary, Date.UTC(2025, 0, 15, 8, 30), weekdays9to21)).toBe(false);
  });

  it('accepts several ranges in one day', () => {
    const split: CallingWindows = {
      wed: [
        { from: '09:00', to: '14:00' },
        { from: '16:00', to: '20:00' },
      ],
    };
    expect(isWithinCallingWindow(madrid, Date.UTC(2025, 0, 15, 15, 30), split)).toBe(true); // 16:30 Madrid
    expect(isWithinCallingWindow(madrid, Date.UTC(2025, 0, 15, 14, 0), split)).toBe(false); // 15:00 Madrid
  });

  it('never allows a number whose zone is unknown', () => {
    const always: CallingWindows = { wed: [{ from: '00:00', to: '24:00' }] };
    expect(isWithinCallingWindow('+81312345678', Date.UTC(2025, 0, 15, 3, 0), always)).toBe(false);
  });
});

describe(validateCallingWindows.name, () => {
  it('refuses a time that is not HH:MM', () => {
    expect(() => validateCallingWindows({ mon: [{ from: '9:00', to: '21:00' }] })).toThrow(DomainError);
  });

  it('refuses a range that ends before it starts', () => {
    expect(() => validateCallingWindows({ mon: [{ from: '21:00', to: '09:00' }] })).toThrow(DomainError);
  });

  it('refuses an unknown weekday', () => {
    expect(() => validateCallingWindows({ funday: [] } as unknown as CallingWindows)).toThrow(DomainError);
  });
});

describe(contactLocalTime.name, () => {
  it('gives the weekday and minute of day in the number’s zone', () => {
    expect(contactLocalTime(bogota, Date.UTC(2025, 0, 15, 14, 5))).toEqual({
      timeZone: 'America/Bogota',
      weekday: 'wed',
      minuteOfDay: 9 * 60 + 5,
    });
  });
});

describe(nextCallingWindowStart.name, () => {
  it('is now while within a window', () => {
    const at = Date.UTC(2025, 0, 15, 8, 30, 15);
    expect(nextCallingWindowStart(madrid, at, weekdays9to21)).toBe(at);
  });

  it('is the start of today’s window before it opens, in the contact’s zone', () => {
    // Wednesday 08:30 Madrid (UTC+1): opens at 09:00 Madrid = 08:00 UTC.
    expect(nextCallingWindowStart(madrid, Date.UTC(2025, 0, 15, 7, 30, 40), weekdays9to21)).toBe(Date.UTC(2025, 0, 15, 8, 0));
  });

  it('skips a closed weekend to Monday’s window', () => {
    // Friday 22:00 Madrid: next is Monday 09:00 Madrid.
    expect(nextCallingWindowStart(madrid, Date.UTC(2025, 0, 17, 21, 0), weekdays9to21)).toBe(Date.UTC(2025, 0, 20, 8, 0));
  });

  it('lands on the local start across a daylight-saving change', () => {
    // Saturday 29 March 2025 12:00 Madrid (UTC+1); clocks go to UTC+2 on Sunday: Monday 09:00 Madrid = 07:00 UTC.
    expect(nextCallingWindowStart(madrid, Date.UTC(2025, 2, 29, 11, 0), weekdays9to21)).toBe(Date.UTC(2025, 2, 31, 7, 0));
  });

  it('is null for an unknown zone or no window on any day', () => {
    expect(nextCallingWindowStart('+81312345678', Date.UTC(2025, 0, 15, 3, 0), weekdays9to21)).toBeNull();
    expect(nextCallingWindowStart(madrid, Date.UTC(2025, 0, 15, 3, 0), {})).toBeNull();
  });
});
