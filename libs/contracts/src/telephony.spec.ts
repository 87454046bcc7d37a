import { describe, expect, it } from '@jest/globals';
import { normalizeInboundNumber, validateInboundNumber, validateIvr } from './telephony';

describe(normalizeInboundNumber.name, () => {
  it('keeps E.164 with its "+" and drops spaces, dashes, dots and brackets', () => {
    expect(normalizeInboundNumber('+34911234567')).toBe('+34911234567');
    expect(normalizeInboundNumber(' +34 (91) 123-45.67 ')).toBe('+34911234567');
  });

  it('reads a number without "+" as already carrying its country code', () => {
    expect(normalizeInboundNumber('34911234567')).toBe('+34911234567');
  });

  it('refuses what is not E.164: too short or long, a leading 0, letters, a "+" inside', () => {
    for (const bad of ['', '+', '123456', '+0034911234567', '0911234567', '+1234567890123456', '+34 91 ABC', '34+911234567'])
      expect(normalizeInboundNumber(bad)).toBeNull();
  });
});

describe(validateInboundNumber.name, () => {
  it('accepts a number sent to an IVR or a line', () => {
    expect(validateInboundNumber({ number: '+34911234567', targetType: 'ivr', targetId: 'x' })).toEqual([]);
    expect(validateInboundNumber({ number: '34911234567', targetType: 'line', targetId: 'x' })).toEqual([]);
  });

  it('names each field that is missing or wrong', () => {
    expect(validateInboundNumber({})).toEqual([
      { field: 'number', key: 'required' },
      { field: 'targetType', key: 'required' },
      { field: 'targetId', key: 'required' },
    ]);
    expect(validateInboundNumber({ number: '12', targetType: 'queue', targetId: 'x' })).toEqual([
      { field: 'number', key: 'pattern' },
      { field: 'targetType', key: 'oneOf', values: { options: 'ivr, line' } },
    ]);
  });
});

describe(validateIvr.name, () => {
  it('takes any of the seven languages, or none (the tenant’s), and refuses another', () => {
    expect(validateIvr({ name: 'Menu', language: 'sr' })).toEqual([]);
    expect(validateIvr({ name: 'Menu' })).toEqual([]);
    expect(validateIvr({ name: 'Menu', language: 'fr' })).toEqual([
      { field: 'language', key: 'oneOf', values: { options: 'es, en, el, it, sr, de, ru' } },
    ]);
  });
});
