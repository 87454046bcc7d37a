import { csvCell, validateDialerCampaign } from './outbound';

describe('validateDialerCampaign', () => {
  const valid = { name: 'Renewals', phoneListId: 'list', mode: 'progressive' };

  it('accepts a minimal campaign (defaults fill the rest)', () => {
    expect(validateDialerCampaign(valid)).toEqual([]);
  });

  it('names every field that breaks a rule', () => {
    const issues = validateDialerCampaign({
      name: ' ',
      mode: 'sideways',
      abandonCapPercent: 11,
      abandonThresholdMs: 100,
      maxAttempts: 1.5,
      retryDelays: { busy: -1 },
      callingWindows: { mon: [{ from: '21:00', to: '09:00' }] },
      scheduleFrom: '2030-01-02T00:00:00Z',
      scheduleTo: '2030-01-01T00:00:00Z',
    });
    expect(issues.map((issue) => issue.field).sort()).toEqual(
      [
        'abandonCapPercent',
        'abandonThresholdMs',
        'callingWindows',
        'maxAttempts',
        'mode',
        'name',
        'phoneListId',
        'retryDelays',
        'scheduleTo',
      ].sort(),
    );
  });

  it('refuses unknown retry outcomes and weekdays', () => {
    expect(validateDialerCampaign({ ...valid, retryDelays: { done: 60 } }).map((i) => i.field)).toEqual(['retryDelays']);
    expect(validateDialerCampaign({ ...valid, callingWindows: { someday: [] } }).map((i) => i.field)).toEqual(['callingWindows']);
  });
});

describe('csvCell', () => {
  it('neutralises formulas and quotes what needs quoting', () => {
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvCell('+34911000001')).toBe(`"'+34911000001"`);
    expect(csvCell('Ana, Luis')).toBe('"Ana, Luis"');
    expect(csvCell(null)).toBe('');
    expect(csvCell(3)).toBe('3');
  });
});
