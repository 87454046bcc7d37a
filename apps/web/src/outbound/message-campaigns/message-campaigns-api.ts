import type {
  ChannelTemplateInput,
  ChannelTemplateView,
  EmailTemplateInput,
  HeaderMediaInput,
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
    /** Email templates (an email account's): usable once saved. */
    createEmailTemplate: (body: EmailTemplateInput) => client.post<ChannelTemplateView>('/api/message-templates', body),
    /** A phone list's other columns (email campaigns map them to the address and parameters). */
    listColumns: (listId: string) => client.get<string[]>(`/api/message-campaign-lists/${id(listId)}/columns`),
    submitTemplate: (templateId: string) => client.post<ChannelTemplateView>(`/api/message-templates/${id(templateId)}/submit`),
    testNumbers: (accountId: string) => client.get<string[]>('/api/message-templates/test-numbers', { query: { accountId } }),
    /** A media header's sample, sent raw with its own type; answers Meta's handle for header.handle. */
    uploadSample: (accountId: string, format: string, file: File) =>
      client.request<{ handle: string; fileName: string; mimeType: string; size: number }>('/api/message-templates/samples', {
        method: 'POST',
        query: { accountId, format, fileName: file.name },
        headers: { 'Content-Type': file.type || 'application/octet-stream' },
        rawBody: file,
      }),
    /** A campaign's media header, uploaded once to WhatsApp; answers the media id for headerMedia.id. */
    uploadHeaderMedia: (accountId: string, format: string, file: File) =>
      client.request<{ id: string; fileName: string; mimeType: string; size: number }>('/api/message-templates/header-media', {
        method: 'POST',
        query: { accountId, format, fileName: file.name },
        headers: { 'Content-Type': file.type || 'application/octet-stream' },
        rawBody: file,
      }),
    testSend: (templateId: string, body: TemplateTestSendInput) =>
      client.post<TemplateTestSendResult>(`/api/message-templates/${id(templateId)}/test-send`, body),
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

export interface TemplateTestSendInput {
  to: string;
  header?: string[];
  body?: string[];
  headerMedia?: HeaderMediaInput | null;
}

export interface TemplateTestSendResult {
  rendered: { header: string | null; body: string; footer: string | null; buttons: string[] };
  providerMessageId: string | null;
  error: { code: string; message: string } | null;
}

export type MessageCampaignsApi = ReturnType<typeof createMessageCampaignsApi>;
