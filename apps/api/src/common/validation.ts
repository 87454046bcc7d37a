import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
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

type MetadataStorage = ReturnType<typeof getMetadataStorage>;
type TargetMetadatas = ReturnType<MetadataStorage['getTargetValidationMetadatas']>;
const MEMOIZED = Symbol('centralita:memoized-validation-metadata');

/**
 * class-validator finds a class's rules on every validate() by testing every validated class of
 * the app for being its parent: a few percent of every validated request (QUALITY.md P4), for an
 * answer that only changes when a rule is declared. So the answer is kept per class and options,
 * and all of it is forgotten whenever a rule is added (decorators run as classes are declared).
 * The kept arrays are frozen: class-validator only reads them.
 */
export function memoizeValidationMetadata(storage: MetadataStorage = getMetadataStorage()): void {
  const marked = storage as MetadataStorage & { [MEMOIZED]?: true };
  if (marked[MEMOIZED]) return;
  marked[MEMOIZED] = true;
  let kept = new WeakMap<object, Map<string, TargetMetadatas>>();
  const addValidationMetadata = storage.addValidationMetadata.bind(storage);
  const getTargetValidationMetadatas = storage.getTargetValidationMetadatas.bind(storage);
  storage.addValidationMetadata = (metadata) => {
    addValidationMetadata(metadata);
    kept = new WeakMap();
  };
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    if (typeof target !== 'function') return getTargetValidationMetadatas(target, schema, always, strictGroups, groups);
    const key = JSON.stringify([schema, always, strictGroups, groups ?? null]);
    let byOptions = kept.get(target);
    if (!byOptions) kept.set(target, (byOptions = new Map()));
    let metadatas = byOptions.get(key);
    if (!metadatas) {
      metadatas = Object.freeze(getTargetValidationMetadatas(target, schema, always, strictGroups, groups)) as TargetMetadatas;
      byOptions.set(key, metadatas);
    }
    return metadatas;
  };
}

export function createValidationPipe(): ValidationPipe {
  memoizeValidationMetadata();
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
