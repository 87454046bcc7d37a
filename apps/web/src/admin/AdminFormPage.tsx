import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { Button } from 'primereact/button';
import { useTranslation } from 'react-i18next';
import type { AppRoute } from '@centralita/contracts';
import { isApiError } from '../api/api-error';
import { describeError, type FieldLabel } from '../api/error-text';
import { useApi } from '../app/ServicesContext';
import { PageHeader } from '../layout/PageHeader';
import { useToast } from '../toast/ToastProvider';
import { formTitleKey, type FormResource } from './admin-logic';
import type { AdminFormApi } from './useAdminForm';

/** The id of the row an edit screen works on (?id=), or null on an add screen. */
export function useEditId(): string | null {
  const [params] = useSearchParams();
  return params.get('id');
}

interface AdminFormPageProps<V extends Record<string, unknown>> {
  route: AppRoute;
  resource: FormResource;
  listPath: string;
  form: AdminFormApi<V>;
  id: string | null;
  /** Loads the row as form values (edit screens). */
  load(id: string): Promise<V>;
  toBody(values: V): unknown;
  /** The toast after a create (default admin.form.saved), e.g. "invitation sent to …". */
  createdMessage?(values: V): string;
  /** The form's own label of a request field, for the API's refusals ("Identifier: …"). */
  fieldLabel?: FieldLabel;
  children: ReactNode;
}

/** Add/edit shell of every admin area: loads, validates with the shared rules, saves, returns to the list. */
export function AdminFormPage<V extends Record<string, unknown>>({
  route,
  resource,
  listPath,
  form,
  id,
  load,
  toBody,
  createdMessage,
  fieldLabel,
  children,
}: AdminFormPageProps<V>) {
  const { t } = useTranslation();
  const api = useApi();
  const toast = useToast();
  const navigate = useNavigate();
  const [loading, setLoading] = useState(id !== null);
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const { setValues } = form;

  useEffect(() => {
    if (!id) return;
    let live = true;
    setLoading(true);
    load(id)
      .then((values) => live && setValues(values))
      .catch((e: unknown) => live && setFailure(describeError(e, t)))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
    // load is a fresh closure each render; the row only changes with the id.
  }, [id]);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (!form.submit() || saving) return;
    setSaving(true);
    setFailure(null);
    try {
      const body = toBody(form.values);
      if (id) await api.admin.update(resource, id, body);
      else await api.admin.create(resource, body);
      toast.success(!id && createdMessage ? createdMessage(form.values) : t('admin.form.saved'));
      navigate(listPath);
    } catch (e) {
      if (isApiError(e)) form.showServerError(e);
      setFailure(describeError(e, t, { fieldLabel }));
    } finally {
      setSaving(false);
    }
  };

  return (
    <>
      <PageHeader title={t(formTitleKey(resource, id !== null))} icon={route.icon ?? (id ? 'pi pi-pencil' : 'pi pi-plus')} />
      <form
        className="card admin-form"
        noValidate
        onSubmit={(e) => void onSubmit(e)}
        aria-busy={loading || saving}
        data-testid="admin-form"
      >
        {loading ? <p className="muted">{t('common.loading')}</p> : <div className="admin-form__grid">{children}</div>}
        {failure && (
          <div className="form-error" role="alert" data-testid="admin-form-error">
            <i className="pi pi-times-circle" aria-hidden="true" />
            <span>{failure}</span>
          </div>
        )}
        <div className="admin-form__actions">
          <Button type="button" label={t('admin.form.cancel')} text onClick={() => navigate(listPath)} data-testid="admin-cancel" />
          <Button
            type="submit"
            icon="pi pi-check"
            label={t('admin.form.save')}
            loading={saving}
            disabled={loading || saving}
            data-testid="admin-save"
          />
        </div>
      </form>
    </>
  );
}
