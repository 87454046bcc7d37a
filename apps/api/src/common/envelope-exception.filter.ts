import { CATALOGUE_MESSAGES, type Envelope, type ErrorCode } from '@centralita/contracts';
import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { AppException, defaultMessage } from './app.exception';

const CODE_BY_STATUS: Partial<Record<number, ErrorCode>> = {
  400: 'validation',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'validation',
  429: 'rate_limited',
  503: 'service_unavailable',
};

export interface MappedError {
  status: number;
  body: Envelope<unknown> & { errorCode: ErrorCode };
  headers: Record<string, string>;
}

/** Connection failures to PostgreSQL or Redis: the caller should retry later (503), not see a 500. */
function isInfrastructureDown(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', '57P01', '57P03', '08006', '08001', '08003'].includes(
      code,
    )
  )
    return true;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  return /Connection is closed|Connection terminated|connection timeout|timeout exceeded when trying to connect|Stream isn't writeable|Command timed out/i.test(
    error.message,
  );
}

/**
 * PostgreSQL's data exceptions (class 22) raised by a value the caller sent: a number out of range,
 * a malformed UUID or date, NUL in text, text too long. Input checks refuse these first with a 400
 * naming the field; this is the net for any they miss, so a hostile value is a 400, never a 500.
 */
const DATA_EXCEPTIONS = new Set(['22001', '22003', '22007', '22008', '22021', '22P02', '22P05', '2201W', '2201X']);
function isDataException(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && DATA_EXCEPTIONS.has(code) && (error.name === 'QueryFailedError' || 'severity' in error);
}

/** Body-parser errors carry a `type` and a status; they reach here when the parser runs inside Nest. */
function bodyParserError(error: unknown): { status: number; message: string; code: ErrorCode } | null {
  const type = (error as { type?: unknown } | null)?.type;
  if (type === 'entity.parse.failed') return { status: 400, message: 'The request body is not valid JSON', code: 'validation' };
  if (type === 'entity.too.large') {
    const limit = (error as { limit?: number }).limit;
    return {
      status: 413,
      message: `The request body is larger than the ${limit ? `${Math.round(limit / 1024)}kb ` : ''}limit`,
      code: 'payload_too_large',
    };
  }
  if (type === 'encoding.unsupported' || type === 'charset.unsupported')
    return { status: 415, message: 'The request body encoding is not supported', code: 'validation' };
  return null;
}

export function mapError(error: unknown, logger?: Logger): MappedError {
  const envelope = (status: number, code: ErrorCode, message: string, data: unknown = null): MappedError['body'] => ({
    statusCode: status,
    data,
    errorMessage: message,
    errorCode: code,
  });

  if (error instanceof AppException) {
    return { status: error.status, body: envelope(error.status, error.code, error.message, error.envelopeData()), headers: error.headers };
  }
  const parser = bodyParserError(error);
  if (parser) return { status: parser.status, body: envelope(parser.status, parser.code, parser.message), headers: {} };

  if (error instanceof HttpException) {
    const status = error.getStatus();
    const code: ErrorCode = CODE_BY_STATUS[status] ?? (status >= 500 ? 'internal' : 'validation');
    let message: string;
    if (status === 401) message = CATALOGUE_MESSAGES[401];
    else if (status === 404 || status === 405) message = CATALOGUE_MESSAGES[404];
    else if (status >= 500) message = status === 503 ? CATALOGUE_MESSAGES.generic : CATALOGUE_MESSAGES[500];
    else {
      const response = error.getResponse();
      const raw = typeof response === 'string' ? response : (response as { message?: unknown }).message;
      message = Array.isArray(raw) ? raw.join('; ') : typeof raw === 'string' ? raw : defaultMessage(code);
    }
    if (status >= 500) logger?.error(error.message, error.stack);
    const mappedStatus = status === 405 ? 404 : status;
    return { status: mappedStatus, body: envelope(mappedStatus, code, message), headers: {} };
  }
  if (isDataException(error)) {
    logger?.warn(`input refused by the database: ${(error as Error).message}`);
    return {
      status: 400,
      body: envelope(400, 'validation', 'A value of the request is out of range or malformed for its field'),
      headers: {},
    };
  }
  if (isInfrastructureDown(error)) {
    logger?.warn(`dependency unavailable: ${(error as Error).message}`);
    return { status: 503, body: envelope(503, 'service_unavailable', CATALOGUE_MESSAGES.generic), headers: { 'Retry-After': '5' } };
  }
  logger?.error(error instanceof Error ? error.message : String(error), error instanceof Error ? error.stack : undefined);
  return { status: 500, body: envelope(500, 'internal', CATALOGUE_MESSAGES[500]), headers: {} };
}

/** The one filter: coded domain errors, Nest/validation errors and crashes all leave as the envelope. */
@Catch()
export class EnvelopeExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const response = host.switchToHttp().getResponse<Response>();
    const { status, body, headers } = mapError(exception, this.logger);
    if (response.headersSent) {
      response.end();
      return;
    }
    response.status(status).set(headers).json(body);
  }
}
