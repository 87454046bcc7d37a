import { useCallback, useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { Button } from 'primereact/button';
import { Chips } from 'primereact/chips';
import { Column } from 'primereact/column';
import { DataTable } from 'primereact/datatable';
import { Dialog } from 'primereact/dialog';
import { Dropdown } from 'primereact/dropdown';
import { InputText } from 'primereact/inputtext';
import { useTranslation } from 'react-i18next';
import {
  POLL_RESPONSE_TYPES,
  validateAnswerGroup,
  validatePoll,
  type AnswerGroupSummary,
  type AppRoute,
  type PollAnswer,
  type PollResponseType,
  type PollSummary,
} from '@centralita/contracts';
import { describeError } from '../../api/error-text';
import { DialogFooter } from '../../components/DialogFooter';
import { useApi } from '../../app/ServicesContext';
import { formatActive, formatDateTime } from '../../format/format';
import { PageHeader } from '../../layout/PageHeader';
import { useToast } from '../../toast/ToastProvider';
import { issuesByField } from '../admin-logic';
import { AdminFormPage, useEditId } from '../AdminFormPage';
import { AdminListPage } from '../AdminListPage';
import { CheckInput, FieldShell, NumberInput, TextArea, TextInput } from '../fields';
import { useAdminForm } from '../useAdminForm';
import { PollChart } from './PollChart';
import { lazyPaging } from '../lazy-paging';

const LIST = '/settings/polls';
const FORM = '/settings/editpoll';

/** Every poll of the tenant for pickers (the answers screens). */
function usePolls(): PollSummary[] {
  const api = useApi();
  const [polls, setPolls] = useState<PollSummary[]>([]);
  useEffect(() => {
    api.admin
      .list<PollSummary>('polls', { pageSize: 200 })
      .then((page) => setPolls(page.items))
      .catch(() => setPolls([]));
  }, [api]);
  return polls;
}

export function PollListPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  return (
    <>
      <AdminListPage<PollSummary>
        route={route}
        resource="polls"
        auditType="poll"
        addPath={FORM}
        editPath={FORM}
        describe={(row) => row.name}
        columns={[
          { field: 'name', header: t('admin.polls.name'), sortable: true, body: (row) => <strong>{row.name}</strong> },
          { field: 'questionCount', header: t('admin.polls.questionCount'), style: { width: '9rem' } },
          {
            field: 'ranks',
            header: t('admin.polls.ranks'),
            body: (row) => `${row.lowerRank} / ${row.upperRank}`,
            style: { width: '9rem' },
          },
          {
            field: 'active',
            header: t('admin.polls.active'),
            sortable: true,
            style: { width: '8rem' },
            body: (row) => <span className={row.active ? 'chip chip--success' : 'chip chip--muted'}>{formatActive(row.active, t)}</span>,
          },
          {
            field: 'answers',
            header: t('admin.polls.answers'),
            style: { width: '12rem' },
            body: (row) => (
              <span className="admin-links">
                <Link className="text-link" to={`/settings/pollanswers?pollId=${row.id}`} data-testid="poll-answers-link">
                  {t('admin.polls.list')}
                </Link>
                <Link className="text-link" to={`/settings/pollanswersbyquestion?pollId=${row.id}`}>
                  {t('admin.polls.chart')}
                </Link>
              </span>
            ),
          },
        ]}
      />
      <AnswerGroupsPanel />
    </>
  );
}

