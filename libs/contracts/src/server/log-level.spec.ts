import { describe, expect, it } from '@jest/globals';
import { logLevelsFor } from './log-level';

describe(logLevelsFor.name, () => {
  it('keeps the named level and every more severe one', () => {
    expect(logLevelsFor('warn', 'development')).toEqual(['fatal', 'error', 'warn']);
    expect(logLevelsFor(' Verbose ', 'production')).toEqual(['fatal', 'error', 'warn', 'log', 'debug', 'verbose']);
  });

  it('logs everything when unset, except in tests which keep errors and warnings', () => {
    expect(logLevelsFor(undefined, 'development')).toBeUndefined();
    expect(logLevelsFor('', 'test')).toEqual(['fatal', 'error', 'warn']);
  });

  it('refuses a level it does not know, naming the allowed ones', () => {
    expect(() => logLevelsFor('loud', 'development')).toThrow(
      'LOG_LEVEL must be one of fatal, error, warn, log, debug, verbose (got "loud")',
    );
  });
});
