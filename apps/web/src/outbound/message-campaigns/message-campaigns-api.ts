import type {
  ChannelTemplateInput,
  ChannelTemplateView,
  MessageCampaignInput,
  MessageCampaignView,
  OutboundFormOptions,
} from '@centralita/contracts';
import type { ApiClient } from '../../api/http-client';

export interface TemplateAccount {
  id: string;
  name: string;
  kind: string;
}

/** REST calls of message templates (/api/message-templates) and message campaigns (/api/message-campaigns), issue 21. */
export function createMessageCampaignsApi(client: ApiClient) {
  const id = (value: string) => encodeURIComponent(value);
  return {
    accounts: () => client.get<TemplateAccount[]>('/api/message-templates/accounts'),
    templates: (accountId?: string) =>
      client.get<ChannelTemplateView[]>('/api/message-templates', { query: accountId ? { accountId } : {} }),
    createTemplate: (body: ChannelTemplateInput) => client.post<ChannelTemplateView>('/api/message-templates', body),
    submitTemplate: (templateId: string) => client.post<ChannelTemplateView>(`/api/message-templates/${id(templateId)}/submit`),
    sync: (accountId: string) => client.post<ChannelTemplateView[]>('/api/message-templates/sync', { accountId }),
    campaigns: () => client.get<MessageCampaignView[]>('/api/message-campaigns'),
    campaign: (campaignId: string) => client.get<MessageCampaignView>(`/api/message-campaigns/${id(campaignId)}`),
    createCampaign: (body: MessageCampaignInput) => client.post<MessageCampaignView>('/api/message-campaigns', body),
    command: (campaignId: string, action: 'start' | 'pause' | 'stop') =>
      client.post<MessageCampaignView>(`/api/message-campaigns/${id(campaignId)}/${action}`),
    exportResults: (campaignId: string) => client.download(`/api/message-campaigns/${id(campaignId)}/results.csv`),
    phoneLists: () => client.get<OutboundFormOptions>('/api/outbound/form-options').then((options) => options.phoneLists),
  };
}

export type MessageCampaignsApi = ReturnType<typeof createMessageCampaignsApi>;
