import { THEME_DEFAULTS } from '@centralita/contracts';

export interface ColourTheme {
  id: string;
  /** Buttons, active navigation, links. */
  primary: string;
  hover: string;
  /** Text on soft backgrounds, pressed states. */
  strong: string;
  /** Focus rings. */
  ring: string;
  /** Highlighted rows and active navigation background on light surfaces. */
  soft: string;
  contrast: string;
}

/** The eleven colour themes of spec §9; 'blue' is the default. Shades chosen for AA contrast on white. */
export const THEMES: readonly ColourTheme[] = [
  { id: 'blue', primary: '#2563eb', hover: '#1d4ed8', strong: '#1e40af', ring: '#bfdbfe', soft: '#eff6ff', contrast: '#ffffff' },
  { id: 'indigo', primary: '#4f46e5', hover: '#4338ca', strong: '#3730a3', ring: '#c7d2fe', soft: '#eef2ff', contrast: '#ffffff' },
  { id: 'purple', primary: '#7c3aed', hover: '#6d28d9', strong: '#5b21b6', ring: '#ddd6fe', soft: '#f5f3ff', contrast: '#ffffff' },
  { id: 'pink', primary: '#db2777', hover: '#be185d', strong: '#9d174d', ring: '#fbcfe8', soft: '#fdf2f8', contrast: '#ffffff' },
  { id: 'red', primary: '#dc2626', hover: '#b91c1c', strong: '#991b1b', ring: '#fecaca', soft: '#fef2f2', contrast: '#ffffff' },
  { id: 'orange', primary: '#ea580c', hover: '#c2410c', strong: '#9a3412', ring: '#fed7aa', soft: '#fff7ed', contrast: '#ffffff' },
  { id: 'amber', primary: '#d97706', hover: '#b45309', strong: '#92400e', ring: '#fde68a', soft: '#fffbeb', contrast: '#ffffff' },
  { id: 'green', primary: '#16a34a', hover: '#15803d', strong: '#166534', ring: '#bbf7d0', soft: '#f0fdf4', contrast: '#ffffff' },
  { id: 'teal', primary: '#0d9488', hover: '#0f766e', strong: '#115e59', ring: '#99f6e4', soft: '#f0fdfa', contrast: '#ffffff' },
  { id: 'cyan', primary: '#0891b2', hover: '#0e7490', strong: '#155e75', ring: '#a5f3fc', soft: '#ecfeff', contrast: '#ffffff' },
  { id: 'slate', primary: '#475569', hover: '#334155', strong: '#1e293b', ring: '#cbd5e1', soft: '#f1f5f9', contrast: '#ffffff' },
];

export const DEFAULT_THEME_ID: string = THEME_DEFAULTS.theme;
export const THEME_STORAGE_KEY = 'theme';

export function findTheme(id: string | null | undefined): ColourTheme {
  return THEMES.find((theme) => theme.id === id) ?? THEMES.find((theme) => theme.id === DEFAULT_THEME_ID)!;
}

/** The CSS custom properties a theme sets on :root. */
export function themeVariables(theme: ColourTheme): Record<string, string> {
  return {
    '--primary': theme.primary,
    '--primary-hover': theme.hover,
    '--primary-strong': theme.strong,
    '--primary-ring': theme.ring,
    '--primary-soft': theme.soft,
    '--primary-contrast': theme.contrast,
    // PrimeReact reads these two directly.
    '--primary-color': theme.primary,
    '--primary-color-text': theme.contrast,
    '--focus-ring': `0 0 0 0.2rem ${theme.ring}`,
    '--highlight-bg': theme.soft,
    '--highlight-text-color': theme.strong,
  };
}

export function applyTheme(theme: ColourTheme, root: HTMLElement = document.documentElement): void {
  for (const [name, value] of Object.entries(themeVariables(theme))) root.style.setProperty(name, value);
  root.dataset.theme = theme.id;
}
