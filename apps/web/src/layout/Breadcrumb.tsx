import { Fragment } from 'react';
import { Link, useLocation } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { breadcrumbSegments, humanise } from '../routing/route-table';

/** Home link, then the path's segments; the last crumb is the page title (spec §2). */
export function Breadcrumb({ title }: { title: string }) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  // A segment that says the same as the title (/users/Users) would only repeat it.
  const segments = breadcrumbSegments(pathname)
    .map((segment) => t(`segments.${segment}`, { defaultValue: humanise(segment) }))
    .filter((label) => label.toLocaleLowerCase() !== title.toLocaleLowerCase());
  return (
    <nav className="breadcrumb" aria-label={t('breadcrumb.label')} data-testid="breadcrumb">
      <ol className="breadcrumb__list">
        <li className="breadcrumb__item">
          <Link to="/" className="breadcrumb__home" aria-label={t('breadcrumb.home')} title={t('breadcrumb.home')}>
            <i className="pi pi-home" aria-hidden="true" />
          </Link>
        </li>
        {segments.map((segment, index) => (
          <Fragment key={`${segment}-${index}`}>
            <li className="breadcrumb__separator" aria-hidden="true">
              <i className="pi pi-angle-right" />
            </li>
            <li className="breadcrumb__item breadcrumb__segment">{segment}</li>
          </Fragment>
        ))}
        <li className="breadcrumb__separator" aria-hidden="true">
          <i className="pi pi-angle-right" />
        </li>
        <li className="breadcrumb__item breadcrumb__current" aria-current="page" data-testid="breadcrumb-title">
          {title}
        </li>
      </ol>
    </nav>
  );
}
