import type { InboundNumber, InboundNumberInput, IvrDestinationOptions, IvrDetail, IvrTree, VoiceSettings } from '@centralita/contracts';
import type { ApiClient } from '../../api/http-client';

/**
 * One file as multipart/form-data (field "file"), built by hand with a lower-case boundary: a
 * Blob's type is lower-cased by the browser, which would break a FormData's mixed-case boundary.
 */
export function audioUploadBody(file: File, boundary = `----centralita-${crypto.randomUUID()}`): Blob {
  const ascii = file.name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return new Blob(
    [
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${ascii}"\r\n` +
        `Content-Type: ${file.type || 'application/octet-stream'}\r\n\r\n`,
      file,
      `\r\n--${boundary}--\r\n`,
    ],
    { type: `multipart/form-data; boundary=${boundary}` },
  );
}

/** The IVR and trunk calls beyond the shared admin CRUD (/api/ivrs/:id/tree, apply, copy, pickers, prompts, inbound numbers). */
export function createTelephonyApi(client: ApiClient) {
  const path = (id: string) => `/api/ivrs/${encodeURIComponent(id)}`;
  const numbers = (trunkId: string) => `/api/trunks/${encodeURIComponent(trunkId)}/numbers`;
  return {
    ivr: (id: string) => client.get<IvrDetail>(path(id)),
    saveTree: (id: string, tree: IvrTree) => client.request<IvrDetail>(`${path(id)}/tree`, { method: 'PUT', body: { tree } }),
    apply: (id: string) => client.post<IvrDetail>(`${path(id)}/apply`, {}),
    copy: (id: string, name: string) => client.post<IvrDetail>(`${path(id)}/copy`, { name }),
    destinationOptions: () => client.get<IvrDestinationOptions>('/api/ivrs/destination-options'),
    uploadPrompt: (id: string, file: File) => {
      const body = audioUploadBody(file);
      return client.request<{ fileId: string; seconds: number }>(`${path(id)}/prompt-audio`, {
        method: 'POST',
        rawBody: body,
        headers: { 'Content-Type': body.type },
      });
    },
    /** The prompt's audio as a blob (the editor's preview player; the request carries the bearer token). */
    promptAudio: async (id: string, fileId: string) =>
      (await client.download(`${path(id)}/prompt-audio/${encodeURIComponent(fileId)}`)).blob(),
    inboundNumbers: (trunkId: string) => client.get<InboundNumber[]>(numbers(trunkId)),
    addInboundNumber: (trunkId: string, input: InboundNumberInput) => client.post<InboundNumber>(numbers(trunkId), input),
    removeInboundNumber: (trunkId: string, numberId: string) =>
      client.request<{ deleted: true }>(`${numbers(trunkId)}/${encodeURIComponent(numberId)}`, { method: 'DELETE' }),
    voiceSettings: () => client.get<VoiceSettings>('/api/voice-settings'),
    saveVoiceSettings: (input: Pick<VoiceSettings, 'queueAnnouncementSeconds'>) =>
      client.request<VoiceSettings>('/api/voice-settings', { method: 'PUT', body: input }),
    uploadHoldMusic: (file: File) => {
      const body = audioUploadBody(file);
      return client.request<VoiceSettings & { seconds: number }>('/api/voice-settings/hold-music', {
        method: 'POST',
        rawBody: body,
        headers: { 'Content-Type': body.type },
      });
    },
    clearHoldMusic: () => client.request<VoiceSettings>('/api/voice-settings/hold-music', { method: 'DELETE' }),
    /** The tenant's hold music as a blob (the preview player). */
    holdMusic: async () => (await client.download('/api/voice-settings/hold-music')).blob(),
  };
}

export type TelephonyApi = ReturnType<typeof createTelephonyApi>;
