import type { Envelope } from '@centralita/contracts';
import { StreamableFile } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Response } from 'express';
import { Readable } from 'node:stream';

/**
 * The express adapter with the success envelope of spec §7: every handler's answer is sent as
 * `{ statusCode, data, errorMessage: null }`, statusCode mirroring the HTTP status. Errors never
 * pass here (EnvelopeExceptionFilter catches every exception and answers itself).
 *
 * Why here and not in an interceptor: as soon as one interceptor is registered, Nest runs every
 * call through an rxjs pipeline (ReplaySubject, defer, mergeAll, lastValueFrom); for a guarded GET
 * that was about a sixth of the API's CPU (P4 in docs/benchmarks.md). `reply` is where Nest hands a
 * handler's result to express, once per answer, so the envelope costs one object here.
 */
export class EnvelopeExpressAdapter extends ExpressAdapter {
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (isRawBody(body)) return super.reply(response, body, statusCode);
    const envelope: Envelope<unknown> = { statusCode: statusCode ?? response.statusCode, data: body ?? null, errorMessage: null };
    return super.reply(response, envelope, statusCode);
  }

  /**
   * Nest sets the route's status before every handler runs; express's `status()` validates the
   * code each time. Setting the status a response already has changes nothing, so it is skipped:
   * the common case, 200 on a GET (QUALITY.md P4).
   */
  override status(response: Response, statusCode: number): unknown {
    if (response.statusCode === statusCode) return response;
    return super.status(response, statusCode);
  }
}

/** Files and streams go out as they are (exports, recordings). */
function isRawBody(body: unknown): boolean {
  return (
    body instanceof StreamableFile || body instanceof Readable || (typeof ReadableStream !== 'undefined' && body instanceof ReadableStream)
  );
}
