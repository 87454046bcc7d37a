import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { DEFAULT_BRANDING, type Branding } from '@centralita/contracts';
import { useApi, useAuthSelector, useServices } from '../app/ServicesContext';

const BRANDING_CACHE_KEY = 'branding';

interface BrandingState {
  branding: Branding;
  loading: boolean;
  /** Fetches the branding again (after an administrator changes it, so it shows at once). */
  refresh?: () => void;
}

const BrandingContext = createContext<BrandingState>({ branding: DEFAULT_BRANDING, loading: false });

function sanitise(value: Partial<Branding> | null | undefined): Branding {
  return {
    logoUrl: value?.logoUrl || DEFAULT_BRANDING.logoUrl,
    completeLogoUrl: value?.completeLogoUrl || DEFAULT_BRANDING.completeLogoUrl,
    mainColor: value?.mainColor ?? null,
    bannerUrl: value?.bannerUrl ?? null,
    loginImageUrl: value?.loginImageUrl ?? null,
  };
}

/**
 * Tenant logos: the signed-in tenant's branding, or a public tenant's (?clientId= on the
 * session pages). Spec §8: on failure the console's own default logos. The last branding is
 * cached so the loading screen can show the tenant's logo on the next visit.
 */
export function BrandingProvider({ children }: { children: ReactNode }) {
  const api = useApi();
  const { storage } = useServices();
  const userKey = useAuthSelector((s) => (s.matches('authenticated') ? `${s.context.user?.id}:${s.context.user?.clientId}` : null));
  const initialising = useAuthSelector((s) => s.matches('notInitialised'));
  const [state, setState] = useState<BrandingState>(() => {
    try {
      const cached = storage.getItem(BRANDING_CACHE_KEY);
      return { branding: cached ? sanitise(JSON.parse(cached) as Branding) : DEFAULT_BRANDING, loading: false };
    } catch {
      return { branding: DEFAULT_BRANDING, loading: false };
    }
  });

  const [version, setVersion] = useState(0);
  useEffect(() => {
    if (initialising) return;
    const clientId = new URLSearchParams(window.location.search).get('clientId');
    const request = userKey ? api.branding() : clientId ? api.publicBranding(clientId) : null;
    if (!request) return;
    let cancelled = false;
    setState((s) => ({ ...s, loading: true }));
    request
      .then((value) => sanitise(value))
      .catch(() => DEFAULT_BRANDING)
      .then((branding) => {
        if (cancelled) return;
        storage.setItem(BRANDING_CACHE_KEY, JSON.stringify(branding));
        setState({ branding, loading: false });
      });
    return () => {
      cancelled = true;
    };
  }, [api, storage, userKey, initialising, version]);

  const refresh = useCallback(() => setVersion((v) => v + 1), []);
  const value = useMemo(() => ({ ...state, refresh }), [state, refresh]);
  return <BrandingContext.Provider value={value}>{children}</BrandingContext.Provider>;
}

export function useBranding(): BrandingState {
  return useContext(BrandingContext);
}
