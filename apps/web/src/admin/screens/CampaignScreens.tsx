import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { ADMIN_LIMITS, validateCampaign, type AppRoute, type CampaignSummary } from '@centralita/contracts';
import { useApi } from '../../app/ServicesContext';
import { formatBoolean } from '../../format/format';
import { formatIsoDate } from '../admin-logic';
import { AdminFormPage, useEditId } from '../AdminFormPage';
import { AdminListPage } from '../AdminListPage';
import { CheckInput, DateInput, NumberInput, TextArea, TextInput } from '../fields';
import { useAdminForm } from '../useAdminForm';

const LIST = '/campaings/campaings';
const FORM = '/campaings/submitCampaings';

export function CampaignListPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const na = t('format.notAvailable');
  return (
    <AdminListPage<CampaignSummary>
      route={route}
      resource="campaigns"
      auditType="campaign"
      addPath={FORM}
      editPath={FORM}
      describe={(row) => row.name}
      columns={[
        { field: 'name', header: t('admin.campaigns.name'), sortable: true },
        { field: 'identifier', header: t('admin.campaigns.identifier'), sortable: true, body: (row) => <code>{row.identifier}</code> },
        { field: 'fromDate', header: t('admin.campaigns.fromDate'), sortable: true, body: (row) => formatIsoDate(row.fromDate, na) },
        { field: 'toDate', header: t('admin.campaigns.toDate'), sortable: true, body: (row) => formatIsoDate(row.toDate, na) },
        { field: 'allowedChatsPerAgent', header: t('admin.campaigns.allowedChatsPerAgent'), sortable: true, style: { width: '8rem' } },
        { field: 'customer', header: t('admin.campaigns.customer'), sortable: true, body: (row) => row.customer ?? na },
        { field: 'templateCampaign', header: t('admin.campaigns.templateCampaign'), body: (row) => formatBoolean(row.templateCampaign, t) },
      ]}
    />
  );
}

type CampaignValues = {
  name: string;
  description: string;
  fromDate: string;
  toDate: string;
  identifier: string;
  allowedChatsPerAgent: number | null;
  templateCampaign: boolean;
  customer: string;
};

const EMPTY: CampaignValues = {
  name: '',
  description: '',
  fromDate: '',
  toDate: '',
  identifier: '',
  allowedChatsPerAgent: 1,
  templateCampaign: false,
  customer: '',
};

export function CampaignFormPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const api = useApi();
  const id = useEditId();
  const form = useAdminForm<CampaignValues>(
    EMPTY,
    useCallback((v: CampaignValues) => validateCampaign(v), []),
  );
  const { values, set, blur, errorFor } = form;
  return (
    <AdminFormPage
      route={route}
      resource="campaigns"
      listPath={LIST}
      form={form}
      id={id}
      load={async (rowId) => {
        const row = await api.admin.get<CampaignSummary>('campaigns', rowId);
        return {
          name: row.name,
          description: row.description,
          fromDate: row.fromDate,
          toDate: row.toDate,
          identifier: row.identifier,
          allowedChatsPerAgent: row.allowedChatsPerAgent,
          templateCampaign: row.templateCampaign,
          customer: row.customer ?? '',
        };
      }}
      toBody={(v) => ({ ...v, customer: v.customer.trim() || null })}
      fieldLabel={(field) => t(`admin.campaigns.${field}`, { defaultValue: '' }) || undefined}
    >
      <TextInput
        id="campaign-name"
        label={t('admin.campaigns.name')}
        value={values.name}
        onChange={set('name')}
        onBlur={blur('name')}
        error={errorFor('name')}
      />
      <TextInput
        id="campaign-identifier"
        label={t('admin.campaigns.identifier')}
        hint={t('admin.campaigns.identifierHint', { count: ADMIN_LIMITS.campaignIdentifierMax })}
        value={values.identifier}
        onChange={set('identifier')}
        onBlur={blur('identifier')}
        error={errorFor('identifier')}
      />
      <TextArea
        id="campaign-description"
        wide
        label={t('admin.campaigns.description')}
        value={values.description}
        onChange={set('description')}
        onBlur={blur('description')}
        error={errorFor('description')}
        hint={t('admin.form.characters', { count: values.description.length, max: ADMIN_LIMITS.descriptionMax })}
      />
      <DateInput
        id="campaign-from"
        label={t('admin.campaigns.fromDate')}
        value={values.fromDate}
        onChange={set('fromDate')}
        onBlur={blur('fromDate')}
        error={errorFor('fromDate')}
      />
      <DateInput
        id="campaign-to"
        label={t('admin.campaigns.toDate')}
        value={values.toDate}
        onChange={set('toDate')}
        onBlur={blur('toDate')}
        error={errorFor('toDate')}
      />
      <NumberInput
        id="campaign-chats"
        label={t('admin.campaigns.allowedChatsPerAgent')}
        hint={t('admin.campaigns.allowedChatsHint', { min: ADMIN_LIMITS.minChatsPerAgent, max: ADMIN_LIMITS.maxChatsPerAgent })}
        value={values.allowedChatsPerAgent}
        onChange={set('allowedChatsPerAgent')}
        onBlur={blur('allowedChatsPerAgent')}
        error={errorFor('allowedChatsPerAgent')}
      />
      <TextInput
        id="campaign-customer"
        label={t('admin.campaigns.customer')}
        value={values.customer}
        onChange={set('customer')}
        onBlur={blur('customer')}
        error={errorFor('customer')}
      />
      <CheckInput
        id="campaign-template"
        label={t('admin.campaigns.templateCampaign')}
        checked={values.templateCampaign}
        onChange={set('templateCampaign')}
      />
    </AdminFormPage>
  );
}
