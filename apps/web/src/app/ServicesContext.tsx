import { createContext, useContext, type ReactNode } from 'react';
import { useSelector } from '@xstate/react';
import { authStatus, type AuthSnapshot } from '../auth/auth.machine';
import type { AppServices } from './services';

const ServicesContext = createContext<AppServices | null>(null);

export function ServicesProvider({ services, children }: { services: AppServices; children: ReactNode }) {
  return <ServicesContext.Provider value={services}>{children}</ServicesContext.Provider>;
}

export function useServices(): AppServices {
  const services = useContext(ServicesContext);
  if (!services) throw new Error('useServices must be used inside <ServicesProvider>');
  return services;
}

export function useApi() {
  return useServices().api;
}

/** Select from the auth machine snapshot; re-renders only when the selected value changes. */
export function useAuthSelector<T>(selector: (snapshot: AuthSnapshot) => T, compare?: (a: T, b: T) => boolean): T {
  return useSelector(useServices().auth, selector, compare);
}

export function useAuth() {
  const { auth } = useServices();
  const status = useSelector(auth, authStatus);
  const user = useSelector(auth, (s) => s.context.user);
  return { status, user, send: auth.send };
}
