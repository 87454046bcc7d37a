import { ChannelError } from './adapter';

/** How long one provider call may take before it counts as a retryable failure. */
export const PROVIDER_TIMEOUT_MS = 15_000;

/**
 * One JSON call to a provider: answers the parsed body of a 2xx, and otherwise throws ChannelError
 * classified the same way for every provider: network errors, timeouts, 408, 429 and 5xx are
 * retryable (429's Retry-After honoured); other 4xx are permanent. `describe` reads the provider's
 * error body into a code, a human reason and, where the provider says so, retryability.
 */
export async function providerJson<T>(
  url: string,
  init: RequestInit,
  describe: (
    status: number,
    body: unknown,
  ) => { code: string; message: string; retryable?: boolean; retryAfterMs?: number } = defaultDescribe,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
  } catch (error) {
    throw new ChannelError(`provider unreachable: ${(error as Error).message}`, { code: 'network', retryable: true });
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON (a proxy's error page): described from the status alone.
  }
  if (response.ok) return body as T;
  const described = describe(response.status, body);
  const retryAfter = retryAfterMs(response.headers.get('retry-after'));
  const retryable = described.retryable ?? (response.status === 408 || response.status === 429 || response.status >= 500);
  throw new ChannelError(described.message, {
    code: described.code,
    retryable,
    retryAfterMs: described.retryAfterMs ?? retryAfter,
    status: response.status,
  });
}

function defaultDescribe(status: number, body: unknown): { code: string; message: string } {
  return { code: `http_${status}`, message: typeof body === 'string' && body ? body.slice(0, 300) : `HTTP ${status}` };
}

/** Retry-After as seconds or an HTTP date, in milliseconds; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}

/** Downloads a body, refusing (permanently) more than `maxBytes` whether or not the length was announced. */
export async function downloadLimited(url: string, init: RequestInit, maxBytes: number): Promise<{ bytes: Buffer; mimeType: string }> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
  } catch (error) {
    throw new ChannelError(`media unreachable: ${(error as Error).message}`, { code: 'network', retryable: true });
  }
  if (!response.ok || !response.body) {
    throw new ChannelError(`media download failed: HTTP ${response.status}`, {
      code: `http_${response.status}`,
      retryable: response.status === 429 || response.status >= 500,
      status: response.status,
    });
  }
  const announced = Number(response.headers.get('content-length') ?? NaN);
  if (Number.isFinite(announced) && announced > maxBytes) {
    await response.body.cancel();
    throw new ChannelError(`media too large: ${announced} bytes (limit ${maxBytes})`, { code: 'media_too_large', retryable: false });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new ChannelError(`media too large: over ${maxBytes} bytes`, { code: 'media_too_large', retryable: false });
    chunks.push(Buffer.from(chunk));
  }
  return {
    bytes: Buffer.concat(chunks),
    mimeType: (response.headers.get('content-type') ?? 'application/octet-stream').split(';')[0].trim(),
  };
}
