import type {
  ChannelAccountInput,
  ChannelAccountUpdate,
  ChannelAccountView,
  ChannelKindView,
  OptionItem,
  Page,
} from '@centralita/contracts';
import type { ApiClient } from '../../api/http-client';

/** POST /api/channel-accounts/:id/test: the provider's answer (ok: the account's name there; not ok: its reason). */
export interface ConnectionCheck {
  ok: boolean;
  name?: string | null;
  message?: string | null;
}

/** REST calls of the channel accounts screen (/api/channel-kinds, /api/channel-accounts). */
export function createChannelsApi(client: ApiClient) {
  const path = (id: string) => `/api/channel-accounts/${encodeURIComponent(id)}`;
  return {
    kinds: () => client.get<ChannelKindView[]>('/api/channel-kinds'),
    // A tenant has a handful of accounts: one list, whether the API answers it bare or as a page.
    accounts: async () => {
      const answer = await client.get<ChannelAccountView[] | Page<ChannelAccountView>>('/api/channel-accounts');
      return Array.isArray(answer) ? answer : answer.items;
    },
    create: (body: ChannelAccountInput) => client.post<ChannelAccountView>('/api/channel-accounts', body),
    update: (id: string, body: ChannelAccountUpdate) => client.request<ChannelAccountView>(path(id), { method: 'PUT', body }),
    remove: (id: string) => client.request<unknown>(path(id), { method: 'DELETE' }),
    test: (id: string) => client.post<ConnectionCheck>(`${path(id)}/test`, {}),
    /** Tells the provider the account's webhook URL (kinds with registersWebhook). */
    registerWebhook: (id: string) => client.post<ConnectionCheck>(`${path(id)}/register-webhook`, {}),
    lines: () => client.get<OptionItem[]>('/api/attention-lines/options'),
  };
}

export type ChannelsApi = ReturnType<typeof createChannelsApi>;
