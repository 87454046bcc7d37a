import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { THEME_DEFAULTS } from '@centralita/contracts';
import type { StorageLike } from '../auth/session-store';
import { applyTheme, findTheme, THEME_STORAGE_KEY } from './themes';

export const SIDEBAR_STORAGE_KEY = 'sidebarMode';

interface Preferences {
  themeId: string;
  setTheme(id: string): void;
  sidebarCompact: boolean;
  toggleSidebar(): void;
}

const PreferencesContext = createContext<Preferences | null>(null);

/** Defaults of spec §9: theme 'blue', compact dark sidebar; the user's choices persist locally. */
function initialCompact(storage: StorageLike): boolean {
  const stored = storage.getItem(SIDEBAR_STORAGE_KEY);
  if (stored === 'compact') return true;
  if (stored === 'full') return false;
  return THEME_DEFAULTS.sidebar.startsWith('compact');
}

export function PreferencesProvider({ storage, children }: { storage: StorageLike; children: ReactNode }) {
  const [themeId, setThemeId] = useState(() => findTheme(storage.getItem(THEME_STORAGE_KEY)).id);
  const [sidebarCompact, setSidebarCompact] = useState(() => initialCompact(storage));

  useEffect(() => {
    applyTheme(findTheme(themeId));
  }, [themeId]);

  const setTheme = useCallback(
    (id: string) => {
      const theme = findTheme(id);
      storage.setItem(THEME_STORAGE_KEY, theme.id);
      setThemeId(theme.id);
    },
    [storage],
  );

  const toggleSidebar = useCallback(() => {
    setSidebarCompact((compact) => {
      storage.setItem(SIDEBAR_STORAGE_KEY, compact ? 'full' : 'compact');
      return !compact;
    });
  }, [storage]);

  const value = useMemo(() => ({ themeId, setTheme, sidebarCompact, toggleSidebar }), [themeId, setTheme, sidebarCompact, toggleSidebar]);
  return <PreferencesContext.Provider value={value}>{children}</PreferencesContext.Provider>;
}

export function usePreferences(): Preferences {
  const value = useContext(PreferencesContext);
  if (!value) throw new Error('usePreferences must be used inside <PreferencesProvider>');
  return value;
}
