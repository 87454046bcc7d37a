import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';

/** Documents an answer wrapped in the envelope: {statusCode, data: <model>, errorMessage: null}. */
export function ApiEnvelope(
  model: Type<unknown> | [Type<unknown>] | null,
  options: { status?: number; description?: string } = {},
): MethodDecorator & ClassDecorator {
  const item = Array.isArray(model) ? model[0] : model;
  const data = !item
    ? { type: 'object', nullable: true }
    : Array.isArray(model)
      ? { type: 'array', items: { $ref: getSchemaPath(item) } }
      : { $ref: getSchemaPath(item) };
  const decorators = [
    ApiResponse({
      status: options.status ?? 200,
      description: options.description ?? 'Success',
      schema: {
        type: 'object',
        required: ['statusCode', 'data', 'errorMessage'],
        properties: {
          statusCode: { type: 'integer', example: options.status ?? 200 },
          data,
          errorMessage: { type: 'string', nullable: true, example: null },
        },
      },
    }),
  ];
  return applyDecorators(...(item ? [ApiExtraModels(item)] : []), ...decorators);
}

/** Documents error answers: {statusCode, data, errorMessage, errorCode}. */
export function ApiErrors(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: `Error envelope (${status})`,
        schema: {
          type: 'object',
          properties: {
            statusCode: { type: 'integer', example: status },
            data: { nullable: true },
            errorMessage: { type: 'string' },
            errorCode: { type: 'string' },
          },
        },
      }),
    ),
  );
}
