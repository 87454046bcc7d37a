import { describe, expect, it } from '@jest/globals';
import { isE164, normalizePhone, timeZoneForPhone } from './phone';

describe(normalizePhone.name, () => {
  it('strips spaces from an international number', () => {
    expect(normalizePhone('+34 912 34 56 78')).toBe('+34912345678');
  });

  it('reads a 00 international prefix as +', () => {
    expect(normalizePhone('0034-912-345-678')).toBe('+34912345678');
  });

  it('adds the default calling code to a national number', () => {
    expect(normalizePhone('(415) 555-2671', { defaultCallingCode: '1' })).toBe('+14155552671');
  });

  it('drops the national trunk 0', () => {
    expect(normalizePhone('020 7946 0958', { defaultCallingCode: '44' })).toBe('+442079460958');
  });

  it('keeps the leading 0 of Italian fixed lines', () => {
    expect(normalizePhone('06 1234 5678', { defaultCallingCode: '39' })).toBe('+390612345678');
  });

  it('drops Russia’s trunk 8', () => {
    expect(normalizePhone('8 (912) 345-67-89', { defaultCallingCode: '7' })).toBe('+79123456789');
  });

  it('refuses a national number when no default calling code is given', () => {
    expect(normalizePhone('912345678')).toBeNull();
  });

  it('refuses fewer than 8 digits', () => {
    expect(normalizePhone('+34 1234')).toBeNull();
  });

  it('refuses more than 15 digits', () => {
    expect(normalizePhone('+1234567890123456')).toBeNull();
  });

  it('refuses letters', () => {
    expect(normalizePhone('+34 91 CALL ME')).toBeNull();
  });

  it('refuses a country code starting with 0', () => {
    expect(normalizePhone('+0912345678')).toBeNull();
  });
});

describe(isE164.name, () => {
  it('accepts 8 digits after the +', () => {
    expect(isE164('+37212345')).toBe(true);
  });

  it('rejects a number without the +', () => {
    expect(isE164('34912345678')).toBe(false);
  });
});

describe(timeZoneForPhone.name, () => {
  it.each([
    ['ES', '+34912345678', 'Europe/Madrid'],
    ['ES Canary Islands', '+34928123456', 'Atlantic/Canary'],
    ['MX', '+525512345678', 'America/Mexico_City'],
    ['MX Tijuana', '+526641234567', 'America/Tijuana'],
    ['MX Cancún', '+529981234567', 'America/Cancun'],
    ['CO', '+576012345678', 'America/Bogota'],
    ['AR', '+541112345678', 'America/Argentina/Buenos_Aires'],
    ['CL', '+56221234567', 'America/Santiago'],
    ['PE', '+5114123456', 'America/Lima'],
    ['US New York', '+12125550100', 'America/New_York'],
    ['US Chicago', '+13125550100', 'America/Chicago'],
    ['US Denver', '+13035550100', 'America/Denver'],
    ['US Phoenix', '+16025550100', 'America/Phoenix'],
    ['US San Francisco', '+14155550100', 'America/Los_Angeles'],
    ['US Honolulu', '+18085550100', 'Pacific/Honolulu'],
    ['CA Vancouver', '+16045550100', 'America/Los_Angeles'],
    ['CA Toronto (Eastern default)', '+14165550100', 'America/New_York'],
    ['GB', '+442079460958', 'Europe/London'],
    ['DE', '+493012345678', 'Europe/Berlin'],
    ['IT', '+390612345678', 'Europe/Rome'],
    ['GR', '+302101234567', 'Europe/Athens'],
    ['RS', '+381111234567', 'Europe/Belgrade'],
    ['RU Moscow', '+74951234567', 'Europe/Moscow'],
    ['RU Novosibirsk', '+73831234567', 'Asia/Novosibirsk'],
  ])('maps a %s number to its zone', (_country, phone, zone) => {
    expect(timeZoneForPhone(phone)).toBe(zone);
  });

  it('returns null for a country outside the table', () => {
    expect(timeZoneForPhone('+81312345678')).toBeNull();
  });

  it('returns null for a number that is not E.164', () => {
    expect(timeZoneForPhone('912345678')).toBeNull();
  });

  it('names only zones the runtime knows', () => {
    const phones = ['+34912345678', '+34928123456', '+526641234567', '+73831234567', '+77011234567', '+17095550100', '+17875550100'];
    for (const phone of phones) {
      expect(() => new Intl.DateTimeFormat('en-US', { timeZone: timeZoneForPhone(phone)! })).not.toThrow();
    }
  });
});
