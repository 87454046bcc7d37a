import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import type { MenuItem } from '@centralita/contracts';
import { useTranslation } from 'react-i18next';
import { useApi, useAuthSelector } from '../app/ServicesContext';
import { describeError } from '../api/error-text';
import { useToast } from '../toast/ToastProvider';

export type MenuState =
  | { status: 'loading'; items: MenuItem[] }
  | { status: 'ready'; items: MenuItem[] }
  | { status: 'error'; items: MenuItem[]; error: unknown };

interface MenuContextValue {
  menu: MenuState;
  reload(): void;
}

const MenuContext = createContext<MenuContextValue | null>(null);

/** The side navigation comes from the server, per role (spec §2); loaded once per signed-in user. */
export function MenuProvider({ children }: { children: ReactNode }) {
  const api = useApi();
  const userId = useAuthSelector((s) => (s.matches('authenticated') ? (s.context.user?.id ?? null) : null));
  const [menu, setMenu] = useState<MenuState>({ status: 'loading', items: [] });
  const [attempt, setAttempt] = useState(0);
  const toast = useToast();
  const { t } = useTranslation();

  useEffect(() => {
    if (!userId) {
      setMenu({ status: 'loading', items: [] });
      return;
    }
    let cancelled = false;
    setMenu((m) => ({ status: 'loading', items: m.items }));
    api
      .menu()
      .then((items) => {
        if (!cancelled) setMenu({ status: 'ready', items: Array.isArray(items) ? items : [] });
      })
      .catch((error: unknown) => {
        if (cancelled) return;
        setMenu({ status: 'error', items: [], error });
        toast.error(t('sidebar.error'), describeError(error, t));
      });
    return () => {
      cancelled = true;
    };
    // t is left out on purpose: a language switch must not reload the menu.
  }, [api, userId, attempt, toast]);

  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  return <MenuContext.Provider value={{ menu, reload }}>{children}</MenuContext.Provider>;
}

export function useMenu(): MenuContextValue {
  const value = useContext(MenuContext);
  if (!value) throw new Error('useMenu must be used inside <MenuProvider>');
  return value;
}
