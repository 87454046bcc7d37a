/** Nest's log levels, most severe first. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'] as const;
export type NestLogLevel = (typeof LOG_LEVELS)[number];

/**
 * The levels a process logs. LOG_LEVEL names the least severe level kept (`warn` keeps fatal,
 * error and warn); unset, tests keep errors and warnings and everything else logs all (Nest's own
 * default, route mapping included). `npm start` sets `warn` unless --verbose or LOG_LEVEL is given.
 */
export function logLevelsFor(logLevel: string | undefined, nodeEnv: string): NestLogLevel[] | undefined {
  const wanted = logLevel?.trim().toLowerCase();
  if (!wanted) return nodeEnv === 'test' ? ['fatal', 'error', 'warn'] : undefined;
  const index = LOG_LEVELS.indexOf(wanted as NestLogLevel);
  if (index < 0) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);
  return LOG_LEVELS.slice(0, index + 1);
}
