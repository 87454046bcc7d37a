import type { MessageView } from '@centralita/contracts';
import { ApiError } from '../api/api-error';
import { readEnvelope } from '../api/http-client';

export interface UploadRequest {
  /** API path of the upload endpoint (multipart: file, caption?, clientMessageId?). */
  path: string;
  file: File;
  /** The type checked before upload (File.type may be empty for names the browser does not know). */
  mimeType: string;
  clientMessageId: string;
  caption?: string;
  token: string | null;
  /** 0..1 as the bytes leave the browser. */
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

/**
 * Sends one file as multipart with upload progress. fetch() reports no upload progress, so this is
 * the one place the console uses XMLHttpRequest; the answer is read as every other API answer
 * (the envelope, its error message and code).
 */
export function uploadFile({
  path,
  file,
  mimeType,
  clientMessageId,
  caption,
  token,
  onProgress,
  signal,
}: UploadRequest): Promise<MessageView> {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    // The part carries the checked type, not the browser's empty guess.
    form.append('file', file.type === mimeType ? file : new File([file], file.name, { type: mimeType }), file.name);
    form.append('clientMessageId', clientMessageId);
    if (caption) form.append('caption', caption);
    const request = new XMLHttpRequest();
    request.open('POST', path);
    request.setRequestHeader('Accept', 'application/json');
    if (token) request.setRequestHeader('Authorization', `Bearer ${token}`);
    request.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress?.(event.loaded / event.total);
    };
    request.onload = () => {
      // 204/304 may not carry a body in a Response.
      const body = request.status === 204 || request.status === 304 ? null : request.responseText;
      readEnvelope<MessageView>(new Response(body, { status: request.status || 500 })).then(resolve, reject);
    };
    request.onerror = () => reject(new ApiError('Error, network', { kind: 'network', detail: 'upload failed' }));
    request.onabort = () => reject(new DOMException('Upload cancelled', 'AbortError'));
    signal?.addEventListener('abort', () => request.abort(), { once: true });
    request.send(form);
  });
}

export const isAbort = (error: unknown): boolean => error instanceof DOMException && error.name === 'AbortError';
