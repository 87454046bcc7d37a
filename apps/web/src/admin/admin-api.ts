import type {
  AdminUserDetail,
  AnswerGroupSummary,
  AuditEntry,
  ChannelConfigInput,
  ChannelConfigView,
  CreateResellerRequest,
  FirstAdminInvite,
  FirstAdminState,
  InvitationSummary,
  PlatformSettings,
  OptionItem,
  Page,
  PagedQuery,
  PhoneImportState,
  PhoneListEntry,
  PollAnswer,
  PollQuestionStats,
  ResellerSummary,
  UserFormOptions,
} from '@centralita/contracts';
import type { ApiClient, Query } from '../api/http-client';

/** Whose first administrator: a customer tenant or a reseller. */
export interface FirstAdminOwner {
  kind: 'clients' | 'resellers';
  id: string;
}
const ownerPath = (owner: FirstAdminOwner) => `/api/${owner.kind}/${encodeURIComponent(owner.id)}`;

/** The REST shape every admin area shares: /api/<resource>[/:id]. */
export function createAdminApi(client: ApiClient) {
  return {
    list: <T>(resource: string, query: PagedQuery) => client.get<Page<T>>(`/api/${resource}`, { query: query as Query }),
    get: <T>(resource: string, id: string) => client.get<T>(`/api/${resource}/${encodeURIComponent(id)}`),
    create: <T>(resource: string, body: unknown) => client.post<T>(`/api/${resource}`, body),
    update: <T>(resource: string, id: string, body: unknown) =>
      client.request<T>(`/api/${resource}/${encodeURIComponent(id)}`, { method: 'PUT', body }),
    remove: (resource: string, id: string) => client.request<unknown>(`/api/${resource}/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    audit: (entityType: string, entityId: string) =>
      client.get<Page<AuditEntry>>('/api/audit', { query: { entityType, entityId, pageSize: 50 } }),
    userDetail: (id: string) => client.get<AdminUserDetail>(`/api/users/${encodeURIComponent(id)}/detail`),
    roleMenuEntries: (id: string) => client.get<string[]>(`/api/roles/${encodeURIComponent(id)}/menu-entries`),
    pollAnswers: (pollId: string, query: PagedQuery & { questionId?: string }) =>
      client.get<Page<PollAnswer>>(`/api/polls/${encodeURIComponent(pollId)}/answers`, { query: query as Query }),
    pollQuestionStats: (pollId: string, questionId: string) =>
      client.get<PollQuestionStats>(`/api/polls/${encodeURIComponent(pollId)}/questions/${encodeURIComponent(questionId)}/stats`),
    answerGroups: () => client.get<Page<AnswerGroupSummary>>('/api/poll-answer-groups', { query: { pageSize: 200 } }),
    uploadPhoneList: (file: File, meta: { name: string; defaultCountry: string }) =>
      client.request<PhoneImportState>('/api/phone-lists/imports', {
        method: 'POST',
        query: { name: meta.name, fileName: file.name, defaultCountry: meta.defaultCountry || undefined },
        headers: { 'Content-Type': 'application/octet-stream' },
        rawBody: file,
      }),
    phoneImport: (id: string) => client.get<PhoneImportState>(`/api/phone-lists/imports/${encodeURIComponent(id)}`),
    phoneImportErrors: (id: string) => client.download(`/api/phone-lists/imports/${encodeURIComponent(id)}/errors.csv`),
    phoneListEntries: (id: string, query: PagedQuery) =>
      client.get<Page<PhoneListEntry>>(`/api/phone-lists/${encodeURIComponent(id)}/entries`, { query: query as Query }),
    platformSettings: () => client.get<PlatformSettings>('/api/platform-settings'),
    savePlatformSettings: (body: PlatformSettings) => client.request<PlatformSettings>('/api/platform-settings', { method: 'PUT', body }),
    channels: () => client.get<ChannelConfigView[]>('/api/channels-config'),
    saveChannel: (channel: string, body: ChannelConfigInput) =>
      client.request<ChannelConfigView>(`/api/channels-config/${encodeURIComponent(channel)}`, { method: 'PUT', body }),
    reseller: () => client.get<ResellerSummary>('/api/resellers/current'),
    saveReseller: (name: string) => client.request<ResellerSummary>('/api/resellers/current', { method: 'PUT', body: { name } }),
    resellers: (query: PagedQuery) => client.get<Page<ResellerSummary>>('/api/resellers', { query: query as Query }),
    createReseller: (body: CreateResellerRequest) => client.post<ResellerSummary>('/api/resellers', body),
    /** The platform operator renames any reseller (reseller staff use saveReseller for their own). */
    renameReseller: (id: string, name: string) =>
      client.request<ResellerSummary>(`/api/resellers/${encodeURIComponent(id)}`, { method: 'PUT', body: { name } }),
    invitations: () => client.get<InvitationSummary[]>('/api/invitations'),
    resendInvitation: (id: string) => client.post<InvitationSummary>(`/api/invitations/${encodeURIComponent(id)}/resend`, {}),
    revokeInvitation: (id: string) => client.request<unknown>(`/api/invitations/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    /** The first administrator of a tenant (reseller staff, the platform) or of a reseller (the platform). */
    firstAdmin: (owner: FirstAdminOwner) => client.get<FirstAdminState>(`${ownerPath(owner)}/invitations`),
    inviteFirstAdmin: (owner: FirstAdminOwner, body: FirstAdminInvite) =>
      client.post<InvitationSummary>(`${ownerPath(owner)}/invitations`, body),
    resendFirstAdmin: (owner: FirstAdminOwner, id: string) =>
      client.post<InvitationSummary>(`${ownerPath(owner)}/invitations/${encodeURIComponent(id)}/resend`, {}),
    revokeFirstAdmin: (owner: FirstAdminOwner, id: string) =>
      client.request<unknown>(`${ownerPath(owner)}/invitations/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    attentionLineOptions: () => client.get<OptionItem[]>('/api/attention-lines/options'),
    pollOptions: () => client.get<OptionItem[]>('/api/polls/options'),
    campaignOptions: () => client.get<OptionItem[]>('/api/campaigns/options'),
    userFormOptions: () => client.get<UserFormOptions>('/api/users/form-options'),
  };
}

export type AdminApi = ReturnType<typeof createAdminApi>;
