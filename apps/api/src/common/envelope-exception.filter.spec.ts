import { CATALOGUE_MESSAGES } from '@centralita/contracts';
import {
  BadRequestException,
  ForbiddenException,
  HttpException,
  NotFoundException,
  PayloadTooLargeException,
  UnauthorizedException,
} from '@nestjs/common';
import { AppException } from './app.exception';
import { mapError } from './envelope-exception.filter';

describe('mapError', () => {
  it('maps coded domain errors with their status, message, data and headers', () => {
    expect(mapError(new AppException('user_exists'))).toEqual({
      status: 409,
      body: { statusCode: 409, data: null, errorMessage: 'User already exists!', errorCode: 'user_exists' },
      headers: {},
    });
    expect(mapError(AppException.rateLimited(12.2))).toMatchObject({
      status: 429,
      headers: { 'Retry-After': '13' },
      body: { errorCode: 'rate_limited' },
    });
    expect(mapError(new AppException('service_unavailable', { data: { redis: 'down' } })).body).toMatchObject({
      statusCode: 503,
      data: { redis: 'down' },
    });
  });

  it('adds the i18n key and values of a keyed refusal to its data, keeping the English message', () => {
    const keyed = mapError(
      new AppException('conflict', {
        message: 'code is already used by another role',
        messageKey: 'roleCodeTaken',
        data: { fields: { code: ['code is already used by another role'] } },
      }),
    );
    expect(keyed.status).toBe(409);
    expect(keyed.body).toEqual({
      statusCode: 409,
      errorCode: 'conflict',
      errorMessage: 'code is already used by another role',
      data: { fields: { code: ['code is already used by another role'] }, messageKey: 'roleCodeTaken' },
    });
    const withValues = mapError(
      new AppException('validation', {
        message: 'sortField must be one of name',
        messageKey: 'unknownSortField',
        params: { options: 'name' },
      }),
    );
    expect(withValues.body.data).toEqual({ messageKey: 'unknownSortField', messageParams: { options: 'name' } });
  });

  it("uses the spec's generic messages for 401, 404 and 500", () => {
    expect(mapError(new UnauthorizedException('jwt malformed')).body).toEqual({
      statusCode: 401,
      data: null,
      errorMessage: CATALOGUE_MESSAGES[401],
      errorCode: 'unauthorized',
    });
    expect(mapError(new NotFoundException('Cannot GET /api/x')).body).toEqual({
      statusCode: 404,
      data: null,
      errorMessage: CATALOGUE_MESSAGES[404],
      errorCode: 'not_found',
    });
    expect(mapError(new HttpException('boom', 500)).body).toEqual({
      statusCode: 500,
      data: null,
      errorMessage: CATALOGUE_MESSAGES[500],
      errorCode: 'internal',
    });
  });

  it('keeps the message of other Nest errors', () => {
    expect(mapError(new BadRequestException(['a must be a string', 'b must be a number'])).body).toMatchObject({
      statusCode: 400,
      errorMessage: 'a must be a string; b must be a number',
      errorCode: 'validation',
    });
    expect(mapError(new ForbiddenException()).body).toMatchObject({ statusCode: 403, errorCode: 'forbidden' });
    expect(mapError(new PayloadTooLargeException()).body).toMatchObject({ statusCode: 413, errorCode: 'payload_too_large' });
  });

  it('maps body-parser failures to 400 and 413', () => {
    expect(mapError(Object.assign(new SyntaxError('Unexpected end'), { type: 'entity.parse.failed', status: 400 })).body).toMatchObject({
      statusCode: 400,
      errorCode: 'validation',
      errorMessage: 'The request body is not valid JSON',
    });
    expect(mapError(Object.assign(new Error('too large'), { type: 'entity.too.large', limit: 102400 })).body).toMatchObject({
      statusCode: 413,
      errorMessage: 'The request body is larger than the 100kb limit',
    });
  });

  it('answers 503 when PostgreSQL or Redis is unreachable', () => {
    expect(mapError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toMatchObject({
      status: 503,
      headers: { 'Retry-After': '5' },
      body: { errorCode: 'service_unavailable', errorMessage: CATALOGUE_MESSAGES.generic },
    });
    expect(
      mapError(Object.assign(new Error('Reached the max retries per request limit'), { name: 'MaxRetriesPerRequestError' })).status,
    ).toBe(503);
  });

  it('hides anything else behind a 500 Internal Server Error', () => {
    expect(mapError(new TypeError("Cannot read properties of undefined (reading 'x')"))).toEqual({
      status: 500,
      body: { statusCode: 500, data: null, errorMessage: 'Internal Server Error', errorCode: 'internal' },
      headers: {},
    });
    expect(mapError('a string').status).toBe(500);
  });
});
