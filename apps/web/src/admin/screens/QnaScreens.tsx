import { useCallback } from 'react';
import { useSearchParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { QNA_LIMITS, validateQna, type AppRoute, type QnaSummary } from '@centralita/contracts';
import { useApi } from '../../app/ServicesContext';
import { formatActive, formatNullable } from '../../format/format';
import { AdminFormPage, useEditId } from '../AdminFormPage';
import { AdminListPage } from '../AdminListPage';
import { CheckInput, TextArea, TextInput } from '../fields';
import { useAdminForm } from '../useAdminForm';

const PATH = '/qna/qna';

/** /qna/qna is one route: the list, or the form with ?id= (edit) or ?new=1 (add). */
export function QnaPage({ route }: { route: AppRoute }) {
  const [params] = useSearchParams();
  const editing = params.has('id') || params.has('new');
  return editing ? <QnaForm route={route} key={params.toString()} /> : <QnaList route={route} />;
}

function QnaList({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  return (
    <AdminListPage<QnaSummary>
      route={route}
      resource="qna"
      auditType="qna"
      addPath={`${PATH}?new=1`}
      editPath={PATH}
      describe={(row) => row.question}
      columns={[
        { field: 'question', header: t('admin.qna.question'), sortable: true, body: (row) => <strong>{row.question}</strong> },
        { field: 'answer', header: t('admin.qna.answer'), body: (row) => <span className="admin-clamp">{row.answer}</span> },
        {
          field: 'category',
          header: t('admin.qna.category'),
          sortable: true,
          body: (row) => formatNullable(row.category, t),
          style: { width: '12rem' },
        },
        {
          field: 'active',
          header: t('admin.qna.active'),
          sortable: true,
          style: { width: '8rem' },
          body: (row) => <span className={row.active ? 'chip chip--success' : 'chip chip--muted'}>{formatActive(row.active, t)}</span>,
        },
      ]}
    />
  );
}

type QnaValues = { question: string; answer: string; category: string; active: boolean };
const EMPTY: QnaValues = { question: '', answer: '', category: '', active: true };

function QnaForm({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const api = useApi();
  const id = useEditId();
  const form = useAdminForm<QnaValues>(
    EMPTY,
    useCallback((v: QnaValues) => validateQna(v), []),
  );
  const { values, set, blur, errorFor } = form;
  return (
    <AdminFormPage
      route={route}
      resource="qna"
      listPath={PATH}
      form={form}
      id={id}
      load={async (rowId) => {
        const row = await api.admin.get<QnaSummary>('qna', rowId);
        return { question: row.question, answer: row.answer, category: row.category ?? '', active: row.active };
      }}
      toBody={(v) => ({ ...v, category: v.category.trim() || null })}
    >
      <TextInput
        id="qna-question"
        wide
        label={t('admin.qna.question')}
        value={values.question}
        onChange={set('question')}
        onBlur={blur('question')}
        error={errorFor('question')}
      />
      <TextArea
        id="qna-answer"
        wide
        rows={6}
        label={t('admin.qna.answer')}
        value={values.answer}
        onChange={set('answer')}
        onBlur={blur('answer')}
        error={errorFor('answer')}
        hint={t('admin.form.characters', { count: values.answer.length, max: QNA_LIMITS.answerMax })}
      />
      <TextInput
        id="qna-category"
        label={t('admin.qna.category')}
        value={values.category}
        onChange={set('category')}
        onBlur={blur('category')}
        error={errorFor('category')}
      />
      <div className="admin-field admin-field--check">
        <CheckInput id="qna-active" label={t('admin.qna.activeLabel')} checked={values.active} onChange={set('active')} />
      </div>
    </AdminFormPage>
  );
}
