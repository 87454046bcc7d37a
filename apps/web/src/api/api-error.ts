import type { ErrorCode } from '@centralita/contracts';

/**
 * Where a failure came from: the API answered with an error envelope or status (`http`), the
 * request never got an answer (`network`), or the session could not be refreshed (`session`).
 */
export type ApiErrorKind = 'http' | 'network' | 'session';

export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode | undefined;
  readonly kind: ApiErrorKind;
  /** For network failures: the underlying reason, e.g. 'Failed to fetch'. */
  readonly detail: string | undefined;
  /** The envelope's data of an error answer (validation lists its fields and issues there). */
  readonly data: unknown;

  constructor(message: string, opts: { status?: number; code?: ErrorCode; kind: ApiErrorKind; detail?: string; data?: unknown }) {
    super(message);
    this.name = 'ApiError';
    this.status = opts.status ?? 0;
    this.code = opts.code;
    this.kind = opts.kind;
    this.detail = opts.detail;
    this.data = opts.data ?? null;
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}
