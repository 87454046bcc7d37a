import type { EmailMessageView, EmailReplyInput, MessageView } from '@centralita/contracts';
import type { ApiClient } from '../../../api/http-client';

/**
 * The reply as multipart/form-data: the JSON in `payload`, the files as `files`. Built by hand
 * because a Blob's type is lower-cased by the browser, which would break the boundary a FormData
 * chose (mixed case); this boundary is lower-case from the start. File names travel as an ASCII
 * fallback and in RFC 5987 form (UTF-8).
 */
export function replyBody(input: EmailReplyInput, files: File[], boundary = `----centralita-${crypto.randomUUID()}`): Blob {
  const ascii = (name: string) => name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const parts: BlobPart[] = [
    `--${boundary}\r\nContent-Disposition: form-data; name="payload"\r\nContent-Type: application/json; charset=utf-8\r\n\r\n`,
    JSON.stringify(input),
    '\r\n',
  ];
  for (const file of files) {
    parts.push(
      `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${ascii(file.name)}"; filename*=UTF-8''${encodeURIComponent(file.name)}\r\n` +
        `Content-Type: ${file.type || 'application/octet-stream'}\r\n\r\n`,
      file,
      '\r\n',
    );
  }
  parts.push(`--${boundary}--\r\n`);
  return new Blob(parts, { type: `multipart/form-data; boundary=${boundary}` });
}

/** The desk's email calls (apps/api channels/email EmailDeskController). */
export function createEmailApi(client: ApiClient) {
  const id = encodeURIComponent;
  return {
    emails: (conversationId: string) => client.get<EmailMessageView[]>(`/api/conversations/${id(conversationId)}/emails`),
    reply: (conversationId: string, input: EmailReplyInput, files: File[]) => {
      const body = replyBody(input, files);
      return client.request<MessageView>(`/api/conversations/${id(conversationId)}/email-replies`, {
        method: 'POST',
        rawBody: body,
        headers: { 'Content-Type': body.type },
      });
    },
  };
}

export type EmailApi = ReturnType<typeof createEmailApi>;
