import { useCallback, useEffect, useState } from 'react';
import { Button } from 'primereact/button';
import { Calendar } from 'primereact/calendar';
import { Checkbox } from 'primereact/checkbox';
import { Dialog } from 'primereact/dialog';
import { Dropdown } from 'primereact/dropdown';
import { InputText } from 'primereact/inputtext';
import { Mention, type MentionSearchEvent } from 'primereact/mention';
import { ProgressSpinner } from 'primereact/progressspinner';
import { Tag } from 'primereact/tag';
import { useTranslation } from 'react-i18next';
import {
  CASE_ACTIVITY_KINDS,
  CASE_LIMITS,
  valueLabel,
  type CaseActivityKind,
  type CaseDetail,
  type CaseHistoryEntry,
  type CaseOptions,
  type CaseTranscript,
  type CaseUser,
} from '@centralita/contracts';
import { describeError } from '../api/error-text';
import { CallRecordingPlayer } from '../components/CallRecordingPlayer';
import { formatDateTime } from '../format/format';
import { normaliseLanguage } from '../i18n/languages';
import { isOverdue, mentionedUsers, statusSeverity } from './case-logic';
import { CaseFormDialog } from './CaseFormDialog';
import type { CrmApi } from './crm-api';

/** How often an open case is read again, so notes other agents add appear without reloading. */
const REFRESH_MS = 4000;

