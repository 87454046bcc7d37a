import type {
  AgentView,
  DialerCampaignView,
  OutboundBoardView,
  OutboundCallView,
  OptionItem,
  Page,
  PagedQuery,
} from '@centralita/contracts';
import type { ApiClient, Query } from '../api/http-client';

export type CampaignAction = 'start' | 'pause' | 'resume' | 'cancel';
export type CampaignCommand = CampaignAction | 'schedule';
export type AgentCall = OutboundCallView & { campaignName: string };
export interface PreviewRecord {
  callId: string;
  contactId: string;
  campaignId: string;
  campaignName: string;
  phone: string;
  name: string | null;
  attempt: number;
  dialRequested: boolean;
}

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
    phoneLists: () => client.get<Page<{ id: string; name: string }>>('/api/phone-lists', { query: { pageSize: 200 } }),
    agents: () => client.get<Page<{ id: string; name: string; roleCode?: string }>>('/api/users', { query: { pageSize: 200 } }),
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
