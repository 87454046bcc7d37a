import { describe, expect, it } from '@jest/globals';
import { THEME_DEFAULTS } from '@centralita/contracts';
import { findTheme, THEMES, themeVariables } from './themes';

describe('THEMES', () => {
  it('offers eleven colour themes', () => {
    expect(THEMES).toHaveLength(11);
  });

  it('has unique ids', () => {
    expect(new Set(THEMES.map((t) => t.id)).size).toBe(THEMES.length);
  });

  it("includes the default theme 'blue'", () => {
    expect(THEMES.map((t) => t.id)).toContain(THEME_DEFAULTS.theme);
  });

  it('falls back to the default theme for an unknown id', () => {
    expect(findTheme('no-such-theme').id).toBe('blue');
  });

  it('exposes the primary colour as a CSS custom property', () => {
    expect(themeVariables(findTheme('green'))['--primary']).toBe('#16a34a');
  });
});
