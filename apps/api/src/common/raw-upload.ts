import { HttpStatus } from '@nestjs/common';
import type { Request } from 'express';
import { AppException } from './app.exception';

/** Content types a file upload may arrive with: the raw bytes, or the file's own type. */
export const FILE_UPLOAD_TYPES = [
  'application/octet-stream',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.ms-excel',
  'text/csv',
] as const;

/**
 * Reads a raw file body with a hard size cap. Refused at once with 415, before reading, when the
 * content type is not one of `types`: a JSON, form or multipart body is consumed (or refused) by
 * the body parser, so waiting for its bytes here would wait forever.
 */
export function readRawUpload(req: Request, limit: number, types: readonly string[] = FILE_UPLOAD_TYPES): Promise<Buffer> {
  const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (!types.includes(contentType)) {
    return Promise.reject(
      new AppException('validation', {
        status: HttpStatus.UNSUPPORTED_MEDIA_TYPE,
        message: `The file must be sent as the raw request body with Content-Type ${types.join(', ')} (got ${contentType || 'none'})`,
      }),
    );
  }
  return readBodyWithin(req, limit, () => new AppException('payload_too_large', { message: `The file is larger than ${limit} bytes.` }));
}

/**
 * The request body as sent, refused with `tooLarge()` as soon as more than `limit` bytes arrive
 * (the rest is drained, not buffered). File uploads and provider webhooks read their bodies so.
 */
export function readBodyWithin(
  req: NodeJS.ReadableStream & { readableEnded?: boolean },
  limit: number,
  tooLarge: () => Error,
): Promise<Buffer> {
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.resume();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
