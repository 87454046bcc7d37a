import { randomUUID } from 'node:crypto';

/**
 * Hostile variants of every operation of the API's own OpenAPI document (/api/docs-json): NUL and
 * lone surrogates in strings, huge numbers, prototype names, null and non-UUID
 * ids in path, query and body, deep and wide JSON, wrong content types. What is sent is derived
 * from the document, so a route added tomorrow is fuzzed without touching this file.
 */

type Schema = {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: unknown[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  minimum?: number;
  minLength?: number;
  example?: unknown;
};

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}

interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  security?: unknown[];
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

export interface FuzzOperation {
  method: string;
  path: string;
  secured: boolean;
  operation: Operation;
}

export interface FuzzRequest {
  /** "POST /api/users body.name=NUL": what a failure report names. */
  label: string;
  method: string;
  url: string;
  contentType?: string;
  body?: string | Buffer;
  operation: FuzzOperation;
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

export function operationsOf(doc: OpenApiDocument): FuzzOperation[] {
  const out: FuzzOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      out.push({ method: method.toUpperCase(), path, secured: Boolean(operation.security?.length), operation });
    }
  }
  return out;
}

/** String values every query parameter receives (URLSearchParams cannot carry a lone surrogate). */
export const HOSTILE_STRINGS: Record<string, string> = {
  NUL: 'a\u0000b',
  'prototype name': '__proto__',
  constructor: 'constructor',
  'huge number': '1e20',
  'not a UUID': 'not-a-uuid',
  empty: '',
};

/**
 * JSON values every body field receives. (A lone surrogate goes through the same check as NUL,
 * before any route: it is sent once per operation, in a whole body, below.)
 */
export const HOSTILE_VALUES: Record<string, unknown> = {
  NUL: 'a\u0000b',
  null: null,
  'huge number': 1e20,
  'not a UUID': 'not-a-uuid',
  constructor: 'constructor',
  object: { toString: 'x' },
};

/** Path segments every path parameter receives (already percent-encoded where needed). */
const HOSTILE_SEGMENTS: Record<string, string> = {
  null: 'null',
  'not a UUID': 'not-a-uuid',
  NUL: 'a%00b',
  'encoded surrogate': '%ED%A0%80',
  'bad encoding': '%E0%A4%A',
  'huge number': '1e20',
  'prototype name': '__proto__',
  constructor: 'constructor',
  toString: 'toString',
};

function deepJson(depth: number): string {
  return `{"a":${'['.repeat(depth)}1${']'.repeat(depth)}}`;
}

export class OpenApiFuzzer {
  constructor(private readonly doc: OpenApiDocument) {}

  private resolve(schema: Schema | undefined, seen = 0): Schema {
    if (!schema || seen > 10) return {};
    if (schema.$ref) {
      const name = schema.$ref.split('/').pop()!;
      return this.resolve(this.doc.components?.schemas?.[name], seen + 1);
    }
    if (schema.allOf?.length) {
      const merged: Schema = { type: 'object', properties: {}, required: [] };
      for (const part of schema.allOf) {
        const resolved = this.resolve(part, seen + 1);
        Object.assign(merged.properties!, resolved.properties ?? {});
        merged.required!.push(...(resolved.required ?? []));
      }
      return merged;
    }
    const alternative = schema.oneOf?.[0] ?? schema.anyOf?.[0];
    if (alternative) return this.resolve(alternative, seen + 1);
    return schema;
  }

  /** A plausible value for a schema, so one hostile field is all that differs from a valid body. */
  example(raw: Schema | undefined, depth = 0): unknown {
    const schema = this.resolve(raw);
    if (schema.enum?.length) return schema.enum[0];
    if (schema.example !== undefined && depth > 0) return schema.example;
    if (schema.properties || schema.type === 'object') {
      if (depth > 4) return {};
      const out: Record<string, unknown> = {};
      for (const [key, property] of Object.entries(schema.properties ?? {})) out[key] = this.example(property, depth + 1);
      return out;
    }
    switch (schema.type) {
      case 'array':
        return depth > 4 ? [] : [this.example(schema.items, depth + 1)];
      case 'integer':
      case 'number':
        return Math.max(1, schema.minimum ?? 1);
      case 'boolean':
        return false;
      case 'string':
        if (schema.format === 'uuid') return randomUUID();
        if (schema.format === 'email') return `fuzz-${randomUUID().slice(0, 8)}@fuzz.centralita.io`;
        if (schema.format === 'date-time') return new Date().toISOString();
        if (schema.format === 'date') return new Date().toISOString().slice(0, 10);
        return 'fuzz text';
      default:
        return 'fuzz';
    }
  }

