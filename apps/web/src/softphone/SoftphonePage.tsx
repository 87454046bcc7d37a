import { useTranslation } from 'react-i18next';
import type { AppRoute } from '@centralita/contracts';
import { PageHeader } from '../layout/PageHeader';
import { SoftphoneAdmin } from './SoftphoneAdmin';
import { SoftphonePanel } from './SoftphonePanel';

/** /SoftPhoneNew/Phone: the agent's softphone on a page of its own. */
export function SoftphonePage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  return (
    <section className="softphone-page" data-testid="softphone-page">
      <PageHeader title={t(`routes.${route.titleKey}`)} icon={route.icon} subtitle={t('softphone.subtitle')} />
      <div className="softphone-page__grid">
        <div className="softphone-page__card">
          <SoftphonePanel />
        </div>
        <SoftphoneAdmin />
      </div>
    </section>
  );
}
