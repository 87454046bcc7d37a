import { useEffect, useMemo, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { Button } from 'primereact/button';
import { useTranslation } from 'react-i18next';
import type { CaseOptions, ConversationCase, ConversationView } from '@centralita/contracts';
import { describeError } from '../api/error-text';
import { useServices } from '../app/ServicesContext';
import { useToast } from '../toast/ToastProvider';
import { CaseFormDialog } from './CaseFormDialog';
import { createCrmApi } from './crm-api';

/**
 * The desk's "Case" action for the selected conversation: the linked case (opens it in
 * /crm/crmlist), or "Create case", which opens the form prefilled from the contact.
 */
export function DeskCaseAction({ conversation }: { conversation: ConversationView }) {
  const { t } = useTranslation();
  const { client } = useServices();
  const toast = useToast();
  const navigate = useNavigate();
  const api = useMemo(() => createCrmApi(client), [client]);
  const [linked, setLinked] = useState<ConversationCase | null>(null);
  const [options, setOptions] = useState<CaseOptions | null>(null);
  const [creating, setCreating] = useState(false);
  const id = conversation.id;

  useEffect(() => {
    let live = true;
    setLinked(null);
    api
      .byConversation(id)
      .then((value) => live && setLinked(value))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [api, id]);

  const startCreate = async () => {
    try {
      setOptions(options ?? (await api.options()));
      setCreating(true);
    } catch (e) {
      toast.error(describeError(e, t));
    }
  };

  const current = linked && linked.conversationId === id ? linked : null;
  return (
    <div className="crm-desk" data-testid="desk-case">
      <h3 className="desk-customer__subtitle">{t('crm.desk.title')}</h3>
      {!current ? (
        <p className="muted" role="status">
          {t('crm.desk.loading')}
        </p>
      ) : current.caseId ? (
        <Button
          icon="pi pi-briefcase"
          label={t('crm.desk.openCase', { code: current.caseCode })}
          outlined
          size="small"
          onClick={() => navigate(`/crm/crmlist?case=${current.caseId}`)}
          data-testid="desk-case-open"
        />
      ) : (
        <Button
          icon="pi pi-plus"
          label={t('crm.desk.createCase')}
          size="small"
          onClick={() => void startCreate()}
          data-testid="desk-case-create"
        />
      )}
      {creating && options && current && (
        <CaseFormDialog
          api={api}
          options={options}
          editing={null}
          conversationId={id}
          prefill={{
            contactName: current.prefill.contactName ?? '',
            contactEmail: current.prefill.contactEmail ?? '',
            contactPhone: current.prefill.contactPhone ?? '',
          }}
          onHide={() => setCreating(false)}
          onSaved={(saved) => {
            setCreating(false);
            setLinked({ ...current, caseId: saved.id, caseCode: saved.code });
            toast.success(t('crm.form.created', { code: saved.code }));
          }}
        />
      )}
    </div>
  );
}
