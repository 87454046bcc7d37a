import { useEffect, useMemo, useState } from 'react';
import { Button } from 'primereact/button';
import { Dialog } from 'primereact/dialog';
import { Dropdown } from 'primereact/dropdown';
import { InputText } from 'primereact/inputtext';
import { InputTextarea } from 'primereact/inputtextarea';
import { useTranslation } from 'react-i18next';
import {
  CASE_LIMITS,
  CASE_STATUSES,
  validateCase,
  type CaseDetail,
  type CaseInput,
  type CaseOptions,
  type GeoArea,
  type RuleIssue,
} from '@centralita/contracts';
import { describeError } from '../api/error-text';
import { isApiError } from '../api/api-error';
import { FieldShell } from '../admin/fields';
import { issuesByField, serverIssues } from '../admin/admin-logic';
import { orNull } from './case-logic';
import type { CrmApi } from './crm-api';

type Draft = Record<keyof CaseInput, string>;

const EMPTY: Draft = {
  typeId: '',
  subject: '',
  description: '',
  status: 'open',
  ownerId: '',
  contactName: '',
  contactEmail: '',
  contactPhone: '',
  provinceId: '',
  cantonId: '',
  districtId: '',
  identificationTypeId: '',
  identificationNumber: '',
};

function draftOf(detail: CaseDetail | null, prefill: Partial<Draft>): Draft {
  if (!detail) return { ...EMPTY, ...prefill };
  const out = { ...EMPTY };
  for (const key of Object.keys(EMPTY) as (keyof CaseInput)[]) out[key] = String((detail as unknown as Record<string, unknown>)[key] ?? '');
  return out;
}

export interface CaseFormDialogProps {
  api: CrmApi;
  options: CaseOptions;
  /** The case being edited; null creates one. */
  editing: CaseDetail | null;
  /** Values a new case starts with (the desk's contact data). */
  prefill?: Partial<Draft>;
  /** A conversation the new case is linked to. */
  conversationId?: string;
  onHide(): void;
  onSaved(detail: CaseDetail): void;
}

