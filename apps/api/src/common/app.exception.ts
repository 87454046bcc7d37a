import { CATALOGUE_MESSAGES, type ApiMessageKey, type ApiMessageParams, type ErrorCode } from '@centralita/contracts';
import { HttpStatus } from '@nestjs/common';

/** HTTP status and default (English) message per error code; clients translate `errors.<code>`. */
const DEFAULTS: Record<ErrorCode, { status: HttpStatus; message: string }> = {
  validation: { status: HttpStatus.BAD_REQUEST, message: 'The request is not valid.' },
  invalid_credentials: { status: HttpStatus.UNAUTHORIZED, message: CATALOGUE_MESSAGES[401] },
  unauthorized: { status: HttpStatus.UNAUTHORIZED, message: CATALOGUE_MESSAGES[401] },
  session_expired: { status: HttpStatus.UNAUTHORIZED, message: CATALOGUE_MESSAGES[401] },
  refresh_token_invalid: { status: HttpStatus.UNAUTHORIZED, message: CATALOGUE_MESSAGES[401] },
  account_disabled: { status: HttpStatus.UNAUTHORIZED, message: CATALOGUE_MESSAGES[401] },
  password_expired: { status: HttpStatus.UNAUTHORIZED, message: CATALOGUE_MESSAGES[401] },
  forbidden: { status: HttpStatus.FORBIDDEN, message: 'You do not have permission to do this.' },
  not_found: { status: HttpStatus.NOT_FOUND, message: CATALOGUE_MESSAGES[404] },
  conflict: { status: HttpStatus.CONFLICT, message: 'The request conflicts with the current state.' },
  user_exists: { status: HttpStatus.CONFLICT, message: 'User already exists!' },
  rate_limited: { status: HttpStatus.TOO_MANY_REQUESTS, message: 'Too many attempts. Please wait a moment and try again.' },
  payload_too_large: { status: HttpStatus.PAYLOAD_TOO_LARGE, message: 'The request body is too large.' },
  registration_link_invalid: { status: HttpStatus.BAD_REQUEST, message: 'This registration link is invalid or has expired.' },
  weak_password: { status: HttpStatus.BAD_REQUEST, message: 'This password is too easy to guess.' },
  reset_token_invalid: { status: HttpStatus.BAD_REQUEST, message: 'This password reset link is invalid or has expired.' },
  invitation_invalid: { status: HttpStatus.BAD_REQUEST, message: 'This invitation is invalid, has expired or was already used.' },
  illegal_transition: { status: HttpStatus.CONFLICT, message: 'That action is not allowed in the current state.' },
  reply_window_closed: {
    status: HttpStatus.CONFLICT,
    message: "The customer's reply window has closed: only an approved template can be sent now.",
  },
  contact_opted_out: { status: HttpStatus.CONFLICT, message: 'This customer has blocked or opted out of messages: nothing can be sent.' },
  idempotency_key_reused: {
    status: HttpStatus.UNPROCESSABLE_ENTITY,
    message: 'This Idempotency-Key was already used for a different request; use a new key for a new request.',
  },
  idempotency_in_progress: {
    status: HttpStatus.CONFLICT,
    message: 'A request with this Idempotency-Key is still being processed; repeat it shortly to get its answer.',
  },
  service_unavailable: { status: HttpStatus.SERVICE_UNAVAILABLE, message: CATALOGUE_MESSAGES.generic },
  internal: { status: HttpStatus.INTERNAL_SERVER_ERROR, message: CATALOGUE_MESSAGES[500] },
};

export interface AppExceptionOptions {
  message?: string;
  status?: HttpStatus;
  data?: unknown;
  headers?: Record<string, string>;
  /**
   * The refusal as an i18n key the console translates (`apiMessages.<key>`), for the hand-written
   * 400/409s an admin form can meet; the envelope's data carries it as `messageKey`/`messageParams`.
   */
  messageKey?: ApiMessageKey;
  params?: ApiMessageParams;
}

/**
 * The one coded error domain code throws. The envelope filter turns it into
 * `{statusCode, data, errorMessage, errorCode}` with the matching HTTP status.
 */
export class AppException extends Error {
  readonly status: HttpStatus;
  readonly data: unknown;
  readonly headers: Record<string, string>;
  readonly messageKey: ApiMessageKey | null;
  readonly params: ApiMessageParams | null;

  constructor(
    readonly code: ErrorCode,
    options: AppExceptionOptions = {},
  ) {
    super(options.message ?? DEFAULTS[code].message);
    this.name = 'AppException';
    this.status = options.status ?? DEFAULTS[code].status;
    this.data = options.data ?? null;
    this.headers = options.headers ?? {};
    this.messageKey = options.messageKey ?? null;
    this.params = options.params ?? null;
  }

  /**
   * The envelope's data: `data`, plus `messageKey`/`messageParams` when the refusal is keyed (a
   * keyed exception's data is always an object, so the key has somewhere to go).
   */
  envelopeData(): unknown {
    if (!this.messageKey) return this.data;
    const base = this.data && typeof this.data === 'object' && !Array.isArray(this.data) ? (this.data as Record<string, unknown>) : {};
    return { ...base, messageKey: this.messageKey, ...(this.params ? { messageParams: this.params } : {}) };
  }

  static notFound(): AppException {
    return new AppException('not_found');
  }

  static forbidden(message?: string): AppException {
    return new AppException('forbidden', { message });
  }

  static rateLimited(retryAfterSeconds: number): AppException {
    return new AppException('rate_limited', { headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) } });
  }
}

export function defaultMessage(code: ErrorCode): string {
  return DEFAULTS[code].message;
}
