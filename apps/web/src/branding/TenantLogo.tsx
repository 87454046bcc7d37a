import { useEffect, useState } from 'react';
import { DEFAULT_BRANDING } from '@centralita/contracts';
import { useBranding } from './BrandingProvider';

interface TenantLogoProps {
  /** compact: the square mark (logoUrl); complete: the full wordmark (completeLogoUrl). */
  variant: 'compact' | 'complete';
  alt: string;
  className?: string;
}

/** A tenant logo that falls back to the console's own logo when the image cannot load. */
export function TenantLogo({ variant, alt, className }: TenantLogoProps) {
  const { branding } = useBranding();
  const fallback = variant === 'compact' ? DEFAULT_BRANDING.logoUrl : DEFAULT_BRANDING.completeLogoUrl;
  const wanted = variant === 'compact' ? branding.logoUrl : branding.completeLogoUrl;
  const [src, setSrc] = useState(wanted);

  useEffect(() => setSrc(wanted), [wanted]);

  return (
    <img
      className={className}
      src={src}
      alt={alt}
      data-testid={`tenant-logo-${variant}`}
      onError={() => {
        if (src !== fallback) setSrc(fallback);
      }}
    />
  );
}
