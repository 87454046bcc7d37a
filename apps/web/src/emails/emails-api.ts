import type { ContactSummary, EmailReplyInput, MessageView, Page, PredefinedMessageSummary } from '@centralita/contracts';
import type { ApiClient } from '../api/http-client';
import { replyBody } from '../desk/components/email/email-api';

/** An email account the caller may send from (GET /api/emails/accounts): never its servers or secrets. */
export interface EmailSendAccount {
  id: string;
  name: string;
  fromAddress: string;
}

/** POST /api/emails: the reply's fields plus the account and the recipient (a contact id or an address). */
export interface NewEmailInput extends EmailReplyInput {
  accountId: string;
  to: string;
  subject: string;
}

/** /emails/SendEmail's calls (apps/api channels/email OutboundEmailController, contacts, predefined messages). */
export function createEmailsApi(client: ApiClient) {
  return {
    accounts: () => client.get<EmailSendAccount[]>('/api/emails/accounts'),
    contacts: (q: string) => client.get<Page<ContactSummary>>('/api/contacts', { query: { q, pageSize: 10 } }),
    predefinedMessages: () => client.get<PredefinedMessageSummary[]>('/api/predefined-messages/usable'),
    send: (input: NewEmailInput, files: File[]) => {
      const body = replyBody(input, files);
      return client.request<{ conversationId: string; message: MessageView }>('/api/emails', {
        method: 'POST',
        rawBody: body,
        headers: { 'Content-Type': body.type },
      });
    },
  };
}

export type EmailsApi = ReturnType<typeof createEmailsApi>;
