/** One entry of the side navigation the server sends per role (spec §2 "Layout"). */
export type MenuItem =
  | { type: 'label'; key: string }
  | { type: 'group'; key: string; icon?: string; children: MenuItem[] }
  | { type: 'link'; key: string; path: string; icon?: string; badge?: { value: string; severity?: string } }
  | { type: 'extLink'; key: string; url: string; icon?: string };

/**
 * How the server arranges APP_ROUTES into the side navigation. Routes with an icon are menu
 * entries (the others are sub-screens such as edit/add). Each section becomes a 'label' item,
 * each group a 'group' item (a group with one visible child collapses into that link).
 * i18n: labels and groups translate as `menu.<key>`, links as `routes.<key>` (the route titleKey).
 */
export interface MenuSection {
  key: string;
  groups: { key: string; icon: string; prefixes: string[] }[];
}
export const MENU_SECTIONS: MenuSection[] = [
  {
    key: 'main',
    groups: [
      { key: 'dashboards', icon: 'pi pi-chart-line', prefixes: ['/dashboard/', '/charts/'] },
      {
        key: 'conversations',
        icon: 'pi pi-comments',
        prefixes: ['/conversations/', '/livePersonConversations/', '/WindowChat/', '/chat/'],
      },
      { key: 'crm', icon: 'pi pi-briefcase', prefixes: ['/crm/', '/emails/', '/SoftPhoneNew/'] },
      { key: 'reports', icon: 'pi pi-file', prefixes: ['/reports/'] },
    ],
  },
  {
    key: 'administration',
    groups: [
      { key: 'users', icon: 'pi pi-building', prefixes: ['/users/', '/role/', '/clients/', '/reseller/'] },
      { key: 'campaigns', icon: 'pi pi-directions', prefixes: ['/attentionList/', '/campaings/', '/predefinedMessages/', '/qna/'] },
      { key: 'settings', icon: 'pi pi-cog', prefixes: ['/platformSettings/', '/ChannelsAdmin/', '/settings/'] },
    ],
  },
  {
    key: 'outbound',
    groups: [{ key: 'outbound', icon: 'pi pi-phone', prefixes: ['/OutboundCampaign/', '/list/'] }],
  },
];

/**
 * Routes that stay reachable by URL (links, bookmarks, the spec's paths, role home pages) but are
 * not menu entries, with why:
 * - `duplicate`: another entry opens the same screen (named here), so the menu shows it once;
 * - `notBuilt`: the screen is still the capability placeholder, so an entry would lead nowhere;
 * - `public`: a visitor's page (the web-chat widget), not a staff screen.
 * Give a route its screen, then take it off this list.
 */
export const OFF_MENU_ROUTES: Record<string, { reason: 'duplicate'; sameAs: string } | { reason: 'notBuilt' | 'public' }> = {
  // The agent desk: one entry, "My conversations".
  '/dashboard/DashboardAgente': { reason: 'duplicate', sameAs: '/conversations/agentConversations' },
  '/chat/agent': { reason: 'duplicate', sameAs: '/conversations/agentConversations' },
  // Live supervision: one entry, the supervisor dashboard.
  '/conversations/conversations': { reason: 'duplicate', sameAs: '/dashboard/superUser' },
  // The monitor's own entry for a role that supervises conversations without dashboards.
  '/livePersonConversations/ConversationList': { reason: 'duplicate', sameAs: '/conversations/conversations' },
  '/livePersonConversations/LivePersonWindowChat': { reason: 'duplicate', sameAs: '/conversations/conversations' },
  // Administrators reach it per line from '/attentionList/webChat' (snippet, link and preview).
  '/WindowChat/windowChat/': { reason: 'public' },
};