/** A case with everything on it; user text is rendered as text only. */
export function CaseDetailDialog({
  api,
  options,
  id,
  onHide,
  onChanged,
}: {
  api: CrmApi;
  options: CaseOptions;
  id: string;
  onHide(): void;
  onChanged(): void;
}) {
  const { t } = useTranslation();
  const [detail, setDetail] = useState<CaseDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);

  const load = useCallback(() => api.get(id).then(setDetail), [api, id]);
  useEffect(() => {
    let live = true;
    load().catch((e: unknown) => live && setError(describeError(e, t)));
    const timer = setInterval(() => void load().catch(() => undefined), REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [load, t]);

  /** Runs a change and shows the case the server answers with. */
  const act = async (change: () => Promise<CaseDetail>): Promise<boolean> => {
    setError(null);
    try {
      setDetail(await change());
      onChanged();
      return true;
    } catch (e) {
      setError(describeError(e, t));
      return false;
    }
  };

  const none = t('crm.detail.none');
  return (
    <Dialog
      header={detail ? t('crm.detail.title', { code: detail.code }) : t('crm.detail.loading')}
      visible
      onHide={onHide}
      maximizable
      style={{ width: 'min(72rem, 97vw)' }}
      data-testid="case-detail"
    >
      {error && (
        <div className="form-error" role="alert" data-testid="case-detail-error">
          <i className="pi pi-times-circle" aria-hidden="true" />
          <span>{error}</span>
        </div>
      )}
      {!detail && !error && (
        <div role="status" aria-label={t('crm.detail.loading')}>
          <ProgressSpinner style={{ width: '2.5rem', height: '2.5rem' }} />
        </div>
      )}
      {detail && (
        <div className="crm-detail">
          <div className="crm-detail__main">
            <section className="crm-detail__section">
              <div className="crm-detail__heading">
                <h3 data-testid="case-detail-subject">{detail.subject}</h3>
                <Tag value={t(`crm.status.${detail.status}`)} severity={statusSeverity(detail.status)} data-testid="case-detail-status" />
                <Button
                  icon="pi pi-pencil"
                  label={t('crm.detail.edit')}
                  text
                  size="small"
                  onClick={() => setEditing(true)}
                  data-testid="case-edit"
                />
              </div>
              <dl className="crm-facts">
                <dt>{t('crm.columns.type')}</dt>
                <dd>
                  {detail.typeName
                    ? t(`crm.types.${options.types.find((type) => type.id === detail.typeId)?.code ?? ''}`, {
                        defaultValue: detail.typeName,
                      })
                    : none}
                </dd>
                <dt>{t('crm.columns.owner')}</dt>
                <dd>{detail.ownerName ?? none}</dd>
                <dt>{t('crm.detail.contact')}</dt>
                <dd data-testid="case-detail-contact">
                  {[detail.contactName, detail.contactEmail, detail.contactPhone].filter(Boolean).join(' · ') || none}
                </dd>
                <dt>{t('crm.detail.identification')}</dt>
                <dd>
                  {detail.identificationNumber ? `${detail.identificationTypeName ?? ''} ${detail.identificationNumber}`.trim() : none}
                </dd>
                <dt>{t('crm.detail.location')}</dt>
                <dd>{[detail.districtName, detail.cantonName, detail.provinceName].filter(Boolean).join(', ') || none}</dd>
                <dt>{t('crm.detail.createdAt')}</dt>
                <dd>{formatDateTime(detail.createdAt, t)}</dd>
              </dl>
              <h4>{t('crm.detail.description')}</h4>
              <p className="crm-detail__description">{detail.description}</p>
            </section>
            <Notes detail={detail} users={options.users} onAdd={(text, mentions) => act(() => api.addNote(detail.id, text, mentions))} />
            <Activities
              detail={detail}
              users={options.users}
              onAdd={(body) => act(() => api.addActivity(detail.id, body))}
              onToggle={(activityId, done) => void act(() => api.setActivityDone(detail.id, activityId, done))}
            />
          </div>
          <aside className="crm-detail__side">
            <Assignees
              detail={detail}
              users={options.users}
              onAdd={(userId) => void act(() => api.assign(detail.id, userId))}
              onRemove={(userId) => void act(() => api.unassign(detail.id, userId))}
            />
            <Conversations api={api} detail={detail} />
            <History entries={detail.history} />
          </aside>
        </div>
      )}
      {editing && detail && (
        <CaseFormDialog
          api={api}
          options={options}
          editing={detail}
          onHide={() => setEditing(false)}
          onSaved={(saved) => {
            setDetail(saved);
            setEditing(false);
            onChanged();
          }}
        />
      )}
    </Dialog>
  );
}

function Notes({
  detail,
  users,
  onAdd,
}: {
  detail: CaseDetail;
  users: CaseUser[];
  onAdd(text: string, mentions: string[]): Promise<boolean>;
}) {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  const [suggestions, setSuggestions] = useState<CaseUser[]>([]);
  const search = (event: MentionSearchEvent) => {
    const query = event.query.toLocaleLowerCase();
    setSuggestions(users.filter((user) => user.name.toLocaleLowerCase().includes(query)).slice(0, 8));
  };
  return (
    <section className="crm-detail__section" data-testid="case-notes">
      <h4>{t('crm.detail.notes')}</h4>
      {detail.notes.length === 0 ? (
        <p className="muted">{t('crm.detail.noNotes')}</p>
      ) : (
        <ol className="crm-notes">
          {detail.notes.map((note) => (
            <li key={note.id} data-testid="case-note">
              <small>
                {note.authorName} · {formatDateTime(note.createdAt, t)}
              </small>
              <p>{note.text}</p>
              {note.mentions.length > 0 && (
                <small className="muted">{t('crm.detail.mentions', { names: note.mentions.map((m) => m.name).join(', ') })}</small>
              )}
            </li>
          ))}
        </ol>
      )}
      <div className="crm-notes__new">
        <Mention
          inputId="case-note-text"
          data-testid="case-note-text"
          value={text}
          onChange={(event) => setText((event.target as HTMLTextAreaElement).value)}
          suggestions={suggestions}
          onSearch={search}
          field="name"
          rows={3}
          autoResize
          maxLength={CASE_LIMITS.noteMax}
          placeholder={t('crm.detail.notePlaceholder')}
          aria-label={t('crm.detail.notePlaceholder')}
        />
        <Button
          icon="pi pi-send"
          label={t('crm.detail.addNote')}
          disabled={!text.trim()}
          data-testid="case-note-add"
          onClick={async () => {
            if (await onAdd(text.trim(), mentionedUsers(text, users))) setText('');
          }}
        />
      </div>
    </section>
  );
}

function Activities({
  detail,
  users,
  onAdd,
  onToggle,
}: {
  detail: CaseDetail;
  users: CaseUser[];
  onAdd(body: { kind: CaseActivityKind; title: string; dueAt: string | null; assigneeId: string | null }): Promise<boolean>;
  onToggle(activityId: string, done: boolean): void;
}) {
  const { t } = useTranslation();
  const [kind, setKind] = useState<CaseActivityKind>('task');
  const [title, setTitle] = useState('');
  const [dueAt, setDueAt] = useState<Date | null>(null);
  const [assigneeId, setAssigneeId] = useState<string | null>(null);
  const now = Date.now();
  return (
    <section className="crm-detail__section" data-testid="case-activities">
      <h4>{t('crm.detail.activities')}</h4>
      {detail.activities.length === 0 ? (
        <p className="muted">{t('crm.detail.noActivities')}</p>
      ) : (
        <ul className="crm-activities">
          {detail.activities.map((activity) => (
            <li key={activity.id} data-testid="case-activity" className={activity.doneAt ? 'crm-activities__done' : undefined}>
              <Checkbox
                inputId={`activity-${activity.id}`}
                checked={!!activity.doneAt}
                onChange={(event) => onToggle(activity.id, !!event.checked)}
                aria-label={t('crm.detail.markDone')}
              />
              <label htmlFor={`activity-${activity.id}`}>
                <strong>{t(`crm.activityKinds.${activity.kind}`)}</strong> · {activity.title}
              </label>
              <small className="muted">
                {activity.dueAt ? t('crm.detail.due', { date: formatDateTime(activity.dueAt, t) }) : ''}
                {activity.assigneeName ? ` · ${activity.assigneeName}` : ''}
              </small>
              {isOverdue(activity, now) && <Tag value={t('crm.detail.overdue')} severity="danger" />}
            </li>
          ))}
        </ul>
      )}
      <div className="crm-activities__new">
        <Dropdown
          value={kind}
          options={CASE_ACTIVITY_KINDS.map((value) => ({ value, label: t(`crm.activityKinds.${value}`) }))}
          onChange={(event) => setKind(event.value as CaseActivityKind)}
          aria-label={t('crm.detail.activityKind')}
        />
        <InputText
          value={title}
          maxLength={CASE_LIMITS.activityTitleMax}
          placeholder={t('crm.detail.activityTitle')}
          aria-label={t('crm.detail.activityTitle')}
          onChange={(event) => setTitle(event.target.value)}
          data-testid="case-activity-title"
        />
        <Calendar
          value={dueAt}
          onChange={(event) => setDueAt((event.value as Date | null) ?? null)}
          showTime
          hourFormat="24"
          dateFormat="dd-mm-yy"
          placeholder={t('crm.detail.dueAt')}
          aria-label={t('crm.detail.dueAt')}
          showIcon
        />
        <Dropdown
          value={assigneeId}
          options={users.map((user) => ({ value: user.id, label: user.name }))}
          onChange={(event) => setAssigneeId((event.value as string | null) ?? null)}
          placeholder={t('crm.detail.assignee')}
          aria-label={t('crm.detail.assignee')}
          showClear
          filter
        />
        <Button
          icon="pi pi-plus"
          label={t('crm.detail.addActivity')}
          disabled={!title.trim()}
          data-testid="case-activity-add"
          onClick={async () => {
            if (await onAdd({ kind, title: title.trim(), dueAt: dueAt ? dueAt.toISOString() : null, assigneeId })) {
              setTitle('');
              setDueAt(null);
            }
          }}
        />
      </div>
    </section>
  );
}

function Assignees({
  detail,
  users,
  onAdd,
  onRemove,
}: {
  detail: CaseDetail;
  users: CaseUser[];
  onAdd(userId: string): void;
  onRemove(userId: string): void;
}) {
  const { t } = useTranslation();
  const assigned = new Set(detail.assignees.map((user) => user.id));
  return (
    <section className="crm-detail__section" data-testid="case-assignees">
      <h4>{t('crm.detail.assignees')}</h4>
      {detail.assignees.length === 0 ? (
        <p className="muted">{t('crm.detail.noAssignees')}</p>
      ) : (
        <ul className="crm-chips">
          {detail.assignees.map((user) => (
            <li key={user.id} className="crm-chip" data-testid="case-assignee">
              <span>{user.name}</span>
              <Button
                icon="pi pi-times"
                text
                rounded
                size="small"
                aria-label={t('crm.detail.remove', { name: user.name })}
                onClick={() => onRemove(user.id)}
              />
            </li>
          ))}
        </ul>
      )}
      <Dropdown
        value={null}
        options={users.filter((user) => !assigned.has(user.id)).map((user) => ({ value: user.id, label: user.name }))}
        onChange={(event) => event.value && onAdd(event.value as string)}
        placeholder={t('crm.detail.addAssignee')}
        aria-label={t('crm.detail.addAssignee')}
        filter
        data-testid="case-assignee-add"
      />
    </section>
  );
}

function Conversations({ api, detail }: { api: CrmApi; detail: CaseDetail }) {
  const { t, i18n } = useTranslation();
  const language = normaliseLanguage(i18n.resolvedLanguage ?? i18n.language);
  const [open, setOpen] = useState<string | null>(null);
  const [transcript, setTranscript] = useState<CaseTranscript | null>(null);
  const [error, setError] = useState<string | null>(null);
  const show = (conversationId: string) => {
    setOpen(conversationId);
    setTranscript(null);
    setError(null);
    api
      .transcript(detail.id, conversationId)
      .then(setTranscript)
      .catch((e: unknown) => setError(describeError(e, t)));
  };
  return (
    <section className="crm-detail__section" data-testid="case-conversations">
      <h4>{t('crm.detail.conversations')}</h4>
      {detail.conversations.length === 0 ? (
        <p className="muted">{t('crm.detail.noConversations')}</p>
      ) : (
        <ul className="crm-conversations">
          {detail.conversations.map((conversation) => (
            <li key={conversation.conversationId} data-testid="case-conversation">
              <span>
                {valueLabel('channel', conversation.channel, language)} · {conversation.customerName}
              </span>
              <small className="muted">
                {formatDateTime(conversation.createdAt, t)} · {valueLabel('conversationStatus', conversation.status, language)}
              </small>
              <Button
                label={t('crm.detail.showTranscript')}
                icon="pi pi-comments"
                text
                size="small"
                onClick={() => show(conversation.conversationId)}
              />
              {open === conversation.conversationId && (
                <div className="crm-transcript" data-testid="case-transcript">
                  {error && <p className="form-error">{error}</p>}
                  {!transcript && !error && <p className="muted">{t('common.loading')}</p>}
                  {transcript &&
                    (transcript.messages.length === 0 ? (
                      <p className="muted">{t('crm.detail.noMessages')}</p>
                    ) : (
                      <ol>
                        {transcript.messages.map((message) => (
                          <li key={message.id}>
                            <small>
                              {formatDateTime(message.createdAt, t)} ·{' '}
                              {message.senderName ?? t(`crm.senders.${message.senderKind}`, { defaultValue: message.senderKind })}
                            </small>
                            <p>{message.text}</p>
                          </li>
                        ))}
                      </ol>
                    ))}
                  {transcript && (
                    <>
                      <h5>{t('crm.detail.recordings')}</h5>
                      {transcript.recordings.length === 0 ? (
                        <p className="muted">{t('crm.detail.noRecordings')}</p>
                      ) : (
                        transcript.recordings.map((recording) =>
                          recording.kind === 'audio' ? (
                            <CallRecordingPlayer
                              key={recording.id}
                              url={recording.url}
                              downloadUrl={`${recording.url}&download=1`}
                              createdAt={recording.createdAt}
                              voicemail={recording.voicemail}
                            />
                          ) : (
                            <video key={recording.id} controls src={recording.url} />
                          ),
                        )
                      )}
                    </>
                  )}
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function History({ entries }: { entries: CaseHistoryEntry[] }) {
  const { t } = useTranslation();
  const value = (entry: CaseHistoryEntry, which: 'oldValue' | 'newValue') => {
    const raw = entry[which];
    if (raw == null) return t('crm.detail.none');
    return entry.field === 'status' ? t(`crm.status.${raw}`, { defaultValue: raw }) : raw;
  };
  return (
    <section className="crm-detail__section" data-testid="case-history">
      <h4>{t('crm.detail.history')}</h4>
      <ol className="crm-history">
        {[...entries].reverse().map((entry) => (
          <li key={entry.id} data-testid="case-history-entry">
            <small>{formatDateTime(entry.at, t)}</small>
            <span>
              {t(`crm.history.${entry.action}`, {
                actor: entry.actorName ?? t('crm.history.someone'),
                field: entry.field
                  ? t(`crm.fields.${entry.field}`, { defaultValue: t(`crm.activityKinds.${entry.field}`, { defaultValue: entry.field }) })
                  : '',
                from: value(entry, 'oldValue'),
                to: value(entry, 'newValue'),
              })}
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}
