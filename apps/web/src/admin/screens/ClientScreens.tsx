import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Button } from 'primereact/button';
import { useTranslation } from 'react-i18next';
import { validateClient, type AppRoute, type ClientSummary } from '@centralita/contracts';
import { describeError } from '../../api/error-text';
import { useApi, useAuth } from '../../app/ServicesContext';
import { useBranding } from '../../branding/BrandingProvider';
import { formatNullable } from '../../format/format';
import { PageHeader } from '../../layout/PageHeader';
import { useToast } from '../../toast/ToastProvider';
import { AdminFormPage, useEditId } from '../AdminFormPage';
import { AdminListPage } from '../AdminListPage';
import { TextInput, TextArea } from '../fields';
import { useAdminForm } from '../useAdminForm';

const LIST = '/clients/ClientList';

export function ClientListPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  return (
    <AdminListPage<ClientSummary>
      route={route}
      resource="clients"
      auditType="client"
      addPath="/clients/Add"
      editPath="/clients/Update"
      describe={(row) => row.name}
      columns={[
        {
          field: 'name',
          header: t('admin.clients.name'),
          sortable: true,
          body: (row) => (
            <span className="client-name">
              {row.menuLogoUrl && <img src={row.menuLogoUrl} alt="" className="client-name__logo" />}
              <strong>{row.name}</strong>
            </span>
          ),
        },
        {
          field: 'mainColor',
          header: t('admin.clients.mainColor'),
          body: (row) =>
            row.mainColor ? (
              <span className="client-colour">
                <span className="swatch" style={{ background: row.mainColor }} aria-hidden="true" /> <code>{row.mainColor}</code>
              </span>
            ) : (
              formatNullable(null, t)
            ),
        },
        {
          field: 'subscriptionPlan',
          header: t('admin.clients.subscriptionPlan'),
          sortable: true,
          body: (row) => formatNullable(row.subscriptionPlan, t),
        },
      ]}
    />
  );
}

type ClientValues = {
  name: string;
  bannerUrl: string;
  loginImageUrl: string;
  mainColor: string;
  menuLogoUrl: string;
  completeMenuLogoUrl: string;
  subscriptionPlan: string;
  /** One origin per line in the form; an array on the wire. */
  allowedOrigins: string;
};
const originLines = (text: string): string[] =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
const EMPTY: ClientValues = {
  name: '',
  bannerUrl: '',
  loginImageUrl: '',
  mainColor: '',
  menuLogoUrl: '',
  completeMenuLogoUrl: '',
  subscriptionPlan: '',
  allowedOrigins: '',
};
const FIELDS = ['bannerUrl', 'loginImageUrl', 'menuLogoUrl', 'completeMenuLogoUrl'] as const;

/** /clients/Add and /clients/Update?id= ; saving the caller's own tenant refreshes the console branding at once. */
export function ClientFormPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const api = useApi();
  const id = useEditId();
  const { user } = useAuth();
  const { refresh } = useBranding();
  const form = useAdminForm<ClientValues>(
    EMPTY,
    useCallback((v: ClientValues) => validateClient({ ...v, allowedOrigins: originLines(v.allowedOrigins) }), []),
  );
  const { values, set, blur, errorFor } = form;
  useEffect(() => {
    // AdminFormPage navigates back after a save; the branding of the own tenant is fetched again then.
    return () => {
      if (id && id === user?.clientId) refresh?.();
    };
  }, [id, user?.clientId, refresh]);
  return (
    <AdminFormPage
      route={route}
      resource="clients"
      listPath={LIST}
      form={form}
      id={id}
      load={async (rowId) => {
        const row = await api.admin.get<ClientSummary>('clients', rowId);
        return {
          name: row.name,
          bannerUrl: row.bannerUrl ?? '',
          loginImageUrl: row.loginImageUrl ?? '',
          mainColor: row.mainColor ?? '',
          menuLogoUrl: row.menuLogoUrl ?? '',
          completeMenuLogoUrl: row.completeMenuLogoUrl ?? '',
          subscriptionPlan: row.subscriptionPlan ?? '',
          allowedOrigins: row.allowedOrigins.join('\n'),
        };
      }}
      toBody={({ allowedOrigins, ...v }) => ({
        ...Object.fromEntries(Object.entries(v).map(([k, value]) => [k, value.trim() || null])),
        allowedOrigins: originLines(allowedOrigins),
      })}
    >
      <TextInput
        id="client-name"
        label={t('admin.clients.name')}
        value={values.name}
        onChange={set('name')}
        onBlur={blur('name')}
        error={errorFor('name')}
      />
      <TextInput
        id="client-plan"
        label={t('admin.clients.subscriptionPlan')}
        value={values.subscriptionPlan}
        onChange={set('subscriptionPlan')}
        error={errorFor('subscriptionPlan')}
      />
      <TextInput
        id="client-colour"
        label={t('admin.clients.mainColor')}
        hint="#2563eb"
        value={values.mainColor}
        onChange={set('mainColor')}
        onBlur={blur('mainColor')}
        error={errorFor('mainColor')}
      />
      <div className="admin-field client-preview">
        {values.mainColor && /^#[0-9a-fA-F]{6}$/.test(values.mainColor) && (
          <span className="swatch swatch--lg" style={{ background: values.mainColor }} aria-hidden="true" />
        )}
        {values.menuLogoUrl && <img src={values.menuLogoUrl} alt="" className="client-preview__logo" />}
      </div>
      {FIELDS.map((field) => (
        <TextInput
          key={field}
          id={`client-${field}`}
          type="url"
          wide
          label={t(`admin.clients.${field}`)}
          value={values[field]}
          onChange={set(field)}
          onBlur={blur(field)}
          error={errorFor(field)}
        />
      ))}
      <TextArea
        id="client-allowedOrigins"
        wide
        rows={3}
        label={t('admin.clients.allowedOrigins')}
        hint={t('admin.clients.allowedOriginsHint')}
        value={values.allowedOrigins}
        onChange={set('allowedOrigins')}
        onBlur={blur('allowedOrigins')}
        error={errorFor('allowedOrigins')}
      />
    </AdminFormPage>
  );
}

/** /reseller/resellerSubmit: the brand (reseller) name. */
export function ResellerPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const api = useApi();
  const toast = useToast();
  const [name, setName] = useState('');
  const [failure, setFailure] = useState<string | null>(null);
  const [submitted, setSubmitted] = useState(false);
  useEffect(() => {
    api.admin
      .reseller()
      .then((r) => setName(r.name))
      .catch((e: unknown) => setFailure(describeError(e, t)));
  }, [api, t]);
  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    if (!name.trim()) return;
    try {
      await api.admin.saveReseller(name.trim());
      toast.success(t('admin.form.saved'));
      setFailure(null);
    } catch (e) {
      setFailure(describeError(e, t));
    }
  };
  return (
    <>
      <PageHeader title={t(`routes.${route.titleKey}`)} icon={route.icon} />
      <form className="card admin-form" noValidate onSubmit={(e) => void onSubmit(e)} data-testid="admin-form">
        <div className="admin-form__grid">
          <TextInput
            id="reseller-name"
            label={t('admin.clients.resellerName')}
            value={name}
            onChange={setName}
            error={submitted && !name.trim() ? t('validation.required') : null}
          />
        </div>
        {failure && (
          <div className="form-error" role="alert">
            {failure}
          </div>
        )}
        <div className="admin-form__actions">
          <Button type="submit" icon="pi pi-check" label={t('admin.form.save')} data-testid="admin-save" />
        </div>
      </form>
    </>
  );
}
