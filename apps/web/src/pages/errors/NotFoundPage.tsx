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
  // A page opened directly has nowhere to go back to; the dashboard is the next best place.
  const goBack = () => (window.history.length > 1 ? navigate(-1) : navigate('/', { replace: true }));
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
