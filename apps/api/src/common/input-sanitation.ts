import { AppException } from './app.exception';

/**
 * Bounds on a parsed request body or query. Deep nesting overflows the stack of the recursive
 * transform and validation that follow (class-transformer, class-validator); no DTO of the API
 * nests beyond a handful of levels, nor needs more values than a 100 kB body of real data holds.
 */
export const INPUT_LIMITS = { maxDepth: 32, maxValues: 10_000 } as const;

/**
 * Keys that JSON.parse keeps as own properties but that name Object.prototype machinery: copied
 * onto a DTO by class-transformer, `__proto__` would replace the instance's prototype (and hide
 * from the whitelist). No DTO has such a field.
 */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Why a text cannot go further: PostgreSQL refuses NUL in text, and lone surrogates are not Unicode. */
function textProblem(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain NUL characters';
  if (!(text as string & { isWellFormed(): boolean }).isWellFormed()) return 'must be valid Unicode text (it contains a lone surrogate)';
  return null;
}

const join = (parent: string, key: string): string => (parent ? `${parent}.${key}` : key);

/**
 * The first problem of a parsed body or query, as a 400 naming the field ("name must not contain
 * NUL characters"), or null. Walks iteratively, so a hostile depth cannot overflow this check
 * either; never changes the input (hostile input is refused, not silently repaired).
 */
export function inputProblem(input: unknown, what: 'body' | 'query'): AppException | null {
  if (input === null || typeof input !== 'object') {
    const problem = typeof input === 'string' ? textProblem(input) : null;
    return problem ? refuse(`The request ${what} ${problem}`, what) : null;
  }
  const stack: { value: unknown; field: string; depth: number }[] = [{ value: input, field: '', depth: 0 }];
  let values = 0;
  while (stack.length) {
    const { value, field, depth } = stack.pop()!;
    if (++values > INPUT_LIMITS.maxValues) {
      return refuse(`The request ${what} has too many values (at most ${INPUT_LIMITS.maxValues})`, what);
    }
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) return refuse(`${field || `The request ${what}`} ${problem}`, field || what);
      continue;
    }
    if (typeof value === 'number') {
      // JSON numbers beyond 2^53 have already lost digits, and overflow every SQL integer.
      if (Math.abs(value) > Number.MAX_SAFE_INTEGER) {
        return refuse(
          `${field || `The request ${what}`} must be a number between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`,
          field || what,
        );
      }
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= INPUT_LIMITS.maxDepth)
      return refuse(`The request ${what} is nested too deeply (at most ${INPUT_LIMITS.maxDepth} levels)`, what);
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], field: join(field, String(i)), depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i];
      const keyProblem = textProblem(key);
      if (keyProblem) return refuse(`A property name of ${field || `the request ${what}`} ${keyProblem}`, field || what);
      if (FORBIDDEN_KEYS.has(key)) return refuse(`property ${join(field, key)} should not exist`, join(field, key));
      stack.push({ value: (value as Record<string, unknown>)[key], field: join(field, key), depth: depth + 1 });
    }
  }
  return null;
}

/**
 * The request path as routes see it (params are decoded from it): bad percent-encoding, NUL or a
 * lone surrogate answer 400 here instead of a router error or a database error later.
 */
export function pathProblem(rawPath: string): AppException | null {
  if (!rawPath.includes('%')) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return refuse('The request path is not valid percent-encoded UTF-8', 'path');
  }
  const problem = textProblem(decoded);
  return problem ? refuse(`The request path ${problem}`, 'path') : null;
}

function refuse(message: string, field: string): AppException {
  return new AppException('validation', { message, data: { fields: { [field]: [message] } } });
}
