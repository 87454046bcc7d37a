import { createContext, useCallback, useContext, useMemo, useRef, type ReactNode } from 'react';
import { Toast } from 'primereact/toast';
import { TOAST_LIFE_MS } from '@centralita/contracts';

export type ToastSeverity = 'success' | 'info' | 'warn' | 'error';

export interface ToastApi {
  show(severity: ToastSeverity, summary: string, detail?: string): void;
  success(summary: string, detail?: string): void;
  info(summary: string, detail?: string): void;
  warn(summary: string, detail?: string): void;
  error(summary: string, detail?: string): void;
}

const ToastContext = createContext<ToastApi | null>(null);

/** One toast stack for the whole console: top-right, 10 seconds (spec §9). */
export function ToastProvider({ children }: { children: ReactNode }) {
  const ref = useRef<Toast>(null);
  const show = useCallback((severity: ToastSeverity, summary: string, detail?: string) => {
    ref.current?.show({ severity, summary, detail, life: TOAST_LIFE_MS });
  }, []);
  const api = useMemo<ToastApi>(
    () => ({
      show,
      success: (s, d) => show('success', s, d),
      info: (s, d) => show('info', s, d),
      warn: (s, d) => show('warn', s, d),
      error: (s, d) => show('error', s, d),
    }),
    [show],
  );
  return (
    <ToastContext.Provider value={api}>
      {children}
      <Toast ref={ref} position="top-right" pt={{ root: { 'data-testid': 'toast-container' } as object }} />
    </ToastContext.Provider>
  );
}

export function useToast(): ToastApi {
  const value = useContext(ToastContext);
  if (!value) throw new Error('useToast must be used inside <ToastProvider>');
  return value;
}
