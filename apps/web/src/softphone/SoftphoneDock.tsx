import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import { PERMISSIONS } from '@centralita/contracts';
import { useAuth } from '../app/ServicesContext';
import { hasPermission } from '../auth/permissions';
import { SoftphonePanel } from './SoftphonePanel';
import './softphone.css';

/**
 * The softphone docked in the agent desk, collapsed by default: it registers only once opened,
 * and collapsing it again keeps the phone (and its call) alive; closing it unregisters.
 */
export function SoftphoneDock() {
  const { t } = useTranslation();
  const [opened, setOpened] = useState(false);
  const [visible, setVisible] = useState(false);
  const { user } = useAuth();
  // A ringing call opens the dock (the panel scrolls its call into sight).
  const show = useCallback(() => setVisible(true), []);
  if (!hasPermission(user, PERMISSIONS.softphoneUse)) return null;
  return (
    <aside
      className={`softphone-dock${visible ? ' softphone-dock--open' : ''}`}
      aria-label={t('softphone.dock')}
      data-testid="softphone-dock"
    >
      <div className="softphone-dock__bar">
        <Button
          label={t('softphone.dock')}
          icon="pi pi-phone"
          size="small"
          outlined={!visible}
          aria-expanded={visible}
          onClick={() => {
            setOpened(true);
            setVisible((value) => !value);
          }}
          data-testid="softphone-dock-toggle"
        />
        {opened && (
          <Button
            icon="pi pi-power-off"
            size="small"
            text
            severity="secondary"
            aria-label={t('softphone.turnOff')}
            title={t('softphone.turnOff')}
            onClick={() => {
              setOpened(false);
              setVisible(false);
            }}
            data-testid="softphone-dock-off"
          />
        )}
      </div>
      {opened && (
        <div className="softphone-dock__panel" hidden={!visible}>
          <SoftphonePanel compact onRing={show} />
        </div>
      )}
    </aside>
  );
}
