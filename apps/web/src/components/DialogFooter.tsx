import { Button } from 'primereact/button';
import { ConfirmDialog } from 'primereact/confirmdialog';
import type { ReactNode } from 'react';

interface Action {
  label: string;
  icon?: string;
  severity?: 'danger';
  loading?: boolean;
  onClick(): void;
  testId?: string;
}

/** A dialog's buttons: a quiet way out, then the action (the console's one layout for both). */
export function DialogFooter({ cancel, action }: { cancel: Omit<Action, 'icon' | 'severity' | 'loading'>; action: Action }) {
  return (
    <div className="admin-confirm__footer">
      <Button label={cancel.label} text onClick={cancel.onClick} data-testid={cancel.testId} />
      <Button
        label={action.label}
        icon={action.icon}
        severity={action.severity}
        loading={action.loading}
        onClick={action.onClick}
        data-testid={action.testId}
      />
    </div>
  );
}

/** "Are you sure?" before a destructive action: the question, keep, and the action in red. */
export function ConfirmActionDialog({
  visible,
  onHide,
  header,
  message,
  keep,
  action,
}: {
  visible: boolean;
  onHide(): void;
  header: string;
  message: ReactNode;
  keep: { label: string; testId?: string };
  action: Omit<Action, 'severity'>;
}) {
  return (
    <ConfirmDialog
      visible={visible}
      onHide={onHide}
      header={header}
      message={message}
      icon="pi pi-exclamation-triangle"
      footer={<DialogFooter cancel={{ ...keep, onClick: onHide }} action={{ ...action, severity: 'danger' }} />}
    />
  );
}
