import { nationalToE164, validateTrunk } from './telephony';

describe('nationalToE164 (called numbers in national format, issue #22)', () => {
  const uk = { countryCode: '44', nationalPrefix: '0' };
  const spain = { countryCode: '34', nationalPrefix: null };
  const italy = { countryCode: '39', nationalPrefix: null };
  const russia = { countryCode: '7', nationalPrefix: '8' };

  it('drops the national prefix and adds the country code', () => {
    expect(nationalToE164('02079460000', uk)).toBe('+442079460000');
    expect(nationalToE164('020 7946-0000', uk)).toBe('+442079460000');
    expect(nationalToE164('84951234567', russia)).toBe('+74951234567');
  });

  it('adds the country code where there is no national prefix (leading zeros kept, as Italy dials them)', () => {
    expect(nationalToE164('911234567', spain)).toBe('+34911234567');
    expect(nationalToE164('06 1234567', italy)).toBe('+39061234567');
  });

  it('reads "00" as the international form whatever the trunk', () => {
    expect(nationalToE164('0034911234567', uk)).toBe('+34911234567');
    expect(nationalToE164('0034911234567', { countryCode: null, nationalPrefix: null })).toBe('+34911234567');
  });

  it('answers null for E.164, a missing prefix, no country, or what is not a number', () => {
    expect(nationalToE164('+442079460000', uk)).toBeNull();
    expect(nationalToE164('2079460000', uk)).toBeNull(); // the UK trunk's numbers come with their 0
    expect(nationalToE164('911234567', { countryCode: null, nationalPrefix: null })).toBeNull();
    expect(nationalToE164('0', uk)).toBeNull();
    expect(nationalToE164('centralita', spain)).toBeNull();
    expect(nationalToE164('', spain)).toBeNull();
    expect(nationalToE164('0123', uk)).toBeNull(); // too short for E.164
  });
});

describe('validateTrunk: country code and national prefix', () => {
  const base = { name: 'Carrier', host: 'sip.example.com', port: 5060, transport: 'udp', maxConcurrentCalls: 10 };
  const fields = (input: Record<string, unknown>) => validateTrunk({ ...base, ...input }).map((issue) => `${issue.field} ${issue.key}`);

  it('accepts both empty, a country alone, or both', () => {
    expect(fields({})).toEqual([]);
    expect(fields({ countryCode: '34', nationalPrefix: '' })).toEqual([]);
    expect(fields({ countryCode: '44', nationalPrefix: '0' })).toEqual([]);
  });

  it('refuses a country code with "+", a leading 0 or four digits, a prefix that is not 1-2 digits, and a prefix without country', () => {
    expect(fields({ countryCode: '+34' })).toEqual(['countryCode pattern']);
    expect(fields({ countryCode: '034' })).toEqual(['countryCode pattern']);
    expect(fields({ countryCode: '3456' })).toEqual(['countryCode pattern']);
    expect(fields({ countryCode: '44', nationalPrefix: '0a' })).toEqual(['nationalPrefix pattern']);
    expect(fields({ countryCode: '44', nationalPrefix: '000' })).toEqual(['nationalPrefix pattern']);
    expect(fields({ nationalPrefix: '0' })).toEqual(['countryCode required']);
  });
});
