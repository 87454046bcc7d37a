import type {
  OutboundFormOptions,
  OutboundTemplateInput,
  OutboundTemplateView,
  Page,
  PhoneListEntry,
  TemplateTestInput,
  TemplateTestResult,
} from '@centralita/contracts';
import type { ApiClient } from '../../api/http-client';

export const TEMPLATES_RESOURCE = 'outbound/templates';
export const TEMPLATE_LIST_PATH = '/OutboundCampaign/CreateTemplates';
export const TEMPLATE_FORM_PATH = '/OutboundCampaign/SubmitTemplates';

/** REST calls of the outbound templates (/api/outbound/templates) and the test panel's contact pickers. */
export function createTemplatesApi(client: ApiClient) {
  const id = (value: string) => encodeURIComponent(value);
  return {
    get: (templateId: string) => client.get<OutboundTemplateView>(`/api/${TEMPLATES_RESOURCE}/${id(templateId)}`),
    create: (body: OutboundTemplateInput) => client.post<OutboundTemplateView>(`/api/${TEMPLATES_RESOURCE}`, body),
    update: (templateId: string, body: OutboundTemplateInput) =>
      client.request<OutboundTemplateView>(`/api/${TEMPLATES_RESOURCE}/${id(templateId)}`, { method: 'PUT', body }),
    test: (templateId: string, body: TemplateTestInput) =>
      client.post<TemplateTestResult>(`/api/${TEMPLATES_RESOURCE}/${id(templateId)}/test`, body),
    /** The campaign form's template picker. */
    options: () => client.get<Page<OutboundTemplateView>>(`/api/${TEMPLATES_RESOURCE}`, { query: { pageSize: 200, sortField: 'name' } }),
    // The outbound form options, readable with outbound.manage alone (unlike /api/phone-lists).
    phoneLists: () => client.get<OutboundFormOptions>('/api/outbound/form-options').then((options) => options.phoneLists),
    entries: (listId: string) => client.get<Page<PhoneListEntry>>(`/api/phone-lists/${id(listId)}/entries`, { query: { pageSize: 100 } }),
  };
}

export type TemplatesApi = ReturnType<typeof createTemplatesApi>;
