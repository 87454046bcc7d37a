import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  ADMIN_LIMITS,
  normalizePredefinedShortcut,
  PREDEFINED_MESSAGE_SCOPES,
  validatePredefinedMessage,
  type AppRoute,
  type PredefinedMessageScope,
  type PredefinedMessageSummary,
} from '@centralita/contracts';
import { useApi } from '../../app/ServicesContext';
import { AdminFormPage, useEditId } from '../AdminFormPage';
import { AdminListPage } from '../AdminListPage';
import { SelectInput, TextArea, TextInput, type Option } from '../fields';
import { useAdminForm } from '../useAdminForm';

const LIST = '/predefinedMessages/PredefinedMessagesList';
const FORM = '/predefinedMessages/PredefinedMessagesSubmit';

export function PredefinedMessageListPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  return (
    <AdminListPage<PredefinedMessageSummary>
      route={route}
      resource="predefined-messages"
      auditType="predefined-message"
      addPath={FORM}
      editPath={FORM}
      describe={(row) => row.shortcut}
      columns={[
        {
          field: 'shortcut',
          header: t('admin.predefined.shortcut'),
          sortable: true,
          body: (row) => <code>/{row.shortcut}</code>,
          style: { width: '10rem' },
        },
        {
          field: 'message',
          header: t('admin.predefined.message'),
          sortable: true,
          body: (row) => <span className="admin-clamp">{row.message}</span>,
        },
        {
          field: 'scope',
          header: t('admin.predefined.scope'),
          sortable: true,
          style: { width: '14rem' },
          body: (row) => (
            <span className="chip">
              {t(`admin.predefined.scopes.${row.scope}`)}
              {row.attentionLineName ? `: ${row.attentionLineName}` : ''}
            </span>
          ),
        },
      ]}
    />
  );
}

type MessageValues = { message: string; shortcut: string; scope: PredefinedMessageScope; attentionLineId: string };
const EMPTY: MessageValues = { message: '', shortcut: '', scope: 'tenant', attentionLineId: '' };

export function PredefinedMessageFormPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const api = useApi();
  const id = useEditId();
  const [lines, setLines] = useState<Option[]>([]);
  const form = useAdminForm<MessageValues>(
    EMPTY,
    useCallback((v: MessageValues) => validatePredefinedMessage(v), []),
  );
  const { values, set, blur, errorFor } = form;
  // The generic "format not valid" hides the hint: say which characters a shortcut may have.
  const shortcutError = errorFor('shortcut');
  const shortcutMisformatted =
    shortcutError !== null && validatePredefinedMessage(values).some((issue) => issue.field === 'shortcut' && issue.key === 'pattern');

  useEffect(() => {
    api.admin
      .attentionLineOptions()
      .then((items) => setLines(items.map((item) => ({ value: item.id, label: item.name }))))
      .catch(() => setLines([]));
  }, [api]);

  const scopes = PREDEFINED_MESSAGE_SCOPES.map((scope) => ({ value: scope, label: t(`admin.predefined.scopes.${scope}`) }));
  return (
    <AdminFormPage
      route={route}
      resource="predefined-messages"
      listPath={LIST}
      form={form}
      id={id}
      load={async (rowId) => {
        const row = await api.admin.get<PredefinedMessageSummary>('predefined-messages', rowId);
        return { message: row.message, shortcut: row.shortcut, scope: row.scope, attentionLineId: row.attentionLineId ?? '' };
      }}
      toBody={(v) => ({
        ...v,
        shortcut: normalizePredefinedShortcut(v.shortcut),
        attentionLineId: v.scope === 'line' ? v.attentionLineId || null : null,
      })}
    >
      <TextInput
        id="predefined-shortcut"
        label={t('admin.predefined.shortcut')}
        hint={t('admin.predefined.shortcutHint')}
        value={values.shortcut}
        onChange={set('shortcut')}
        onBlur={blur('shortcut')}
        error={shortcutMisformatted ? t('admin.predefined.shortcutPattern') : shortcutError}
      />
      <SelectInput
        id="predefined-scope"
        label={t('admin.predefined.scope')}
        value={values.scope}
        options={scopes}
        onChange={(value) => set('scope')(value as PredefinedMessageScope)}
        error={errorFor('scope')}
      />
      {values.scope === 'line' && (
        <SelectInput
          id="predefined-line"
          label={t('admin.predefined.attentionLine')}
          value={values.attentionLineId}
          options={lines}
          placeholder={t('admin.form.choose')}
          onChange={set('attentionLineId')}
          error={errorFor('attentionLineId')}
        />
      )}
      <TextArea
        id="predefined-message"
        wide
        rows={6}
        label={t('admin.predefined.message')}
        value={values.message}
        onChange={set('message')}
        onBlur={blur('message')}
        error={errorFor('message')}
        hint={t('admin.form.characters', { count: values.message.length, max: ADMIN_LIMITS.predefinedMessageMax })}
      />
    </AdminFormPage>
  );
}
