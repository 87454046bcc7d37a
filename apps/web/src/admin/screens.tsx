import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { AppRoute } from '@centralita/contracts';

type Screen = LazyExoticComponent<ComponentType<{ route: AppRoute }>>;
const named = <M extends Record<string, ComponentType<{ route: AppRoute }>>>(load: () => Promise<M>, name: keyof M): Screen =>
  lazy(async () => ({ default: (await load())[name] }));

const campaigns = () => import('./screens/CampaignScreens');
const messages = () => import('./screens/PredefinedMessageScreens');
const users = () => import('./screens/UserScreens');
const roles = () => import('./screens/RoleScreens');
const lines = () => import('./screens/AttentionLineScreens');
const qna = () => import('./screens/QnaScreens');
const polls = () => import('./screens/PollScreens');
const phoneLists = () => import('./screens/PhoneListScreens');
const settings = () => import('./screens/SettingsScreens');
const clients = () => import('./screens/ClientScreens');
const ivrs = () => import('./screens/IvrScreens');
const trunks = () => import('./screens/TrunkScreens');
const channelAccounts = () => import('./channels/ChannelsAdminPage');
const mailBlacklist = () => import('./mail-blacklist/MailBlacklistPage');
const webChatEmbed = () => import('./webchat/WebChatEmbedPage');
const bot = () => import('./bot/BotPage');
const integrationKeys = () => import('./integration-keys/IntegrationKeysPage');

/** Administration screens by route path (spec §2); the rest keep their PlaceholderPage. Loaded on demand. */
export const ADMIN_SCREENS: Record<string, Screen> = {
  '/settings/integrationKeys': named(integrationKeys, 'IntegrationKeysPage'),
  '/campaings/campaings': named(campaigns, 'CampaignListPage'),
  '/campaings/submitCampaings': named(campaigns, 'CampaignFormPage'),
  '/predefinedMessages/PredefinedMessagesList': named(messages, 'PredefinedMessageListPage'),
  '/predefinedMessages/PredefinedMessagesSubmit': named(messages, 'PredefinedMessageFormPage'),
  '/users/Users': named(users, 'UserListPage'),
  '/users/add': named(users, 'UserFormPage'),
  '/users/edit': named(users, 'UserFormPage'),
  '/role/roleMain': named(roles, 'RoleListPage'),
  '/role/add': named(roles, 'RoleFormPage'),
  '/role/edit': named(roles, 'RoleFormPage'),
  '/attentionList/attentionList': named(lines, 'AttentionLineListPage'),
  '/attentionList/attentionEdit': named(lines, 'AttentionLineFormPage'),
  '/attentionList/webChat': named(webChatEmbed, 'WebChatEmbedPage'),
  '/qna/qna': named(qna, 'QnaPage'),
  '/qna/bot': named(bot, 'BotPage'),
  '/settings/polls': named(polls, 'PollListPage'),
  '/settings/editpoll': named(polls, 'PollFormPage'),
  '/settings/pollanswers': named(polls, 'PollAnswersPage'),
  '/settings/pollanswersbyquestion': named(polls, 'PollAnswersByQuestionPage'),
  '/list/PhoneListsExcel': named(phoneLists, 'PhoneListsPage'),
  '/list/SubmitList': named(phoneLists, 'SubmitListPage'),
  '/list/ListsExcel': named(phoneLists, 'ListEntriesPage'),
  '/platformSettings/platformSettings': named(settings, 'PlatformSettingsPage'),
  '/ChannelsAdmin/ChannelsAdmin': named(channelAccounts, 'ChannelsAdminPage'),
  '/settings/BlackListMail': named(mailBlacklist, 'MailBlacklistPage'),
  '/clients/ClientList': named(clients, 'ClientListPage'),
  '/clients/Add': named(clients, 'ClientFormPage'),
  '/clients/Update': named(clients, 'ClientFormPage'),
  '/reseller/resellerSubmit': named(clients, 'ResellerPage'),
  '/settings/ivrMain': named(ivrs, 'IvrListPage'),
  '/settings/submitivr': named(ivrs, 'IvrFormPage'),
  '/settings/ivrs': named(ivrs, 'IvrTreePage'),
  '/settings/troncals': named(trunks, 'TrunkPage'),
};
