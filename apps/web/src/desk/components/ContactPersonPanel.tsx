import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import { Dialog } from 'primereact/dialog';
import { InputText } from 'primereact/inputtext';
import type { ContactPersonView, ContactSummary, Page } from '@centralita/contracts';
import type { ApiClient } from '../../api/http-client';
import { describeError } from '../../api/error-text';
import { useServices } from '../../app/ServicesContext';
import { DialogFooter } from '../../components/DialogFooter';
import { formatDateTime } from '../../format/format';
import { useToast } from '../../toast/ToastProvider';
import { ChannelBadge } from './Badges';
import './contact-person.css';

/** REST calls of the person panel (/api/contacts). */
export function createContactsApi(client: ApiClient) {
  const path = (id: string) => `/api/contacts/${encodeURIComponent(id)}`;
  return {
    byConversation: (conversationId: string) =>
      client.get<ContactPersonView | null>(`/api/contacts/by-conversation/${encodeURIComponent(conversationId)}`),
    search: (q: string) => client.get<Page<ContactSummary>>('/api/contacts', { query: { q, pageSize: 10 } }),
    merge: (id: string, contactId: string) => client.post<ContactPersonView>(`${path(id)}/merge`, { contactId }),
    unmerge: (id: string) => client.post<ContactPersonView>(`${path(id)}/unmerge`, {}),
  };
}

type Load = { state: 'loading' } | { state: 'failed'; message: string } | { state: 'ready'; person: ContactPersonView | null };

/**
 * The customer as one person (issue 20 item 6), beside the chat: the channel identities an agent
 * merged, the timeline of all their conversations and cases, "Merge with…" and "Separate".
 */
export function ContactPersonPanel({ conversationId }: { conversationId: string }) {
  const { t } = useTranslation();
  const { client } = useServices();
  const api = useMemo(() => createContactsApi(client), [client]);
  const toast = useToast();
  const [load, setLoad] = useState<Load>({ state: 'loading' });
  const [merging, setMerging] = useState(false);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let current = true;
    setLoad({ state: 'loading' });
    api
      .byConversation(conversationId)
      .then((person) => current && setLoad({ state: 'ready', person }))
      .catch((error: unknown) => current && setLoad({ state: 'failed', message: describeError(error, t) }));
    return () => {
      current = false;
    };
  }, [api, conversationId, attempt, t]);

  const unmerge = useCallback(
    async (contactId: string) => {
      try {
        await api.unmerge(contactId);
        toast.success(t('contacts.unmerged'));
        setAttempt((n) => n + 1);
      } catch (error) {
        toast.error(t('contacts.unmergeFailed'), describeError(error, t));
      }
    },
    [api, t, toast],
  );

  if (load.state === 'loading')
    return (
      <p className="muted" data-testid="person-loading">
        {t('contacts.loading')}
      </p>
    );
  if (load.state === 'failed')
    return (
      <div className="form-error" role="alert" data-testid="person-error">
        <span>
          {t('contacts.loadFailed')} {load.message}
        </span>
        <Button label={t('common.retry')} text size="small" onClick={() => setAttempt((n) => n + 1)} />
      </div>
    );
  const { person } = load;
  if (!person)
    return (
      <p className="muted" data-testid="person-none">
        {t('contacts.noContact')}
      </p>
    );
  const current = person.identities.find((identity) => identity.id === person.contactId);
  return (
    <section className="desk-person" data-testid="person-panel" data-person={person.personId ?? ''}>
      <h3 className="desk-customer__subtitle">{t('contacts.identities')}</h3>
      <ul className="desk-person__identities" data-testid="person-identities">
        {person.identities.map((identity) => (
          <li key={identity.id} data-testid="person-identity" data-contact={identity.id}>
            <ChannelBadge channel={identity.channel} compact />
            <span className="desk-person__name">{identity.name}</span>
            <span className="muted desk-person__id">{identity.email ?? identity.externalId}</span>
            {person.identities.length > 1 && (
              <Button
                className="desk-person__unmerge"
                icon="pi pi-times"
                rounded
                text
                size="small"
                severity="secondary"
                aria-label={t('contacts.unmerge')}
                tooltip={t('contacts.unmerge')}
                onClick={() => void unmerge(identity.id)}
                data-testid="person-unmerge"
              />
            )}
          </li>
        ))}
      </ul>
      <Button
        className="desk-person__merge"
        icon="pi pi-link"
        label={t('contacts.merge')}
        outlined
        size="small"
        onClick={() => setMerging(true)}
        data-testid="person-merge"
      />
      <h3 className="desk-customer__subtitle">{t('contacts.timeline')}</h3>
      {person.timeline.length === 0 ? (
        <p className="muted">{t('contacts.noTimeline')}</p>
      ) : (
        <ul className="desk-earlier desk-person__timeline" data-testid="person-timeline">
          {person.timeline.map((entry) =>
            entry.kind === 'conversation' ? (
              <li key={`c-${entry.id}`} data-testid="person-timeline-conversation" data-id={entry.id}>
                <span>
                  <ChannelBadge channel={entry.channel} compact /> {formatDateTime(entry.createdAt)}
                  {entry.id === conversationId ? ` · ${t('contacts.thisOne')}` : ''}
                </span>
                <span className="muted">
                  {entry.lineName ?? t('format.notAvailable')} ·{' '}
                  {t(`desk.conversationStatus.${entry.status}`, { defaultValue: entry.status })}
                </span>
              </li>
            ) : (
              <li key={`k-${entry.id}`} data-testid="person-timeline-case" data-id={entry.id}>
                <span>
                  <i className="pi pi-briefcase" aria-hidden="true" /> {t('contacts.case', { code: entry.code ?? '' })} ·{' '}
                  {formatDateTime(entry.createdAt)}
                </span>
                <span className="muted">
                  {entry.subject ?? ''}
                  {entry.status ? ` · ${entry.status}` : ''}
                </span>
              </li>
            ),
          )}
        </ul>
      )}
      {person.history[0] && (
        <p className="muted desk-person__history" data-testid="person-history">
          {t(person.history[0].action === 'merge' ? 'contacts.mergedBy' : 'contacts.unmergedBy', {
            name: person.history[0].actorName ?? t('contacts.someone'),
            date: formatDateTime(person.history[0].at),
          })}
        </p>
      )}
      <MergeDialog
        visible={merging}
        onHide={() => setMerging(false)}
        api={api}
        contact={{ id: person.contactId, name: current?.name ?? '' }}
        exclude={person.identities.map((identity) => identity.id)}
        onMerged={() => {
          setMerging(false);
          toast.success(t('contacts.merged'));
          setAttempt((n) => n + 1);
        }}
      />
    </section>
  );
}

