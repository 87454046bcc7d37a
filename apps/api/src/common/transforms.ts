import { Transform } from 'class-transformer';

/** Trims and lower-cases strings (emails); leaves other types for the validators to reject. */
export const NormalizeEmail = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() : value));
export const Trim = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));

/**
 * A whole number written in digits ("12", "-3") becomes a number; anything else ("1e20", "0x10",
 * " 12", "", "12abc") stays as it came, so the IsInt that follows names the field. Number() alone
 * would turn "1e20" into an integer that passes IsInt and overflows every SQL integer.
 */
export const ToInt = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : value));