/** Answer groups (catalogs of options) reused by choice questions. */
function AnswerGroupsPanel() {
  const { t } = useTranslation();
  const api = useApi();
  const toast = useToast();
  const [groups, setGroups] = useState<AnswerGroupSummary[]>([]);
  const [editing, setEditing] = useState<{ id: string | null; name: string; options: string[] } | null>(null);
  const [submitted, setSubmitted] = useState(false);
  const load = useCallback(() => {
    api.admin
      .answerGroups()
      .then((page) => setGroups(page.items))
      .catch(() => setGroups([]));
  }, [api]);
  useEffect(load, [load]);
  const issues = editing ? issuesByField(validateAnswerGroup(editing)) : {};
  const message = (field: string) => (submitted && issues[field] ? t(`validation.${issues[field].key}`, issues[field].values) : null);
  const save = async () => {
    if (!editing) return;
    setSubmitted(true);
    if (Object.keys(issues).length) return;
    try {
      const body = { name: editing.name, options: editing.options };
      if (editing.id) await api.admin.update('poll-answer-groups', editing.id, body);
      else await api.admin.create('poll-answer-groups', body);
      toast.success(t('admin.form.saved'));
      setEditing(null);
      load();
    } catch (e) {
      toast.error(t('admin.form.saveFailed'), describeError(e, t));
    }
  };
  const remove = async (id: string) => {
    try {
      await api.admin.remove('poll-answer-groups', id);
      load();
    } catch (e) {
      toast.error(t('admin.list.deleteFailed'), describeError(e, t));
    }
  };
  return (
    <section className="card admin-list" data-testid="answer-groups">
      <div className="admin-list__toolbar">
        <h3 className="card__title">
          <i className="pi pi-list" aria-hidden="true" /> {t('admin.polls.answerGroups')}
        </h3>
        <Button
          icon="pi pi-plus"
          label={t('admin.list.add')}
          outlined
          onClick={() => {
            setSubmitted(false);
            setEditing({ id: null, name: '', options: [] });
          }}
        />
      </div>
      <DataTable value={groups} dataKey="id" size="small" emptyMessage={t('admin.list.empty')}>
        <Column field="name" header={t('admin.polls.name')} />
        <Column header={t('admin.polls.options')} body={(row: AnswerGroupSummary) => row.options.join(' · ')} />
        <Column
          header={t('admin.list.actions')}
          style={{ width: '7rem' }}
          body={(row: AnswerGroupSummary) => (
            <div className="admin-actions">
              <Button
                icon="pi pi-pencil"
                rounded
                text
                aria-label={t('admin.list.edit')}
                onClick={() => {
                  setSubmitted(false);
                  setEditing({ id: row.id, name: row.name, options: row.options });
                }}
              />
              <Button
                icon="pi pi-trash"
                rounded
                text
                severity="danger"
                aria-label={t('admin.list.delete')}
                onClick={() => void remove(row.id)}
              />
            </div>
          )}
        />
      </DataTable>
      <Dialog
        header={t('admin.polls.answerGroup')}
        visible={editing !== null}
        onHide={() => setEditing(null)}
        style={{ width: 'min(560px, 96vw)' }}
        footer={
          <DialogFooter
            cancel={{ label: t('admin.form.cancel'), onClick: () => setEditing(null) }}
            action={{ label: t('admin.form.save'), icon: 'pi pi-check', onClick: () => void save() }}
          />
        }
      >
        {editing && (
          <div className="admin-form admin-form--dialog">
            <TextInput
              id="group-name"
              label={t('admin.polls.name')}
              value={editing.name}
              onChange={(name) => setEditing({ ...editing, name })}
              error={message('name')}
            />
            <FieldShell id="group-options" label={t('admin.polls.options')} hint={t('admin.polls.optionsHint')} error={message('options')}>
              <Chips
                inputId="group-options"
                value={editing.options}
                onChange={(e) => setEditing({ ...editing, options: e.value ?? [] })}
                separator=","
              />
            </FieldShell>
          </div>
        )}
      </Dialog>
    </section>
  );
}

type QuestionValue = { id?: string; text: string; responseType: PollResponseType; options: string[]; answerGroupId: string | null };
type PollValues = {
  name: string;
  description: string;
  active: boolean;
  lowerRank: number | null;
  upperRank: number | null;
  questions: QuestionValue[];
};
const EMPTY: PollValues = {
  name: '',
  description: '',
  active: true,
  lowerRank: 40,
  upperRank: 60,
  questions: [{ text: '', responseType: 'scale', options: [], answerGroupId: null }],
};

