import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { AppException } from './app.exception';

/** "email must be an email" style messages, with the path of nested fields ("address.city ..."). */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): { field: string; messages: string[] }[] {
  const out: { field: string; messages: string[] }[] = [];
  for (const error of errors) {
    const field = parent ? `${parent}.${error.property}` : error.property;
    if (error.constraints) {
      // class-validator names the leaf property; give the full path for nested objects.
      const messages = Object.values(error.constraints).map((message) =>
        parent && message.startsWith(`${error.property} `) ? `${field}${message.slice(error.property.length)}` : message,
      );
      out.push({ field, messages });
    }
    if (error.children?.length) out.push(...flattenValidationErrors(error.children, field));
  }
  return out;
}

export function validationException(errors: ValidationError[]): AppException {
  const fields = flattenValidationErrors(errors);
  const message = fields.flatMap((entry) => entry.messages).join('; ') || 'The request is not valid.';
  return new AppException('validation', {
    message,
    data: { fields: Object.fromEntries(fields.map((entry) => [entry.field, entry.messages])) },
  });
}

export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    // One message per field. class-validator runs a property's decorators bottom-up, so DTOs put
    // the type check nearest the property and it is the one reported.
    stopAtFirstError: true,
    // Query strings arrive as text: turn "2" into 2 only where the DTO declares a number.
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors: ValidationError[]) => validationException(errors),
  });
}
