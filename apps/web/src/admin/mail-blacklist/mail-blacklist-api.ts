import type {
  MailBlacklistEntry,
  MailBlacklistImportResult,
  MailBlacklistInput,
  MailBlacklistReason,
  Page,
  PagedQuery,
} from '@centralita/contracts';
import type { ApiClient, Query } from '../../api/http-client';

/** REST calls of the mail blacklist screen (/api/mail-blacklist). */
export function createMailBlacklistApi(client: ApiClient) {
  return {
    list: (query: PagedQuery & { reason?: MailBlacklistReason }) =>
      client.get<Page<MailBlacklistEntry>>('/api/mail-blacklist', { query: query as Query }),
    add: (body: MailBlacklistInput) => client.post<MailBlacklistEntry>('/api/mail-blacklist', body),
    remove: (id: string) => client.request<unknown>(`/api/mail-blacklist/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    importCsv: (file: File) =>
      client.request<MailBlacklistImportResult>('/api/mail-blacklist/import', {
        method: 'POST',
        headers: { 'Content-Type': file.type === 'text/plain' ? 'text/plain' : 'text/csv' },
        rawBody: file,
      }),
  };
}