export function PollFormPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const api = useApi();
  const id = useEditId();
  const [groups, setGroups] = useState<AnswerGroupSummary[]>([]);
  const form = useAdminForm<PollValues>(
    EMPTY,
    useCallback((v: PollValues) => validatePoll(v), []),
  );
  const { values, set, blur, errorFor } = form;
  useEffect(() => {
    api.admin
      .answerGroups()
      .then((page) => setGroups(page.items))
      .catch(() => setGroups([]));
  }, [api]);
  const setQuestion = (index: number, patch: Partial<QuestionValue>) =>
    set('questions')(values.questions.map((q, i) => (i === index ? { ...q, ...patch } : q)));
  const questionError = (index: number, field: string) => errorFor(`questions.${index}.${field}` as keyof PollValues & string);
  const types = POLL_RESPONSE_TYPES.map((type) => ({ value: type, label: t(`admin.polls.types.${type}`) }));

  return (
    <AdminFormPage
      route={route}
      resource="polls"
      listPath={LIST}
      form={form}
      id={id}
      load={async (rowId) => {
        const row = await api.admin.get<PollSummary>('polls', rowId);
        return {
          name: row.name,
          description: row.description ?? '',
          active: row.active,
          lowerRank: row.lowerRank,
          upperRank: row.upperRank,
          questions: row.questions.map((q) => ({
            id: q.id,
            text: q.text,
            responseType: q.responseType,
            options: q.options,
            answerGroupId: q.answerGroupId,
          })),
        };
      }}
      toBody={(v) => ({ ...v, description: v.description.trim() || null })}
    >
      <TextInput
        id="poll-name"
        label={t('admin.polls.name')}
        value={values.name}
        onChange={set('name')}
        onBlur={blur('name')}
        error={errorFor('name')}
      />
      <div className="admin-field admin-field--check">
        <CheckInput id="poll-active" label={t('admin.polls.activeLabel')} checked={values.active} onChange={set('active')} />
      </div>
      <TextArea
        id="poll-description"
        wide
        rows={2}
        label={t('admin.polls.description')}
        value={values.description}
        onChange={set('description')}
        error={errorFor('description')}
      />
      <NumberInput
        id="poll-lower"
        label={t('admin.polls.lowerRank')}
        value={values.lowerRank}
        onChange={set('lowerRank')}
        onBlur={blur('lowerRank')}
        error={errorFor('lowerRank')}
      />
      <NumberInput
        id="poll-upper"
        label={t('admin.polls.upperRank')}
        hint={t('admin.polls.ranksHint')}
        value={values.upperRank}
        onChange={set('upperRank')}
        onBlur={blur('upperRank')}
        error={errorFor('upperRank')}
      />
      <FieldShell id="poll-questions" label={t('admin.polls.questions')} error={errorFor('questions')} wide>
        <div className="poll-questions" data-testid="poll-questions">
          {values.questions.map((question, index) => {
            const choice = question.responseType === 'single' || question.responseType === 'multiple';
            return (
              <div className="poll-question" key={question.id ?? `new-${index}`} data-testid="poll-question">
                <span className="poll-question__number">{index + 1}</span>
                <div className="poll-question__body">
                  <InputText
                    value={question.text}
                    placeholder={t('admin.polls.questionText')}
                    aria-label={t('admin.polls.questionText')}
                    data-testid={`poll-question-text-${index}`}
                    invalid={!!questionError(index, 'text')}
                    onChange={(e) => setQuestion(index, { text: e.target.value })}
                  />
                  {questionError(index, 'text') && <small className="field__error">{questionError(index, 'text')}</small>}
                  <div className="poll-question__row">
                    <Dropdown
                      value={question.responseType}
                      options={types}
                      optionLabel="label"
                      optionValue="value"
                      aria-label={t('admin.polls.responseType')}
                      data-testid={`poll-question-type-${index}`}
                      onChange={(e) => setQuestion(index, { responseType: e.value as PollResponseType })}
                    />
                    {choice && (
                      <Dropdown
                        value={question.answerGroupId}
                        options={[
                          { value: null, label: t('admin.polls.ownOptions') },
                          ...groups.map((g) => ({ value: g.id, label: g.name })),
                        ]}
                        optionLabel="label"
                        optionValue="value"
                        aria-label={t('admin.polls.answerGroup')}
                        onChange={(e) => setQuestion(index, { answerGroupId: (e.value as string | null) ?? null })}
                      />
                    )}
                  </div>
                  {choice && !question.answerGroupId && (
                    <Chips
                      value={question.options}
                      placeholder={t('admin.polls.optionsHint')}
                      separator=","
                      aria-label={t('admin.polls.options')}
                      pt={{ input: { 'data-testid': `poll-question-options-${index}` } as never }}
                      onChange={(e) => setQuestion(index, { options: e.value ?? [] })}
                    />
                  )}
                  {questionError(index, 'options') && <small className="field__error">{questionError(index, 'options')}</small>}
                </div>
                <Button
                  type="button"
                  icon="pi pi-trash"
                  rounded
                  text
                  severity="danger"
                  aria-label={t('admin.polls.removeQuestion')}
                  disabled={values.questions.length === 1}
                  onClick={() => set('questions')(values.questions.filter((_, i) => i !== index))}
                />
              </div>
            );
          })}
          <Button
            type="button"
            icon="pi pi-plus"
            label={t('admin.polls.addQuestion')}
            outlined
            data-testid="poll-add-question"
            onClick={() => set('questions')([...values.questions, { text: '', responseType: 'text', options: [], answerGroupId: null }])}
          />
        </div>
      </FieldShell>
    </AdminFormPage>
  );
}

