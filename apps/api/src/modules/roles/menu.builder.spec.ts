import { ALL_PERMISSIONS, APP_ROUTES, MENU_SECTIONS, PERMISSIONS, type MenuItem } from '@centralita/contracts';
import { buildMenu, groupOf, isMenuRoute } from './menu.builder';
import { BUILT_IN_ROLES } from './built-in-roles';

const links = (menu: MenuItem[]): Extract<MenuItem, { type: 'link' }>[] =>
  menu.flatMap((item) => (item.type === 'link' ? [item] : item.type === 'group' ? links(item.children) : []));
const permissionsOf = (code: string): string[] => BUILT_IN_ROLES.find((role) => role.code === code)!.permissions;

describe('buildMenu', () => {
  it('places every menu route of APP_ROUTES in a section group', () => {
    const orphans = APP_ROUTES.filter(isMenuRoute).filter((route) => groupOf(route.path) === null);
    expect(orphans).toEqual([]);
  });

  it('gives ADMIN every menu route, once, under labelled sections', () => {
    const menu = buildMenu(ALL_PERMISSIONS);
    expect(
      links(menu)
        .map((link) => link.path)
        .sort(),
    ).toEqual(
      APP_ROUTES.filter(isMenuRoute)
        .map((route) => route.path)
        .sort(),
    );
    expect(menu.filter((item) => item.type === 'label')).toEqual(MENU_SECTIONS.map((section) => ({ type: 'label', key: section.key })));
  });

  it('uses route titleKeys as link keys and never lists sub-screens or demo pages', () => {
    const all = links(buildMenu(ALL_PERMISSIONS));
    const dashboard = all.find((link) => link.path === '/dashboard/default')!;
    expect(dashboard).toEqual({ type: 'link', key: 'dashboard', path: '/dashboard/default', icon: 'pi pi-home' });
    expect(all.map((link) => link.path)).not.toEqual(expect.arrayContaining(['/users/edit']));
    expect(all.map((link) => link.path)).not.toContain('/charts/echarts');
  });

  it('an AGENT sees only what the AGENT permissions open, and no administration section', () => {
    const menu = buildMenu(permissionsOf('AGENT'));
    const paths = links(menu).map((link) => link.path);
    for (const route of APP_ROUTES.filter((r) => paths.includes(r.path))) {
      expect(route.permission === null || permissionsOf('AGENT').includes(route.permission)).toBe(true);
    }
    expect(paths).toEqual(
      expect.arrayContaining([
        '/dashboard/DashboardAgente',
        '/conversations/agentConversations',
        '/crm/crmlist',
        '/emails/SendEmail',
        '/SoftPhoneNew/Phone',
      ]),
    );
    expect(menu.some((item) => item.type === 'label' && item.key === 'administration')).toBe(false);
  });

  it('groups several links and collapses a group of one into its link', () => {
    const menu = buildMenu([PERMISSIONS.dashboardView, PERMISSIONS.reportsView]);
    expect(menu).toEqual([
      { type: 'label', key: 'main' },
      {
        type: 'group',
        key: 'dashboards',
        icon: 'pi pi-chart-line',
        children: [
          { type: 'link', key: 'dashboard', path: '/dashboard/default', icon: 'pi pi-home' },
          { type: 'link', key: 'dashboardClassic', path: '/dashboard/defaultold', icon: 'pi pi-home' },
        ],
      },
      { type: 'link', key: 'webChat', path: '/WindowChat/windowChat/', icon: 'pi pi-comment' },
      { type: 'link', key: 'reports', path: '/reports/reports', icon: 'pi pi-file' },
    ]);
  });

  it('follows a curated list: narrows and orders, but never grants', () => {
    const menu = buildMenu(permissionsOf('AGENT'), [
      { routePath: '/SoftPhoneNew/Phone', position: 1 },
      { routePath: '/crm/crmlist', position: 2 },
      { routePath: '/users/Users', position: 3 },
    ]);
    expect(menu).toEqual([
      { type: 'label', key: 'main' },
      {
        type: 'group',
        key: 'crm',
        icon: 'pi pi-briefcase',
        children: [
          { type: 'link', key: 'softphone', path: '/SoftPhoneNew/Phone', icon: 'pi pi-mobile' },
          { type: 'link', key: 'cases', path: '/crm/crmlist', icon: 'pi pi-briefcase' },
        ],
      },
    ]);
  });

  it('answers an empty menu for no permissions but the public web chat', () => {
    expect(links(buildMenu([])).map((link) => link.path)).toEqual(['/WindowChat/windowChat/']);
  });
});
