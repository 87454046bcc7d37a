import { PERMISSIONS, type Permission } from './roles';

/**
 * Every protected route of spec §2, with the permission needed to open it, the i18n key of its
 * title (`routes.<titleKey>`) and the capability (`capabilities.<capability>`) that lives there.
 * The console builds its router from this list and the server builds menus from it, so the two
 * can never disagree. Paths are contracts: keep them exactly as the spec writes them.
 */
export interface AppRoute {
  path: string;
  titleKey: string;
  permission: Permission | null;
  capability: 'foundation' | 'realtime' | 'desk' | 'admin' | 'dashboards' | 'outbound' | 'crm' | 'video' | 'demo';
  icon?: string;
}

const P = PERMISSIONS;
export const APP_ROUTES: AppRoute[] = [
  // Dashboards
  { path: '/dashboard/default', titleKey: 'dashboard', permission: P.dashboardView, capability: 'dashboards', icon: 'pi pi-home' },
  {
    path: '/dashboard/generaldashboard',
    titleKey: 'generalDashboard',
    permission: P.dashboardSupervise,
    capability: 'dashboards',
    icon: 'pi pi-chart-bar',
  },
  {
    path: '/dashboard/agente',
    titleKey: 'agentsDashboard',
    permission: P.dashboardSupervise,
    capability: 'dashboards',
    icon: 'pi pi-users',
  },
  {
    path: '/dashboard/superUser',
    titleKey: 'supervisorDashboard',
    permission: P.dashboardSupervise,
    capability: 'dashboards',
    icon: 'pi pi-eye',
  },
  {
    path: '/dashboard/DashboardAgente',
    titleKey: 'agentDashboard',
    permission: P.conversationsHandle,
    capability: 'desk',
    icon: 'pi pi-user',
  },
  {
    path: '/dashboard/shared/AgentPauseDetail',
    titleKey: 'agentPauseDetail',
    permission: P.dashboardSupervise,
    capability: 'dashboards',
    icon: 'pi pi-pause',
  },
  {
    path: '/dashboard/DashboardSettings',
    titleKey: 'dashboardSettings',
    permission: P.settingsManage,
    capability: 'dashboards',
    icon: 'pi pi-sliders-h',
  },
  {
    path: '/dashboard/DashboardFeelings',
    titleKey: 'feelingsDashboard',
    permission: P.dashboardSupervise,
    capability: 'dashboards',
    icon: 'pi pi-heart',
  },
  {
    path: '/dashboard/DashboardGeneralStatusQueue',
    titleKey: 'queueStatus',
    permission: P.dashboardSupervise,
    capability: 'dashboards',
    icon: 'pi pi-list',
  },
  {
    path: '/dashboard/DashboardGeneralServiceAgents',
    titleKey: 'serviceAgents',
    permission: P.dashboardSupervise,
    capability: 'dashboards',
    icon: 'pi pi-id-card',
  },
  {
    path: '/dashboard/DashboardSettingServiceAgents',
    titleKey: 'serviceAgentsSettings',
    permission: P.settingsManage,
    capability: 'dashboards',
    icon: 'pi pi-cog',
  },
  {
    path: '/dashboard/defaultold',
    titleKey: 'dashboardClassic',
    permission: P.dashboardView,
    capability: 'dashboards',
    icon: 'pi pi-home',
  },
  // Conversations
  {
    path: '/conversations/conversations',
    titleKey: 'conversations',
    permission: P.conversationsSupervise,
    capability: 'desk',
    icon: 'pi pi-comments',
  },
  {
    path: '/conversations/agentConversations',
    titleKey: 'myConversations',
    permission: P.conversationsHandle,
    capability: 'desk',
    icon: 'pi pi-inbox',
  },
  {
    path: '/livePersonConversations/ConversationList',
    titleKey: 'liveConversations',
    permission: P.conversationsSupervise,
    capability: 'desk',
    icon: 'pi pi-video',
  },
  {
    path: '/livePersonConversations/LivePersonWindowChat',
    titleKey: 'liveConversationWindow',
    permission: P.conversationsSupervise,
    capability: 'desk',
    icon: 'pi pi-window-maximize',
  },
  { path: '/WindowChat/windowChat/', titleKey: 'webChat', permission: null, capability: 'desk', icon: 'pi pi-comment' },
  { path: '/chat/agent', titleKey: 'agentChat', permission: P.conversationsHandle, capability: 'desk', icon: 'pi pi-send' },
  // Settings
  { path: '/settings/polls', titleKey: 'polls', permission: P.pollsManage, capability: 'admin', icon: 'pi pi-check-square' },
  { path: '/settings/editpoll', titleKey: 'editPoll', permission: P.pollsManage, capability: 'admin' },
  { path: '/settings/pollanswers', titleKey: 'pollAnswers', permission: P.pollsManage, capability: 'admin' },
  { path: '/settings/pollanswersbyquestion', titleKey: 'pollAnswersByQuestion', permission: P.pollsManage, capability: 'admin' },
  { path: '/settings/troncals', titleKey: 'trunks', permission: P.ivrsManage, capability: 'admin', icon: 'pi pi-sitemap' },
  { path: '/settings/ivrMain', titleKey: 'ivrs', permission: P.ivrsManage, capability: 'admin', icon: 'pi pi-phone' },
  { path: '/settings/ivrs', titleKey: 'ivrTrees', permission: P.ivrsManage, capability: 'admin' },
  { path: '/settings/submitivr', titleKey: 'submitIvr', permission: P.ivrsManage, capability: 'admin' },
  // Single screens
  { path: '/reports/reports', titleKey: 'reports', permission: P.reportsView, capability: 'dashboards', icon: 'pi pi-file' },
  { path: '/qna/qna', titleKey: 'qna', permission: P.qnaManage, capability: 'admin', icon: 'pi pi-question-circle' },
  // Issue 23: the bot in front of a line's queue (settings per line, test panel, unanswered questions).
  { path: '/qna/bot', titleKey: 'bot', permission: P.attentionLinesManage, capability: 'admin', icon: 'pi pi-android' },
  {
    path: '/platformSettings/platformSettings',
    titleKey: 'configurations',
    permission: P.settingsManage,
    capability: 'admin',
    icon: 'pi pi-cog',
  },
  {
    path: '/ChannelsAdmin/ChannelsAdmin',
    titleKey: 'channels',
    permission: P.settingsManage,
    capability: 'admin',
    icon: 'pi pi-share-alt',
  },
  // The spec's BlackListMail (issue 20 item 5): a screen of its own, with the channel settings' permission.
  { path: '/settings/BlackListMail', titleKey: 'mailBlacklist', permission: P.settingsManage, capability: 'admin', icon: 'pi pi-ban' },
  // Issue 22 item 5: keys an external dialer uses to ask for agents' sign-in links (ExternLoginVicidial).
  { path: '/settings/integrationKeys', titleKey: 'integrationKeys', permission: P.usersManage, capability: 'admin', icon: 'pi pi-key' },
  { path: '/emails/SendEmail', titleKey: 'sendEmail', permission: P.emailsSend, capability: 'crm', icon: 'pi pi-envelope' },
  // Campaigns
  { path: '/campaings/campaings', titleKey: 'campaigns', permission: P.campaignsManage, capability: 'admin', icon: 'pi pi-megaphone' },
  { path: '/campaings/submitCampaings', titleKey: 'submitCampaign', permission: P.campaignsManage, capability: 'admin' },
  // Users, clients, roles
  { path: '/users/Users', titleKey: 'users', permission: P.usersManage, capability: 'admin', icon: 'pi pi-user' },
  { path: '/users/edit', titleKey: 'editUser', permission: P.usersManage, capability: 'admin' },
  { path: '/users/add', titleKey: 'addUser', permission: P.usersManage, capability: 'admin' },
  { path: '/clients/ClientList', titleKey: 'customers', permission: P.clientsManage, capability: 'admin', icon: 'pi pi-building' },
  { path: '/clients/Update', titleKey: 'updateCustomer', permission: P.clientsManage, capability: 'admin' },
  { path: '/clients/Add', titleKey: 'addCustomer', permission: P.tenantsManage, capability: 'admin' },
  { path: '/role/roleMain', titleKey: 'roles', permission: P.rolesManage, capability: 'admin', icon: 'pi pi-lock' },
  { path: '/role/edit', titleKey: 'editRole', permission: P.rolesManage, capability: 'admin' },
  { path: '/role/add', titleKey: 'addRole', permission: P.rolesManage, capability: 'admin' },
  // Attention lines
  {
    path: '/attentionList/attentionList',
    titleKey: 'serviceLines',
    permission: P.attentionLinesManage,
    capability: 'admin',
    icon: 'pi pi-directions',
  },
  { path: '/attentionList/attentionEdit', titleKey: 'editServiceLine', permission: P.attentionLinesManage, capability: 'admin' },
  // Not in spec §2: the administrator's web-chat page per line (embed snippet, direct link, preview), issue 24 item 7.
  {
    path: '/attentionList/webChat',
    titleKey: 'webChatEmbed',
    permission: P.attentionLinesManage,
    capability: 'admin',
    icon: 'pi pi-code',
  },
  // Cases
  { path: '/crm/crmlist', titleKey: 'cases', permission: P.crmUse, capability: 'crm', icon: 'pi pi-briefcase' },
  // Lists
  { path: '/list/PhoneListsExcel', titleKey: 'phoneLists', permission: P.listsManage, capability: 'admin', icon: 'pi pi-table' },
  { path: '/list/SubmitList', titleKey: 'submitList', permission: P.listsManage, capability: 'admin' },
  { path: '/list/ListsExcel', titleKey: 'outboundCallLists', permission: P.listsManage, capability: 'admin' },
  // Predefined messages
  {
    path: '/predefinedMessages/PredefinedMessagesList',
    titleKey: 'responseTemplates',
    permission: P.predefinedMessagesManage,
    capability: 'admin',
    icon: 'pi pi-bookmark',
  },
  {
    path: '/predefinedMessages/PredefinedMessagesSubmit',
    titleKey: 'submitResponseTemplate',
    permission: P.predefinedMessagesManage,
    capability: 'admin',
  },
  // Outbound
  {
    path: '/OutboundCampaign/CreateTemplates',
    titleKey: 'outboundTemplates',
    permission: P.outboundManage,
    capability: 'outbound',
    icon: 'pi pi-copy',
  },
  { path: '/OutboundCampaign/SubmitTemplates', titleKey: 'submitOutboundTemplate', permission: P.outboundManage, capability: 'outbound' },
  {
    path: '/OutboundCampaign/CampaignList',
    titleKey: 'outboundCampaigns',
    permission: P.outboundManage,
    capability: 'outbound',
    icon: 'pi pi-phone',
  },
  {
    path: '/OutboundCampaign/SubmitOutboundCampaing',
    titleKey: 'submitOutboundCampaign',
    permission: P.outboundManage,
    capability: 'outbound',
  },
  { path: '/reseller/resellerSubmit', titleKey: 'brands', permission: P.resellersManage, capability: 'admin', icon: 'pi pi-tags' },
  { path: '/SoftPhoneNew/Phone', titleKey: 'softphone', permission: P.softphoneUse, capability: 'outbound', icon: 'pi pi-mobile' },
  // Template demo pages (spec §1: scaffolding, not product behaviour)
  { path: '/charts/echarts', titleKey: 'demoCharts', permission: P.dashboardView, capability: 'demo' },
];

/** Public routes of spec §2 (no session needed). */
export const PUBLIC_ROUTES = [
  '/session/signup',
  '/session/activate/:token',
  '/session/signin',
  '/session/forgot-password',
  '/session/resetPassword/:token',
  '/session/invitation/:token',
  '/session/404',
  '/session/vicidial/:id',
  '/session/vicidial/:id/:callback',
  '/session/Unsubscribe/:email',
  '/VideoChatContainer/:videoChatId',
] as const;

/** Root redirect by role (spec §2). */
export function homePathForRole(role: string): string {
  if (role === 'SUPER') return '/dashboard/superUser';
  // Reseller staff and the platform operator administer tenants: they have no dashboards.
  if (role === 'RESELLER_ADMIN' || role === 'PLATFORM_ADMIN') return '/clients/ClientList';
  if (role === 'AGENT') return '/dashboard/DashboardAgente';
  return '/dashboard/default';
}