  /** Path parameters filled as a caller would (an enum's first value, else a UUID nobody owns), one overridden. */
  private pathWith(op: FuzzOperation, override?: { name: string; segment: string }): string {
    return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      if (override && override.name === name) return override.segment;
      const schema = this.resolve(op.operation.parameters?.find((p) => p.in === 'path' && p.name === name)?.schema);
      return schema.enum?.length ? encodeURIComponent(String(schema.enum[0])) : randomUUID();
    });
  }

  private queryParams(op: FuzzOperation): Parameter[] {
    return (op.operation.parameters ?? []).filter((p) => p.in === 'query');
  }

  /** Required query parameters with plausible values (a report needs its from/to to get further). */
  private baseQuery(op: FuzzOperation): URLSearchParams {
    const query = new URLSearchParams();
    for (const param of this.queryParams(op)) {
      if (!param.required) continue;
      const value = this.example(param.schema, 1);
      query.set(param.name, typeof value === 'string' ? value : JSON.stringify(value));
    }
    return query;
  }

  private jsonBodySchema(op: FuzzOperation): Schema | null {
    const content = op.operation.requestBody?.content;
    return content?.['application/json']?.schema ?? null;
  }

  /** Paths of the leaves (and containers) of a body built by example(): "name", "questions.0.text". */
  private fieldPaths(value: unknown, prefix: string[] = [], depth = 0): string[][] {
    if (value === null || typeof value !== 'object' || depth > 3) return [prefix];
    const keys = Array.isArray(value) ? (value.length ? ['0'] : []) : Object.keys(value);
    const nested = keys.flatMap((key) => this.fieldPaths((value as Record<string, unknown>)[key], [...prefix, key], depth + 1));
    return prefix.length ? [prefix, ...nested] : nested;
  }

  requests(op: FuzzOperation): FuzzRequest[] {
    const out: FuzzRequest[] = [];
    const base = this.baseQuery(op);
    const url = (path: string, query: URLSearchParams) => (query.size ? `${path}?${query.toString()}` : path);
    const name = `${op.method} ${op.path}`;
    const bodySchema = this.jsonBodySchema(op);
    const validBody = bodySchema ? this.example(bodySchema) : undefined;
    const jsonBody = validBody === undefined ? undefined : JSON.stringify(validBody);
    const send = (label: string, path: string, query: URLSearchParams, body?: string | Buffer, contentType?: string) =>
      out.push({
        label: `${name} ${label}`,
        method: op.method,
        url: url(path, query),
        body,
        contentType: body === undefined ? undefined : (contentType ?? 'application/json'),
        operation: op,
      });

    // Path parameters, each in turn.
    for (const match of op.path.matchAll(/\{([^}]+)\}/g)) {
      for (const [what, segment] of Object.entries(HOSTILE_SEGMENTS)) {
        send(`path ${match[1]}=${what}`, this.pathWith(op, { name: match[1], segment }), base, jsonBody);
      }
    }
    const path = this.pathWith(op);
    // Query parameters, each in turn, the others as a caller would send them.
    for (const param of this.queryParams(op)) {
      for (const [what, value] of Object.entries(HOSTILE_STRINGS)) {
        const query = new URLSearchParams(base);
        query.set(param.name, value);
        send(`query ${param.name}=${what}`, path, query, jsonBody);
      }
    }
    // A query parameter nobody declared, and a repeated one (an array where a string is expected).
    const extra = new URLSearchParams(base);
    extra.set('__proto__', 'a\u0000b');
    send('query __proto__=NUL', path, extra, jsonBody);
    for (const param of this.queryParams(op).slice(0, 3)) {
      const query = new URLSearchParams(base);
      query.append(param.name, '1');
      query.append(param.name, 'a\u0000b');
      send(`query ${param.name} repeated`, path, query, jsonBody);
    }

    // fetch sends no body with GET; DELETE routes take none.
    if (op.method === 'GET' || op.method === 'DELETE')
      return out.map((request) => ({ ...request, body: undefined, contentType: undefined }));

    // JSON body: the plausible body, then each field in turn replaced by each hostile value.
    if (validBody !== undefined) {
      send('body plausible', path, base, jsonBody);
      for (const field of this.fieldPaths(validBody)) {
        for (const [what, value] of Object.entries(HOSTILE_VALUES)) {
          const body = structuredClone(validBody) as Record<string, unknown>;
          let target = body as Record<string, unknown>;
          for (const key of field.slice(0, -1)) target = target[key] as Record<string, unknown>;
          target[field[field.length - 1]] = value;
          send(`body ${field.join('.')}=${what}`, path, base, JSON.stringify(body));
        }
      }
    }
    // Whole bodies of the wrong shape, depth or width, and the wrong content types.
    const wide = JSON.stringify(Object.fromEntries(Array.from({ length: 12_000 }, (_, i) => [`k${i}`, 1])));
    const wholeBodies: Record<string, [string | Buffer, string]> = {
      'deep JSON': [deepJson(20_000), 'application/json'],
      'wide JSON': [wide, 'application/json'],
      'JSON null': ['null', 'application/json'],
      'JSON array': ['[]', 'application/json'],
      'JSON string with NUL': ['"\\u0000"', 'application/json'],
      'JSON with a lone surrogate': [jsonBody ? jsonBody.replace(/"fuzz text"/, '"\\ud800"') : '{"a":"\\ud800"}', 'application/json'],
      'JSON __proto__': ['{"__proto__":{"polluted":true}}', 'application/json'],
      'JSON invalid UTF-8': [Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), 'application/json'],
      'text/plain': [jsonBody ?? '{}', 'text/plain'],
      'form-urlencoded': ['a=%00&b=1', 'application/x-www-form-urlencoded'],
      multipart: [
        '--x\r\nContent-Disposition: form-data; name="file"; filename="a.xlsx"\r\n\r\nPK\u0003\u0004\r\n--x--\r\n',
        'multipart/form-data; boundary=x',
      ],
      'octet-stream': [Buffer.from('PK\u0003\u0004 not a zip'), 'application/octet-stream'],
      // A JSON body where the route reads a file (the phone-list import used to wait forever).
      'JSON instead of a file': ['{"name":"x"}', 'application/json'],
    };
    for (const [what, [body, contentType]] of Object.entries(wholeBodies)) send(`body ${what}`, path, base, body, contentType);
    return out;
  }
}

