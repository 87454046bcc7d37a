import type {
  ConversationDetail,
  ReportExportFormat,
  ReportExportState,
  ReportOptions,
  ReportPage,
  ReportType,
  VoiceRecordingView,
} from '@centralita/contracts';
import type { ApiClient, Query } from '../api/http-client';

/** The reports calls of the console (GET /api/reports/...). */
export function createReportsApi(client: ApiClient) {
  return {
    options: () => client.get<ReportOptions>('/api/reports/options'),
    page: (type: ReportType, query: Query) => client.get<ReportPage>(`/api/reports/${type}`, { query }),
    startExport: (type: ReportType, body: Query & { format: ReportExportFormat }) =>
      client.post<ReportExportState>(`/api/reports/${type}/exports`, body),
    exportState: (id: string) => client.get<ReportExportState>(`/api/reports/exports/${id}`),
    download: (id: string) => client.download(`/api/reports/exports/${id}/download`),
    detail: (id: string) => client.get<ConversationDetail>(`/api/reports/conversations/${id}/detail`),
    detailDownload: (id: string) => client.download(`/api/reports/conversations/${id}/detail/download?format=txt`),
    /** A phone conversation's call recordings (signed URLs to play and download). */
    recordings: (id: string) => client.get<VoiceRecordingView[]>(`/api/voice/conversations/${id}/recordings`),
  };
}

export type ReportsApi = ReturnType<typeof createReportsApi>;
