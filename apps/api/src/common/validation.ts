import type { ValidationIssue } from '@centralita/contracts';
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

type IssueParams = NonNullable<ValidationIssue['params']>;
type Primitive = string | number | boolean;
const isPrimitive = (value: unknown): value is Primitive => ['string', 'number', 'boolean'].includes(typeof value);

/**
 * A constraint's values under names the console interpolates ("at most {{count}} characters" takes
 * `max`). Rules with no value of interest give none: a regular expression is shown as its source only.
 */
function namedParams(rule: string, constraints: unknown[]): IssueParams | undefined {
  const [first, second] = constraints;
  const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
  const named = (entries: Record<string, unknown>): IssueParams | undefined => {
    const kept = Object.entries(entries).filter((entry): entry is [string, IssueParams[string]] => entry[1] !== undefined);
    return kept.length ? Object.fromEntries(kept) : undefined;
  };
  switch (rule) {
    case 'maxLength':
    case 'max':
    case 'arrayMaxSize':
      return named({ max: num(first) });
    case 'minLength':
    case 'min':
    case 'arrayMinSize':
      return named({ min: num(first) });
    case 'isLength':
      return named({ min: num(first), max: num(second) });
    case 'isIn':
      return named({
        values: Array.isArray(first)
          ? first.filter((v): v is string | number => typeof v === 'string' || typeof v === 'number')
          : undefined,
      });
    case 'isEnum':
      return named({
        values: first && typeof first === 'object' ? Object.values(first).filter((v): v is string => typeof v === 'string') : undefined,
      });
    case 'matches':
      return named({ pattern: first instanceof RegExp ? first.source : typeof first === 'string' ? first : undefined });
    case 'isUuid':
      return named({ version: isPrimitive(first) ? first : undefined });
    default:
      return undefined;
  }
}

/** The values of the constraint `rule` of `property`, read from the class the refused object was built as. */
function constraintParams(target: unknown, property: string, rule: string): IssueParams | undefined {
  if (!target || typeof target !== 'object' || Array.isArray(target)) return undefined;
  const ctor = (target as object).constructor;
  if (typeof ctor !== 'function' || ctor === Object) return undefined;
  const metadata = getMetadataStorage()
    .getTargetValidationMetadatas(ctor, '', true, false)
    .find((meta) => meta.propertyName === property && (meta.name ?? meta.type) === rule);
  return metadata ? namedParams(rule, metadata.constraints ?? []) : undefined;
}

/**
 * The machine-readable form of the same errors: one issue per failing constraint, named by
 * class-validator (isEmail, maxLength…) with its values, so the console can word it in the user's
 * language (libs/contracts api-messages.ts).
 */
export function validationIssues(errors: ValidationError[], parent = ''): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const error of errors) {
    const field = parent ? `${parent}.${error.property}` : error.property;
    for (const rule of Object.keys(error.constraints ?? {})) {
      const params = constraintParams(error.target, error.property, rule);
      out.push(params ? { field, rule, params } : { field, rule });
    }
    if (error.children?.length) out.push(...validationIssues(error.children, field));
  }
  return out;
}

export function validationException(errors: ValidationError[]): AppException {
  const fields = flattenValidationErrors(errors);
  const message = fields.flatMap((entry) => entry.messages).join('; ') || 'The request is not valid.';
  return new AppException('validation', {
    message,
    data: { fields: Object.fromEntries(fields.map((entry) => [entry.field, entry.messages])), issues: validationIssues(errors) },
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
    // The target lets validationIssues read each constraint's values; it never leaves the server.
    validationError: { target: true, value: false },
    exceptionFactory: (errors: ValidationError[]) => validationException(errors),
  });
}
