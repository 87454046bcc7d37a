import { useEffect, useMemo, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { AutoComplete } from 'primereact/autocomplete';
import { Dropdown } from 'primereact/dropdown';
import { useTranslation } from 'react-i18next';
import type { AppRoute, ContactSummary, EmailReplyInput } from '@centralita/contracts';
import { describeError } from '../api/error-text';
import { useServices } from '../app/ServicesContext';
import type { PredefinedOption } from '../desk/components/ChatInput';
import { EmailComposer } from '../desk/components/email/EmailComposer';
import '../desk/components/email/email.css';
import { connectStaff } from '../desk/realtime/socket-client';
import { PageHeader } from '../layout/PageHeader';
import { useToast } from '../toast/ToastProvider';
import { createEmailsApi, type EmailSendAccount } from './emails-api';
import './send-email.css';
import { checkNewEmail, recipientLabel, type Recipient } from './send-email-logic';

type Suggestion = ContactSummary & { label: string };

/**
 * /emails/SendEmail (issue 20 item 4): an agent starts an email to a contact (searched) or an
 * address, from one of the tenant's email accounts, with the desk's composer (subject, cc/bcc,
 * rich text, predefined messages, files). The API opens the conversation Active with the sender;
 * the page then opens it in the desk.
 */
export default function SendEmailPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const { client, session } = useServices();
  const toast = useToast();
  const navigate = useNavigate();
  const api = useMemo(() => createEmailsApi(client), [client]);
  const [accounts, setAccounts] = useState<EmailSendAccount[] | null>(null);
  const [loadFailed, setLoadFailed] = useState<string | null>(null);
  const [accountId, setAccountId] = useState<string | null>(null);
  const [recipient, setRecipient] = useState<Recipient | Suggestion>(null);
  const [suggestions, setSuggestions] = useState<Suggestion[]>([]);
  const [predefined, setPredefined] = useState<PredefinedOption[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  // The page keeps the staff connection the desk holds: an agent who left the desk for this page
  // stays connected (presence counts open sockets), so the new conversation may be theirs.
  useEffect(() => {
    const connection = connectStaff(() => session.getAccessToken(), { onResync: () => undefined });
    return () => connection.close();
  }, [session]);

  useEffect(() => {
    api
      .accounts()
      .then((list) => {
        setAccounts(list);
        setAccountId((held) => held ?? (list.length === 1 ? list[0]!.id : null));
      })
      .catch((error: unknown) => setLoadFailed(describeError(error, t)));
    api
      .predefinedMessages()
      .then((items) => setPredefined(items.map((item) => ({ id: item.id, shortcut: item.shortcut, message: item.message }))))
      .catch(() => setPredefined([]));
  }, [api, t]);

  const search = (query: string) => {
    api
      .contacts(query)
      .then((page) => setSuggestions(page.items.map((contact) => ({ ...contact, label: recipientLabel(contact) }))))
      .catch(() => setSuggestions([]));
  };

  const send = async (input: EmailReplyInput, files: File[]) => {
    setProblem(null);
    const checked = checkNewEmail({ accountId, recipient, subject: input.subject ?? '' });
    if ('problem' in checked) {
      setProblem(t(`email.send.${checked.problem}`, { value: checked.value ?? '' }));
      throw new Error(checked.problem);
    }
    try {
      const sent = await api.send({ ...input, subject: input.subject!.trim(), accountId: accountId!, to: checked.to }, files);
      toast.success(t('email.send.sent'));
      navigate(`/conversations/agentConversations?conversation=${encodeURIComponent(sent.conversationId)}`);
    } catch (error) {
      setProblem(describeError(error, t));
      throw error;
    }
  };

  const accountOptions = (accounts ?? []).map((account) => ({ value: account.id, label: `${account.name} <${account.fromAddress}>` }));

  return (
    <section className="send-email" data-testid="send-email">
      <PageHeader title={t(`routes.${route.titleKey}`)} icon={route.icon} subtitle={t('email.send.subtitle')} />
      {loadFailed ? (
        <p className="field-error" role="alert" data-testid="send-email-load-failed">
          {t('email.send.loadFailed')} {loadFailed}
        </p>
      ) : accounts === null ? (
        <p className="muted" role="status" data-testid="send-email-loading">
          {t('email.send.loading')}
        </p>
      ) : accounts.length === 0 ? (
        <p className="muted" data-testid="send-email-no-accounts">
          {t('email.send.noAccounts')}
        </p>
      ) : (
        <div className="email-composer send-email__form">
          <div className="email-composer__row">
            <label htmlFor="send-email-account">{t('email.send.account')}</label>
            <Dropdown
              inputId="send-email-account"
              value={accountId}
              options={accountOptions}
              onChange={(event) => {
                setAccountId(event.value as string);
                setProblem(null);
              }}
              placeholder={t('email.send.accountPlaceholder')}
              data-testid="send-email-account"
            />
          </div>
          <div className="email-composer__row">
            <label htmlFor="send-email-to">{t('email.to')}</label>
            <AutoComplete
              inputId="send-email-to"
              value={recipient}
              suggestions={suggestions}
              field="label"
              completeMethod={(event) => search(event.query)}
              onChange={(event) => {
                setRecipient(event.value as Recipient | Suggestion);
                setProblem(null);
              }}
              placeholder={t('email.send.toPlaceholder')}
              delay={300}
              className="send-email__to"
            />
          </div>
          {problem && (
            <p className="field-error" role="alert" data-testid="send-email-problem">
              {problem}
            </p>
          )}
          <EmailComposer defaultSubject="" disabled={false} predefined={predefined} onSend={send} />
        </div>
      )}
    </section>
  );
}
