import { describe, expect, it } from '@jest/globals';
import { hasPermission } from './permissions';

describe(hasPermission.name, () => {
  it('lets any signed-in user open a route without a permission', () => {
    expect(hasPermission({ permissions: [] }, null)).toBe(true);
  });

  it('needs the route permission among the user permissions', () => {
    expect(hasPermission({ permissions: ['users.manage'] }, 'users.manage')).toBe(true);
  });

  it('refuses a user without the permission', () => {
    expect(hasPermission({ permissions: ['dashboard.view'] }, 'users.manage')).toBe(false);
  });

  it('refuses when nobody is signed in', () => {
    expect(hasPermission(null, null)).toBe(false);
  });
});
