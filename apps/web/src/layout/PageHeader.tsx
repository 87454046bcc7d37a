import type { ReactNode } from 'react';
import { iconClass } from '../menu/menu-utils';

interface PageHeaderProps {
  title: string;
  icon?: string;
  subtitle?: ReactNode;
  actions?: ReactNode;
}

export function PageHeader({ title, icon, subtitle, actions }: PageHeaderProps) {
  return (
    <header className="page-header">
      <span className="page-header__icon" aria-hidden="true">
        <i className={iconClass(icon, 'pi pi-th-large')} />
      </span>
      <div className="page-header__text">
        <h1 className="page-header__title" data-testid="page-title">
          {title}
        </h1>
        {subtitle && <p className="page-header__subtitle">{subtitle}</p>}
      </div>
      {actions && <div className="page-header__actions">{actions}</div>}
    </header>
  );
}
