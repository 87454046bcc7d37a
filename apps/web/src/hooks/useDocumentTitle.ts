import { useEffect } from 'react';

export function useDocumentTitle(title: string | null | undefined, suffix = 'Centralita'): void {
  useEffect(() => {
    document.title = title ? `${title} · ${suffix}` : suffix;
  }, [title, suffix]);
}