/** Create or edit a case: type, subject, description, contact, province → canton → district cascade, identification. */
export function CaseFormDialog({ api, options, editing, prefill = {}, conversationId, onHide, onSaved }: CaseFormDialogProps) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState<Draft>(() => draftOf(editing, prefill));
  const [cantons, setCantons] = useState<GeoArea[]>([]);
  const [districts, setDistricts] = useState<GeoArea[]>([]);
  const [submitted, setSubmitted] = useState(false);
  const [serverProblems, setServerProblems] = useState<RuleIssue[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    if (!draft.provinceId) return setCantons([]);
    let live = true;
    api
      .geo('canton', draft.provinceId)
      .then((rows) => live && setCantons(rows))
      .catch(() => live && setCantons([]));
    return () => {
      live = false;
    };
  }, [api, draft.provinceId]);
  useEffect(() => {
    if (!draft.cantonId) return setDistricts([]);
    let live = true;
    api
      .geo('district', draft.cantonId)
      .then((rows) => live && setDistricts(rows))
      .catch(() => live && setDistricts([]));
    return () => {
      live = false;
    };
  }, [api, draft.cantonId]);

  const idType = options.identificationTypes.find((type) => type.id === draft.identificationTypeId) ?? null;
  const issues = useMemo(
    () => issuesByField([...validateCase(draft as Partial<CaseInput>, idType?.pattern ?? null), ...serverProblems]),
    [draft, idType, serverProblems],
  );
  const message = (field: keyof CaseInput) =>
    submitted && issues[field] ? t(`validation.${issues[field].key}`, issues[field].values) : null;
  const set = (changes: Partial<Draft>) => {
    setServerProblems([]);
    setDraft((current) => ({ ...current, ...changes }));
  };

  const save = async () => {
    setSubmitted(true);
    setError(null);
    if (validateCase(draft as Partial<CaseInput>, idType?.pattern ?? null).length) return;
    const body: Partial<CaseInput> = {
      typeId: orNull(draft.typeId),
      subject: draft.subject.trim(),
      description: draft.description.trim(),
      status: draft.status as CaseInput['status'],
      ownerId: orNull(draft.ownerId),
      contactName: orNull(draft.contactName),
      contactEmail: orNull(draft.contactEmail),
      contactPhone: orNull(draft.contactPhone),
      provinceId: orNull(draft.provinceId),
      cantonId: orNull(draft.cantonId),
      districtId: orNull(draft.districtId),
      identificationTypeId: orNull(draft.identificationTypeId),
      identificationNumber: orNull(draft.identificationNumber),
    };
    setSaving(true);
    try {
      onSaved(editing ? await api.update(editing.id, body) : await api.create({ ...body, ...(conversationId ? { conversationId } : {}) }));
    } catch (e) {
      const problems = isApiError(e) ? serverIssues(e.data) : [];
      if (problems.length) setServerProblems(problems);
      else setError(describeError(e, t));
    } finally {
      setSaving(false);
    }
  };

  const dropdown = (
    field: keyof CaseInput,
    label: string,
    items: { value: string; label: string }[],
    extra: { onChange?(value: string): void; disabled?: boolean } = {},
  ) => (
    <FieldShell id={`case-${field}`} label={label} error={message(field)}>
      <Dropdown
        inputId={`case-${field}`}
        data-testid={`case-${field}`}
        value={draft[field] || null}
        options={items}
        placeholder={t('crm.form.select')}
        showClear={field !== 'status'}
        filter={items.length > 8}
        disabled={extra.disabled}
        emptyMessage={t('crm.form.noOptions')}
        onChange={(event) => (extra.onChange ?? ((value: string) => set({ [field]: value })))((event.value as string | null) ?? '')}
      />
    </FieldShell>
  );
  const text = (field: keyof CaseInput, label: string, max: number, type = 'text') => (
    <FieldShell id={`case-${field}`} label={label} error={message(field)}>
      <InputText
        id={`case-${field}`}
        data-testid={`case-${field}`}
        type={type}
        value={draft[field]}
        maxLength={max}
        invalid={!!message(field)}
        onChange={(event) => set({ [field]: event.target.value })}
      />
    </FieldShell>
  );
  const area = (rows: GeoArea[]) => rows.map((row) => ({ value: row.id, label: row.name }));

  return (
    <Dialog
      header={editing ? t('crm.form.editTitle', { code: editing.code }) : t('crm.form.createTitle')}
      visible
      onHide={onHide}
      style={{ width: 'min(48rem, 96vw)' }}
      data-testid="case-form"
      footer={
        <>
          <Button label={t('crm.form.cancel')} text onClick={onHide} />
          <Button label={t('crm.form.save')} icon="pi pi-check" loading={saving} onClick={() => void save()} data-testid="case-save" />
        </>
      }
    >
      {error && (
        <div className="form-error" role="alert">
          <i className="pi pi-times-circle" aria-hidden="true" />
          <span>{error}</span>
        </div>
      )}
      <h3 className="crm-form__section">{t('crm.form.caseSection')}</h3>
      <div className="crm-form__grid">
        {dropdown(
          'typeId',
          t('crm.form.type'),
          options.types.map((type) => ({ value: type.id, label: t(`crm.types.${type.code}`, { defaultValue: type.name }) })),
        )}
        {dropdown(
          'status',
          t('crm.form.status'),
          CASE_STATUSES.map((status) => ({ value: status, label: t(`crm.status.${status}`) })),
        )}
        {dropdown(
          'ownerId',
          t('crm.form.owner'),
          options.users.map((user) => ({ value: user.id, label: user.name })),
        )}
        {text('subject', t('crm.form.subject'), CASE_LIMITS.subjectMax)}
        <div className="crm-form__wide">
          <FieldShell id="case-description" label={t('crm.form.description')} error={message('description')}>
            <InputTextarea
              id="case-description"
              data-testid="case-description"
              value={draft.description}
              rows={4}
              autoResize
              maxLength={CASE_LIMITS.descriptionMax}
              invalid={!!message('description')}
              onChange={(event) => set({ description: event.target.value })}
            />
          </FieldShell>
        </div>
      </div>
      <h3 className="crm-form__section">{t('crm.form.contactSection')}</h3>
      <div className="crm-form__grid">
        {text('contactName', t('crm.form.contactName'), CASE_LIMITS.contactNameMax)}
        {text('contactEmail', t('crm.form.contactEmail'), CASE_LIMITS.contactEmailMax, 'email')}
        {text('contactPhone', t('crm.form.contactPhone'), CASE_LIMITS.contactPhoneMax, 'tel')}
        {dropdown(
          'identificationTypeId',
          t('crm.form.idType'),
          options.identificationTypes.map((type) => ({ value: type.id, label: type.name })),
        )}
        {text('identificationNumber', t('crm.form.idNumber'), CASE_LIMITS.idNumberMax)}
        {dropdown('provinceId', t('crm.form.province'), area(options.provinces), {
          onChange: (value) => set({ provinceId: value, cantonId: '', districtId: '' }),
        })}
        {dropdown('cantonId', t('crm.form.canton'), area(cantons), {
          disabled: !draft.provinceId,
          onChange: (value) => set({ cantonId: value, districtId: '' }),
        })}
        {dropdown('districtId', t('crm.form.district'), area(districts), { disabled: !draft.cantonId })}
      </div>
    </Dialog>
  );
}
