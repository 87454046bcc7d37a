import { DEFAULT_DASHBOARD_SETTINGS, sentimentLabel, validateDashboardSettings } from './dashboards';

describe(validateDashboardSettings.name, () => {
  it('accepts the defaults', () => {
    expect(validateDashboardSettings(DEFAULT_DASHBOARD_SETTINGS)).toEqual([]);
  });

  it('names every field that breaks a rule', () => {
    const issues = validateDashboardSettings({
      ...DEFAULT_DASHBOARD_SETTINGS,
      serviceLevelThresholdSec: 0,
      targetServiceLevelPct: 100,
      shortAbandonSec: 1.5,
      shortAbandonMode: 'sometimes' as never,
      timeZone: 'Mars/Olympus',
      refreshSeconds: undefined as never,
      negativeThreshold: 0.5,
      visibleWidgets: ['nope'] as never,
      schedule: [{ day: 1, from: '17:00', to: '09:00' }],
    });
    expect(issues.map((issue) => [issue.field, issue.key])).toEqual([
      ['serviceLevelThresholdSec', 'range'],
      ['targetServiceLevelPct', 'range'],
      ['shortAbandonSec', 'integer'],
      ['refreshSeconds', 'required'],
      ['shortAbandonMode', 'oneOf'],
      ['timeZone', 'pattern'],
      ['negativeThreshold', 'range'],
      ['visibleWidgets', 'oneOf'],
      ['schedule', 'pattern'],
    ]);
  });
});

describe(sentimentLabel.name, () => {
  it('keeps ±0.05 around zero neutral', () => {
    expect([0.05, 0.049, 0, -0.049, -0.05].map(sentimentLabel)).toEqual(['positive', 'neutral', 'neutral', 'neutral', 'negative']);
  });
});
