import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** The three states every desk list has: still loading, loaded but empty, or its content. */
export function ListState({
  loading,
  empty,
  emptyText,
  emptyTestId,
  loadingClassName = 'muted',
  children,
}: {
  loading?: boolean;
  empty: boolean;
  emptyText: string;
  emptyTestId?: string;
  loadingClassName?: string;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  if (loading)
    return (
      <p className={loadingClassName} role="status">
        {t('common.loading')}
      </p>
    );
  if (empty)
    return (
      <p className="muted desk-empty" data-testid={emptyTestId}>
        {emptyText}
      </p>
    );
  return <>{children}</>;
}
