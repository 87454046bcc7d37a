import { useEffect, useState } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { Dialog } from 'primereact/dialog';
import { useTranslation } from 'react-i18next';
import { DEFAULT_PLATFORM_SETTINGS } from '@centralita/contracts';
import { useAuthSelector, useServices } from '../app/ServicesContext';
import { idleMachine, secondsLeft } from '../auth/idle.machine';
import { LAST_ACTIVITY_KEY } from '../auth/session-store';
import { DialogFooter } from '../components/DialogFooter';

/** What counts as the user being there: pointer, keyboard and touch anywhere, and the window getting focus. */
const ACTIVITY_EVENTS = ['pointerdown', 'pointermove', 'keydown', 'wheel', 'touchstart'] as const;
/** Pointer moves come by the dozen a second: a few seconds' precision is plenty for a timeout in minutes. */
const ACTIVITY_THROTTLE_MS = 5_000;

/**
 * Signs the user out after the tenant's idle time (platform settings), warning a minute before.
 * Lives in the signed-in layout; the minutes come with the session user.
 */
export function IdleSignOut() {
  const minutes = useAuthSelector((s) => s.context.user?.idleLogoutMinutes);
  // A session stored before the setting was sent has no value: the platform default applies.
  const idleMinutes = typeof minutes === 'number' && minutes > 0 ? minutes : DEFAULT_PLATFORM_SETTINGS.idleLogoutMinutes;
  return <IdleWatch key={idleMinutes} idleMinutes={idleMinutes} />;
}

function IdleWatch({ idleMinutes }: { idleMinutes: number }) {
  const { t } = useTranslation();
  const { storage, auth } = useServices();
  const [machine] = useState(() =>
    idleMachine.provide({
      actions: {
        shareActivity: (_, { at }) => storage.setItem(LAST_ACTIVITY_KEY, String(at)),
        // The user menu's own path: the server revokes the session's refresh family.
        signOut: () => auth.send({ type: 'auth.logout', reason: 'idle' }),
      },
    }),
  );
  const idle = useActorRef(machine, { input: { idleMinutes, now: Date.now() } });
  const warning = useSelector(idle, (snapshot) => snapshot.matches('warning'));
  const now = useClock(warning);
  const seconds = useSelector(idle, (snapshot) => secondsLeft(snapshot, now));

  useEffect(() => {
    // Opening or reloading a tab is activity too, and tells the other tabs.
    idle.send({ type: 'idle.activity', at: Date.now() });
    let sentAt = Date.now();
    const onActivity = () => {
      const now = Date.now();
      if (now - sentAt < ACTIVITY_THROTTLE_MS) return;
      sentAt = now;
      idle.send({ type: 'idle.activity', at: now });
    };
    const onStorage = (event: StorageEvent) => {
      const at = event.key === LAST_ACTIVITY_KEY && event.newValue ? Number(event.newValue) : NaN;
      if (Number.isFinite(at)) idle.send({ type: 'idle.sharedActivity', at });
    };
    const options = { capture: true, passive: true };
    for (const type of ACTIVITY_EVENTS) window.addEventListener(type, onActivity, options);
    // Not captured: only the window's own focus (back to this tab), not the page moving focus itself.
    window.addEventListener('focus', onActivity);
    window.addEventListener('storage', onStorage);
    return () => {
      for (const type of ACTIVITY_EVENTS) window.removeEventListener(type, onActivity, options);
      window.removeEventListener('focus', onActivity);
      window.removeEventListener('storage', onStorage);
    };
  }, [idle]);

  const stay = () => idle.send({ type: 'idle.stay', at: Date.now() });
  return (
    <Dialog
      header={t('auth.idle.title')}
      visible={warning}
      onHide={stay}
      style={{ width: 'min(28rem, 96vw)' }}
      modal
      data-testid="idle-warning"
      footer={
        <DialogFooter
          cancel={{ label: t('auth.idle.signOut'), onClick: () => idle.send({ type: 'idle.signOut' }), testId: 'idle-sign-out' }}
          action={{ label: t('auth.idle.stay'), icon: 'pi pi-check', onClick: stay, testId: 'idle-stay' }}
        />
      }
    >
      <p role="alert" data-testid="idle-countdown">
        {t('auth.idle.message', { seconds })}
      </p>
    </Dialog>
  );
}

/** The time, ticking once a second while `running` (the warning's countdown). */
function useClock(running: boolean): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (!running) return;
    setNow(Date.now());
    const timer = window.setInterval(() => setNow(Date.now()), 1_000);
    return () => window.clearInterval(timer);
  }, [running]);
  return now;
}