function MergeDialog({
  visible,
  onHide,
  api,
  contact,
  exclude,
  onMerged,
}: {
  visible: boolean;
  onHide(): void;
  api: ReturnType<typeof createContactsApi>;
  contact: { id: string; name: string };
  exclude: string[];
  onMerged(): void;
}) {
  const { t } = useTranslation();
  const [q, setQ] = useState('');
  const [results, setResults] = useState<ContactSummary[] | null>(null);
  const [searching, setSearching] = useState(false);
  const [chosen, setChosen] = useState<ContactSummary | null>(null);
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  useEffect(() => {
    if (!visible) return;
    setQ('');
    setResults(null);
    setChosen(null);
    setFailure(null);
  }, [visible]);

  useEffect(() => {
    if (!visible || q.trim().length < 2) return setResults(null);
    let current = true;
    setSearching(true);
    const timer = setTimeout(() => {
      api
        .search(q.trim())
        .then((page) => current && setResults(page.items.filter((item) => !exclude.includes(item.id))))
        .catch((error: unknown) => current && setFailure(describeError(error, t)))
        .finally(() => current && setSearching(false));
    }, 250);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [api, q, visible, exclude, t]);

  const merge = async () => {
    if (!chosen || saving) return;
    setSaving(true);
    try {
      await api.merge(contact.id, chosen.id);
      onMerged();
    } catch (error) {
      setFailure(`${t('contacts.mergeFailed')} ${describeError(error, t)}`);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Dialog
      header={t('contacts.mergeTitle')}
      visible={visible}
      onHide={onHide}
      style={{ width: '32rem' }}
      data-testid="merge-dialog"
      footer={
        <DialogFooter
          cancel={{ label: t('contacts.cancel'), onClick: onHide }}
          action={{
            label: t('contacts.mergeAction'),
            icon: 'pi pi-link',
            loading: saving,
            onClick: () => void merge(),
            testId: 'merge-confirm',
          }}
        />
      }
    >
      <label className="desk-field" htmlFor="merge-search">
        <span>{t('contacts.searchLabel')}</span>
        <InputText
          id="merge-search"
          value={q}
          placeholder={t('contacts.searchPlaceholder')}
          onChange={(event) => {
            setQ(event.target.value);
            setChosen(null);
          }}
          data-testid="merge-search"
        />
      </label>
      {searching && <p className="muted">{t('contacts.searching')}</p>}
      {results && results.length === 0 && !searching && (
        <p className="muted" data-testid="merge-no-results">
          {t('contacts.noResults')}
        </p>
      )}
      {results && results.length > 0 && (
        <ul className="desk-person__results" data-testid="merge-results">
          {results.map((item) => (
            <li key={item.id}>
              <button
                type="button"
                className={`desk-person__result${chosen?.id === item.id ? ' desk-person__result--chosen' : ''}`}
                onClick={() => setChosen(item)}
                data-testid="merge-result"
                data-contact={item.id}
              >
                <ChannelBadge channel={item.channel} compact />
                <span>{item.name}</span>
                <span className="muted">{item.email ?? item.externalId}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {chosen && (
        <p className="desk-person__confirm" data-testid="merge-question">
          {t('contacts.confirmMerge', { name: contact.name, other: chosen.name })}
        </p>
      )}
      {failure && (
        <p className="form-error" role="alert" data-testid="merge-error">
          {failure}
        </p>
      )}
    </Dialog>
  );
}
