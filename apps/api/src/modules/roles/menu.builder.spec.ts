import { ALL_PERMISSIONS, APP_ROUTES, MENU_SECTIONS, OFF_MENU_ROUTES, PERMISSIONS, type MenuItem } from '@centralita/contracts';
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
    expect(paths).toEqual(expect.arrayContaining(['/dashboard/default', '/conversations/agentConversations', '/SoftPhoneNew/Phone']));
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
      { type: 'link', key: 'reports', path: '/reports/reports', icon: 'pi pi-file' },
    ]);
  });

  it('follows a curated list: narrows and orders, but never grants', () => {
    const menu = buildMenu(permissionsOf('AGENT'), [
      { routePath: '/SoftPhoneNew/Phone', position: 1 },
      { routePath: '/conversations/agentConversations', position: 2 },
      { routePath: '/users/Users', position: 3 },
    ]);
    expect(menu).toEqual([
      { type: 'label', key: 'main' },
      { type: 'link', key: 'myConversations', path: '/conversations/agentConversations', icon: 'pi pi-inbox' },
      { type: 'link', key: 'softphone', path: '/SoftPhoneNew/Phone', icon: 'pi pi-mobile' },
    ]);
  });

  it('answers an empty menu for no permissions (the public web chat is a visitor page, not an entry)', () => {
    expect(buildMenu([])).toEqual([]);
  });

  it('lists each screen once: the desk and live supervision have one entry each', () => {
    const all = links(buildMenu(ALL_PERMISSIONS)).map((link) => link.path);
    expect(all.filter((path) => ['/dashboard/DashboardAgente', '/conversations/agentConversations', '/chat/agent'].includes(path))).toEqual(
      ['/conversations/agentConversations'],
    );
    expect(
      all.filter((path) =>
        [
          '/dashboard/superUser',
          '/conversations/conversations',
          '/livePersonConversations/ConversationList',
          '/livePersonConversations/LivePersonWindowChat',
        ].includes(path),
      ),
    ).toEqual(['/dashboard/superUser']);
  });

  it('keeps routes without a working screen out of the menu, still known as routes', () => {
    const all = links(buildMenu(ALL_PERMISSIONS)).map((link) => link.path);
    for (const path of Object.keys(OFF_MENU_ROUTES)) {
      expect(APP_ROUTES.some((route) => route.path === path)).toBe(true);
      expect(all).not.toContain(path);
    }
  });

  it('points every duplicate at a menu entry', () => {
    for (const entry of Object.values(OFF_MENU_ROUTES)) {
      if (entry.reason !== 'duplicate') continue;
      // Either a menu entry or a duplicate of one (the chain ends at an entry).
      let target = entry.sameAs;
      while (OFF_MENU_ROUTES[target]?.reason === 'duplicate') target = (OFF_MENU_ROUTES[target] as { sameAs: string }).sameAs;
      expect(isMenuRoute(APP_ROUTES.find((candidate) => candidate.path === target)!)).toBe(true);
    }
  });

  it('shows a duplicate when the screen it repeats needs a permission the caller lacks', () => {
    // Conversation supervision without dashboard supervision: the monitor keeps its own entry, once.
    const paths = links(buildMenu([PERMISSIONS.conversationsSupervise])).map((link) => link.path);
    expect(paths).toEqual(['/conversations/conversations']);
  });
});
