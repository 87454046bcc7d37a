import type {
  AgentView,
  CallDispositionInput,
  CallerLookup,
  CallRecordView,
  SoftphoneAccountInput,
  SoftphoneAccountView,
  SoftphoneConfig,
  SoftphoneSettings,
} from '@centralita/contracts';
import type { ApiClient } from '../api/http-client';

/** Calls of the softphone module (apps/api src/modules/softphone). */
export function createSoftphoneApi(client: ApiClient) {
  const id = encodeURIComponent;
  return {
    settings: () => client.get<SoftphoneSettings>('/api/softphone/settings'),
    lookup: (number: string) => client.get<CallerLookup>('/api/softphone/lookup', { query: { number } }),
    saveDisposition: (input: CallDispositionInput) => client.post<CallRecordView>('/api/softphone/calls', input),
    callStarted: () => client.post<AgentView>('/api/softphone/presence/call-started', {}),
    callEnded: () => client.post<AgentView>('/api/softphone/presence/call-ended', {}),
    config: () => client.get<SoftphoneConfig>('/api/softphone/config'),
    saveConfig: (input: Omit<SoftphoneConfig, 'updatedAt'>) =>
      client.request<SoftphoneConfig>('/api/softphone/config', { method: 'PUT', body: input }),
    account: (userId: string) => client.get<SoftphoneAccountView>(`/api/softphone/accounts/${id(userId)}`),
    saveAccount: (userId: string, input: SoftphoneAccountInput) =>
      client.request<SoftphoneAccountView>(`/api/softphone/accounts/${id(userId)}`, { method: 'PUT', body: input }),
  };
}

export type SoftphoneApi = ReturnType<typeof createSoftphoneApi>;
