import { describe, expect, it } from '@jest/globals';
import type { MenuItem } from '@centralita/contracts';
import { groupContainsPath, iconClass, isPathActive, isSafeExternalUrl, labelKeys } from './menu-utils';

const group: MenuItem = {
  type: 'group',
  key: 'administration',
  children: [
    { type: 'link', key: 'users', path: '/users/Users' },
    { type: 'group', key: 'settings', children: [{ type: 'link', key: 'polls', path: '/settings/polls' }] },
  ],
};

describe(isPathActive.name, () => {
  it('is active on its own path', () => {
    expect(isPathActive('/users/Users', '/users/Users')).toBe(true);
  });

  it('is active below its path', () => {
    expect(isPathActive('/material', '/material/buttons')).toBe(true);
  });

  it('is not active on a path that only shares a prefix', () => {
    expect(isPathActive('/dashboard/default', '/dashboard/defaultold')).toBe(false);
  });

  it('ignores case and trailing slashes', () => {
    expect(isPathActive('/WindowChat/windowChat/', '/windowchat/windowchat')).toBe(true);
  });
});

describe(groupContainsPath.name, () => {
  it('opens for a direct child', () => {
    expect(groupContainsPath(group, '/users/Users')).toBe(true);
  });

  it('opens for a nested child', () => {
    expect(groupContainsPath(group, '/settings/polls')).toBe(true);
  });

  it('stays closed elsewhere', () => {
    expect(groupContainsPath(group, '/reports/reports')).toBe(false);
  });
});

describe(labelKeys.name, () => {
  it('translates links as route titles', () => {
    expect(labelKeys({ type: 'link', key: 'users', path: '/users/Users' })[0]).toBe('routes.users');
  });

  it('translates labels and groups as menu keys', () => {
    expect(labelKeys({ type: 'label', key: 'dashboards' })[0]).toBe('menu.dashboards');
  });
});

describe(iconClass.name, () => {
  it.each([
    ['pi pi-home', 'pi pi-home'],
    ['pi-home', 'pi pi-home'],
    ['home', 'pi pi-home'],
    [undefined, 'pi pi-circle'],
  ])('maps %s to %s', (icon, expected) => {
    expect(iconClass(icon)).toBe(expected);
  });
});

describe(isSafeExternalUrl.name, () => {
  it('allows https links', () => {
    expect(isSafeExternalUrl('https://docs.example.com')).toBe(true);
  });

  it('refuses javascript: links', () => {
    expect(isSafeExternalUrl('javascript:alert(1)')).toBe(false);
  });
});
