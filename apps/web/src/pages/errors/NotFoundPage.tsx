import { useNavigate } from 'react-router-dom';
import { Button } from 'primereact/button';
import { useTranslation } from 'react-i18next';
import { useDocumentTitle } from '../../hooks/useDocumentTitle';
import { LanguageSwitch } from '../../layout/LanguageSwitch';
import { NotFoundIllustration } from './NotFoundIllustration';

/** Unknown paths (spec §2): illustration and a button that goes back one step in history. */
export function NotFoundPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  useDocumentTitle(t('notFound.title'));
  // Back one step only when that step is a console page; a page opened directly (new tab, typed or
  // pasted link, another site before it) goes to the dashboard instead of leaving the console.
  const goBack = () => (canGoBackInConsole() ? navigate(-1) : navigate('/', { replace: true }));
  return (
    <div className="not-found" data-testid="not-found">
      <div className="not-found__lang">
        <LanguageSwitch className="language-switch--light" />
      </div>
      <div className="not-found__content">
        <NotFoundIllustration />
        <p className="not-found__code">{t('notFound.code')}</p>
        <h1 className="not-found__title" data-testid="page-title">
          {t('notFound.title')}
        </h1>
        <p className="not-found__message">{t('notFound.message')}</p>
        <Button data-testid="not-found-back" icon="pi pi-arrow-left" label={t('notFound.back')} onClick={goBack} />
      </div>
    </div>
  );
}

/**
 * True when the previous history entry belongs to the console: the router numbers its own entries
 * (history.state.idx, 0 for the entry the console was opened on), and a full page load from another
 * console page carries that page as a same-origin referrer.
 */
export function canGoBackInConsole(): boolean {
  if (window.history.length <= 1) return false;
  const idx = (window.history.state as { idx?: unknown } | null)?.idx;
  if (typeof idx === 'number' && idx > 0) return true;
  try {
    return document.referrer !== '' && new URL(document.referrer).origin === window.location.origin;
  } catch {
    return false;
  }
}
