import type {
  AgentView,
  CallbackDueFilter,
  CallbackStatus,
  DialerCampaignView,
  DoNotCallEntry,
  OutboundCallback,
  OutboundFormOptions,
  OutboundBoardView,
  OutboundCallView,
  OptionItem,
  Page,
  PagedQuery,
  PreviewRecord,
} from '@centralita/contracts';
import type { ApiClient, Query } from '../api/http-client';

export type CampaignAction = 'start' | 'pause' | 'resume' | 'cancel';
export type CampaignCommand = CampaignAction | 'schedule';
export type AgentCall = OutboundCallView & { campaignName: string };
export type { PreviewRecord };

export interface DncQuery extends PagedQuery {
  campaignId?: string;
  scope?: 'tenant' | 'campaign';
}
export interface CallbackQuery {
  campaignId?: string;
  mine?: boolean;
  status?: CallbackStatus;
  due?: CallbackDueFilter;
}

/** A pending callback whose time has come (the dialer takes it on its next pass). */
export const isOverdue = (callback: OutboundCallback, now = Date.now()) =>
  callback.status === 'pending' && Date.parse(callback.dueAt) <= now;

/** REST calls of the outbound area (/api/outbound/*). */
export function createOutboundApi(client: ApiClient) {
  const id = (value: string) => encodeURIComponent(value);
  return {
    campaigns: (query: PagedQuery) => client.get<Page<DialerCampaignView>>('/api/outbound/campaigns', { query: query as Query }),
    act: (campaignId: string, action: CampaignCommand, reason?: string) =>
      client.post<DialerCampaignView>(`/api/outbound/campaigns/${id(campaignId)}/${action}`, reason ? { reason } : {}),
    board: (campaignId: string) => client.get<OutboundBoardView>(`/api/outbound/campaigns/${id(campaignId)}/board`),
    results: (campaignId: string, query: PagedQuery) =>
      client.get<Page<OutboundCallView>>(`/api/outbound/campaigns/${id(campaignId)}/results`, { query: query as Query }),
    exportResults: (campaignId: string) => client.download(`/api/outbound/campaigns/${id(campaignId)}/results.csv`),
    agents: () => client.get<Page<{ id: string; name: string; roleCode?: string }>>('/api/users', { query: { pageSize: 200 } }),
    formOptions: () => client.get<OutboundFormOptions>('/api/outbound/form-options'),
    dnc: (query: DncQuery) => client.get<Page<DoNotCallEntry>>('/api/outbound/dnc', { query: query as Query }),
    addDnc: (body: { phone: string; campaignId: string | null; reason: string | null }) =>
      client.post<DoNotCallEntry>('/api/outbound/dnc', body),
    removeDnc: (entryId: string) => client.request<null>(`/api/outbound/dnc/${id(entryId)}`, { method: 'DELETE' }),
    callbacks: (query: CallbackQuery) => client.get<OutboundCallback[]>('/api/outbound/callbacks', { query: query as Query }),
    cancelCallback: (callbackId: string) => client.request<null>(`/api/outbound/callbacks/${id(callbackId)}`, { method: 'DELETE' }),
    waiting: () => client.post<AgentView>('/api/outbound/agent/waiting'),
    previewNext: () => client.post<PreviewRecord>('/api/outbound/agent/preview'),
    previewDial: (callId: string) => client.post<PreviewRecord>(`/api/outbound/agent/preview/${id(callId)}/dial`),
    previewSkip: (callId: string) => client.post<null>(`/api/outbound/agent/preview/${id(callId)}/skip`),
    currentCall: () => client.get<AgentCall | null>('/api/outbound/agent/call'),
    hangUp: (callId: string) => client.post<OutboundCallView>(`/api/outbound/calls/${id(callId)}/hangup`),
    disposition: (callId: string, disposition: string, callbackAt?: string) =>
      client.post<OutboundCallView>(`/api/outbound/calls/${id(callId)}/disposition`, {
        disposition,
        ...(callbackAt ? { callbackAt } : {}),
      }),
  };
}

export type OutboundApi = ReturnType<typeof createOutboundApi>;
export type { OptionItem };
