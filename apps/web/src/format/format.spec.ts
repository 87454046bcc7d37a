import { describe, expect, it } from '@jest/globals';
import { DICTIONARIES } from '../i18n/resources';
import {
  formatActive,
  formatBoolean,
  formatDate,
  formatDateTime,
  formatDuration,
  formatNullable,
  formatTime,
  NOT_AVAILABLE,
  type Translate,
} from './format';

function translator(lng: keyof typeof DICTIONARIES): Translate {
  return (key) => {
    const value = key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], DICTIONARIES[lng]);
    return typeof value === 'string' ? value : key;
  };
}
const es = translator('es');
const en = translator('en');

describe('format', () => {
  describe(formatDateTime.name, () => {
    it('writes DD-MM-YYYY hh:mm:ss', () => {
      expect(formatDateTime(new Date(2024, 0, 5, 14, 3, 9))).toBe('05-01-2024 14:03:09');
    });

    it('accepts ISO strings and epoch milliseconds', () => {
      const date = new Date(2023, 11, 31, 23, 59, 58);
      expect(formatDateTime(date.toISOString())).toBe('31-12-2023 23:59:58');
      expect(formatDateTime(date.getTime())).toBe('31-12-2023 23:59:58');
    });

    it("shows 'N/A' for null", () => {
      expect(formatDateTime(null)).toBe('N/A');
    });

    it("shows 'N/A' for an unparseable date", () => {
      expect(formatDateTime('yesterday-ish')).toBe(NOT_AVAILABLE);
    });
  });

  it('writes a date alone as DD-MM-YYYY', () => {
    expect(formatDate(new Date(2024, 6, 4, 8, 0, 0))).toBe('04-07-2024');
  });

  it('writes a time of day as hh:mm:ss', () => {
    expect(formatTime(new Date(2024, 0, 1, 7, 5, 3))).toBe('07:05:03');
  });

  describe(formatDuration.name, () => {
    it('writes seconds as hh:mm:ss', () => {
      expect(formatDuration(3_723)).toBe('01:02:03');
    });

    it('keeps counting hours past a day', () => {
      expect(formatDuration(90_000)).toBe('25:00:00');
    });

    it('drops fractions of a second', () => {
      expect(formatDuration(59.9)).toBe('00:00:59');
    });

    it("shows 'N/A' for a missing duration", () => {
      expect(formatDuration(null)).toBe('N/A');
    });
  });

  describe(formatNullable.name, () => {
    it("shows 'N/A' for null and undefined", () => {
      expect([formatNullable(null), formatNullable(undefined)]).toEqual(['N/A', 'N/A']);
    });

    it("shows 'N/A' for blank text", () => {
      expect(formatNullable('  ')).toBe('N/A');
    });

    it('keeps zero and false as real values', () => {
      expect([formatNullable(0), formatNullable(false)]).toEqual(['0', 'false']);
    });
  });

  describe(formatBoolean.name, () => {
    it('shows Si/No in Spanish', () => {
      expect([formatBoolean(true, es), formatBoolean(false, es)]).toEqual(['Si', 'No']);
    });

    it('translates to the current language', () => {
      expect([formatBoolean(true, en), formatBoolean(false, en)]).toEqual(['Yes', 'No']);
    });

    it("shows 'N/A' for an unknown flag", () => {
      expect(formatBoolean(null, es)).toBe('N/A');
    });
  });

  describe(formatActive.name, () => {
    it('shows Activo/Inactivo in Spanish', () => {
      expect([formatActive(true, es), formatActive(false, es)]).toEqual(['Activo', 'Inactivo']);
    });

    it('translates to the current language', () => {
      expect([formatActive(true, en), formatActive(false, en)]).toEqual(['Active', 'Inactive']);
    });
  });
});
