import { describe, expect, it } from '@jest/globals';
import { APP_ROUTES } from '@centralita/contracts';
import { breadcrumbSegments, findRoute, humanise } from './route-table';

describe(findRoute.name, () => {
  it.each(APP_ROUTES.map((r) => [r.path, r.titleKey]))('finds %s', (path, titleKey) => {
    expect(findRoute(path)?.titleKey).toBe(titleKey);
  });

  it('ignores letter case like the router does', () => {
    expect(findRoute('/dashboard/superuser')?.titleKey).toBe('supervisorDashboard');
  });

  it('matches the chat window with or without its trailing slash', () => {
    expect(findRoute('/WindowChat/windowChat')?.titleKey).toBe('webChat');
  });

  it('matches anything under a demo prefix', () => {
    expect(findRoute('/material/buttons/outlined')?.capability).toBe('demo');
  });

  it('answers null for unknown paths', () => {
    expect(findRoute('/no/such/page')).toBeNull();
  });
});

describe(breadcrumbSegments.name, () => {
  it('keeps every segment but the last', () => {
    expect(breadcrumbSegments('/dashboard/shared/AgentPauseDetail')).toEqual(['dashboard', 'shared']);
  });

  it('ignores a trailing slash', () => {
    expect(breadcrumbSegments('/WindowChat/windowChat/')).toEqual(['WindowChat']);
  });
});

describe(humanise.name, () => {
  it('splits camel case into a sentence', () => {
    expect(humanise('DashboardGeneralStatusQueue')).toBe('Dashboard general status queue');
  });
});