function PollPicker({
  polls,
  pollId,
  onPoll,
  questionId,
  onQuestion,
  allQuestions,
}: {
  polls: PollSummary[];
  pollId: string;
  onPoll(id: string): void;
  questionId: string;
  onQuestion(id: string): void;
  allQuestions?: boolean;
}) {
  const { t } = useTranslation();
  const poll = polls.find((p) => p.id === pollId);
  const questions = poll?.questions ?? [];
  return (
    <div className="admin-list__toolbar admin-pickers">
      <Dropdown
        value={pollId || null}
        options={polls.map((p) => ({ value: p.id, label: p.name }))}
        optionLabel="label"
        optionValue="value"
        placeholder={t('admin.polls.choosePoll')}
        aria-label={t('admin.polls.choosePoll')}
        data-testid="poll-picker"
        onChange={(e) => onPoll((e.value as string) ?? '')}
      />
      <Dropdown
        value={questionId || (allQuestions ? '' : null)}
        options={[
          ...(allQuestions ? [{ value: '', label: t('admin.polls.allQuestions') }] : []),
          ...questions.map((q) => ({ value: q.id, label: `${q.position}. ${q.text}` })),
        ]}
        optionLabel="label"
        optionValue="value"
        placeholder={t('admin.polls.chooseQuestion')}
        aria-label={t('admin.polls.chooseQuestion')}
        data-testid="question-picker"
        disabled={!poll}
        onChange={(e) => onQuestion((e.value as string) ?? '')}
      />
    </div>
  );
}

/** /settings/pollanswers?pollId= : every answer, paged on the server. */
export function PollAnswersPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const api = useApi();
  const polls = usePolls();
  const [params, setParams] = useSearchParams();
  const pollId = params.get('pollId') ?? '';
  const questionId = params.get('questionId') ?? '';
  const [state, setState] = useState({ first: 0, rows: 25 });
  const [rows, setRows] = useState<PollAnswer[]>([]);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!pollId) return;
    let live = true;
    setLoading(true);
    api.admin
      .pollAnswers(pollId, { page: state.first / state.rows + 1, pageSize: state.rows, ...(questionId ? { questionId } : {}) })
      .then((page) => {
        if (!live) return;
        setRows(page.items);
        setTotal(page.total);
        setError(null);
      })
      .catch((e: unknown) => live && setError(describeError(e, t)))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [api, pollId, questionId, state, t]);

  const choose = (next: Record<string, string>) => {
    setState((s) => ({ ...s, first: 0 }));
    setParams(Object.fromEntries(Object.entries({ pollId, questionId, ...next }).filter(([, v]) => v)));
  };
  return (
    <>
      <PageHeader title={t(`routes.${route.titleKey}`)} icon="pi pi-inbox" subtitle={t('admin.list.count', { count: total })} />
      <section className="card admin-list" data-testid="poll-answers">
        <PollPicker
          polls={polls}
          pollId={pollId}
          onPoll={(id) => choose({ pollId: id, questionId: '' })}
          questionId={questionId}
          onQuestion={(id) => choose({ questionId: id })}
          allQuestions
        />
        {error && (
          <div className="form-error" role="alert">
            {error}
          </div>
        )}
        <DataTable
          value={rows}
          {...lazyPaging(state, setState, total, loading)}
          emptyMessage={pollId ? t('admin.list.empty') : t('admin.polls.choosePoll')}
        >
          <Column field="questionText" header={t('admin.polls.question')} />
          <Column field="value" header={t('admin.polls.answer')} />
          <Column
            field="createdAt"
            header={t('admin.polls.answeredAt')}
            body={(row: PollAnswer) => formatDateTime(row.createdAt, t)}
            style={{ width: '14rem' }}
          />
        </DataTable>
      </section>
    </>
  );
}

/** /settings/pollanswersbyquestion?pollId=&questionId= : the answers of one question, charted. */
export function PollAnswersByQuestionPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const polls = usePolls();
  const [params, setParams] = useSearchParams();
  const pollId = params.get('pollId') ?? '';
  const poll = polls.find((p) => p.id === pollId);
  const questionId = params.get('questionId') ?? poll?.questions[0]?.id ?? '';
  return (
    <>
      <PageHeader title={t(`routes.${route.titleKey}`)} icon="pi pi-chart-bar" />
      <section className="card admin-list" data-testid="poll-chart-page">
        <PollPicker
          polls={polls}
          pollId={pollId}
          onPoll={(id) => setParams({ pollId: id })}
          questionId={questionId}
          onQuestion={(id) => setParams({ pollId, questionId: id })}
        />
        {pollId && questionId ? (
          <PollChart pollId={pollId} questionId={questionId} />
        ) : (
          <p className="muted">{t('admin.polls.choosePoll')}</p>
        )}
      </section>
    </>
  );
}
