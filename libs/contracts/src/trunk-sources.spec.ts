import { isSourceCidr, parseAllowedSources, validateTrunk } from './telephony';

describe('trunk allowed sources (carrier source check)', () => {
  it.each([
    '203.0.113.10',
    '203.0.113.0/24',
    '0.0.0.0/0',
    '10.1.2.3/32',
    '2001:db8::/32',
    '::1',
    '2001:db8:0:0:0:0:0:1/128',
    '::ffff:192.0.2.1',
  ])('accepts %s', (entry) => expect(isSourceCidr(entry)).toBe(true));
  it.each([
    '203.0.113',
    '203.0.113.0/33',
    '256.1.1.1',
    'carrier.example.com',
    '2001:db8::/129',
    '2001:db8:::1',
    '1:2:3:4:5:6:7:8:9',
    '10.0.0.0/08',
    '10.0.0.0/',
    '',
  ])('refuses %s', (entry) => expect(isSourceCidr(entry)).toBe(false));

  it('reads a list or a text separated by commas, spaces or lines', () => {
    expect(parseAllowedSources(' 203.0.113.10, 198.51.100.0/24\n2001:db8::/32 ')).toEqual([
      '203.0.113.10',
      '198.51.100.0/24',
      '2001:db8::/32',
    ]);
    expect(parseAllowedSources([' 203.0.113.10 ', ''])).toEqual(['203.0.113.10']);
    expect(parseAllowedSources(42)).toBeNull();
  });

  const base = { name: 'T', host: 'sip.example.com', port: 5060, transport: 'udp', maxConcurrentCalls: 5 };
  it('names the field and the bad entry', () => {
    expect(validateTrunk({ ...base, allowedSources: ['203.0.113.10', '203.0.113.0/40'] })).toEqual([
      { field: 'allowedSources', key: 'sourceAddress', values: { value: '203.0.113.0/40' } },
    ]);
    expect(validateTrunk({ ...base, allowedSources: [1] as unknown as string[] })).toEqual([{ field: 'allowedSources', key: 'pattern' }]);
    expect(validateTrunk({ ...base, allowedSources: Array.from({ length: 101 }, (_, i) => `10.0.${i}.1`) })).toEqual([
      { field: 'allowedSources', key: 'maxItems', values: { count: 100 } },
    ]);
    expect(validateTrunk({ ...base, allowedSources: [] })).toEqual([]);
  });
});
