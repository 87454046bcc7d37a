import { useEffect, useState } from 'react';
import { Dialog } from 'primereact/dialog';
import { useTranslation } from 'react-i18next';
import type { AuditEntry } from '@centralita/contracts';
import { describeError } from '../api/error-text';
import { useApi } from '../app/ServicesContext';
import { formatDateTime } from '../format/format';
import { auditChanges, auditValue } from './admin-logic';

interface AuditDialogProps {
  entityType: string;
  entityId: string | null;
  onHide(): void;
}

/** The audit trail of one row: who changed what, before and after (permission audit.view). */
export function AuditDialog({ entityType, entityId, onHide }: AuditDialogProps) {
  const { t } = useTranslation();
  const api = useApi();
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!entityId) return;
    let live = true;
    setEntries(null);
    setError(null);
    api.admin
      .audit(entityType, entityId)
      .then((page) => live && setEntries(page.items))
      .catch((e: unknown) => live && setError(describeError(e, t)));
    return () => {
      live = false;
    };
  }, [api, entityType, entityId, t]);

  const na = t('format.notAvailable');
  return (
    <Dialog header={t('admin.audit.title')} visible={entityId !== null} onHide={onHide} style={{ width: 'min(760px, 96vw)' }} modal>
      <div data-testid="admin-audit-dialog">
        {error && (
          <div className="form-error" role="alert">
            {error}
          </div>
        )}
        {!error && entries === null && <p className="muted">{t('common.loading')}</p>}
        {entries?.length === 0 && <p className="muted">{t('admin.audit.empty')}</p>}
        {entries?.map((entry) => (
          <section key={entry.id} className="audit-entry" data-testid="admin-audit-entry">
            <header className="audit-entry__head">
              <span className={`chip audit-entry__action audit-entry__action--${entry.action}`}>
                {t(`admin.audit.actions.${entry.action}`)}
              </span>
              <span>{entry.actorName ?? na}</span>
              <span className="muted">{formatDateTime(entry.createdAt, t)}</span>
            </header>
            <table className="audit-entry__table">
              <thead>
                <tr>
                  <th>{t('admin.audit.field')}</th>
                  <th>{t('admin.audit.before')}</th>
                  <th>{t('admin.audit.after')}</th>
                </tr>
              </thead>
              <tbody>
                {auditChanges(entry.before, entry.after).map((change) => (
                  <tr key={change.field}>
                    <td>
                      <code>{change.field}</code>
                    </td>
                    <td>{auditValue(change.before, na)}</td>
                    <td>{auditValue(change.after, na)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        ))}
      </div>
    </Dialog>
  );
}