export interface FuzzFailure {
  label: string;
  problem: string;
}

/**
 * Sends the requests a few at a time and reports every answer that is a 5xx, takes longer than
 * `timeoutMs`, or is a 4xx without the envelope's errorMessage.
 */
export async function runFuzz(
  baseUrl: string,
  requests: FuzzRequest[],
  authorization: (request: FuzzRequest) => string | undefined,
  options: { concurrency?: number; timeoutMs?: number } = {},
): Promise<{ failures: FuzzFailure[]; statuses: Map<number, number> }> {
  const failures: FuzzFailure[] = [];
  const statuses = new Map<number, number>();
  const timeoutMs = options.timeoutMs ?? 5_000;
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const request = requests[next++];
      const headers: Record<string, string> = {};
      const token = authorization(request);
      if (token) headers.authorization = `Bearer ${token}`;
      if (request.contentType) headers['content-type'] = request.contentType;
      try {
        const response = await fetch(`${baseUrl}${request.url}`, {
          method: request.method,
          headers,
          body: request.body,
          signal: AbortSignal.timeout(timeoutMs),
        });
        const text = await response.text();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (response.status >= 500) failures.push({ label: request.label, problem: `${response.status} ${text.slice(0, 200)}` });
        else if (response.status >= 400) {
          let message: unknown;
          try {
            message = (JSON.parse(text) as { errorMessage?: unknown }).errorMessage;
          } catch {
            message = undefined;
          }
          if (typeof message !== 'string' || !message) {
            failures.push({ label: request.label, problem: `${response.status} without an envelope: ${text.slice(0, 120)}` });
          }
        }
      } catch (error) {
        failures.push({ label: request.label, problem: `no answer within ${timeoutMs} ms (${(error as Error).name})` });
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 8 }, worker));
  return { failures, statuses };
}
