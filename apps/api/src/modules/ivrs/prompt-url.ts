import type { LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { extname } from 'node:path';
import { IVR_PROMPT_UPLOAD } from '@centralita/contracts';
import type { OutgoingAddressPolicy } from '@centralita/contracts/server';

/** Why an IVR node's promptAudioUrl could not be turned into a prompt (logged at publish; the node falls back). */
export class PromptUrlError extends Error {}

const CONTENT_TYPES: Record<string, (typeof IVR_PROMPT_UPLOAD.extensions)[number]> = {
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/vnd.wave': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/ogg': 'ogg',
  'application/ogg': 'ogg',
};

/**
 * Downloads an IVR node's audio URL (http or https) at publish, for sox to convert like an upload: the host is
 * resolved and checked by the outgoing-address policy and the connection goes to the checked address (no
 * DNS rebinding to the platform's own networks), no redirect is followed, at most IVR_PROMPT_UPLOAD.maxBytes
 * within `timeoutMs`. The format comes from the Content-Type, else the path's extension (wav, mp3, ogg).
 */
export async function fetchPromptAudio(
  rawUrl: string,
  policy: OutgoingAddressPolicy,
  timeoutMs = 10_000,
): Promise<{ bytes: Buffer; extension: (typeof IVR_PROMPT_UPLOAD.extensions)[number] }> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new PromptUrlError(`${rawUrl} is not an absolute http(s) URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new PromptUrlError(`${rawUrl} is not an http(s) URL`);
  const [checked] = await policy.resolve(url.hostname).catch((error: Error) => {
    throw new PromptUrlError(error.message);
  });
  const lookup = (
    _host: string,
    options: { all?: boolean },
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) =>
    options?.all
      ? callback(null, [{ address: checked!.address, family: checked!.family }])
      : callback(null, checked!.address, checked!.family);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'GET', agent: false, lookup: lookup as never, timeout: timeoutMs, headers: { accept: 'audio/*' } },
      (res: IncomingMessage) => {
        if ((res.statusCode ?? 0) !== 200) {
          res.resume();
          return reject(new PromptUrlError(`${rawUrl} answered HTTP ${res.statusCode}`));
        }
        const type = String(res.headers['content-type'] ?? '')
          .split(';')[0]!
          .trim()
          .toLowerCase();
        const fromPath = extname(url.pathname).slice(1).toLowerCase();
        const extension =
          CONTENT_TYPES[type] ??
          ((IVR_PROMPT_UPLOAD.extensions as readonly string[]).includes(fromPath)
            ? (fromPath as (typeof IVR_PROMPT_UPLOAD.extensions)[number])
            : null);
        if (!extension) {
          res.resume();
          return reject(new PromptUrlError(`${rawUrl} is not wav, mp3 or ogg audio (${type || 'no content type'})`));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > IVR_PROMPT_UPLOAD.maxBytes) {
            req.destroy(new PromptUrlError(`${rawUrl} is larger than ${IVR_PROMPT_UPLOAD.maxBytes / (1024 * 1024)} MB`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ bytes: Buffer.concat(chunks), extension }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new PromptUrlError(`${rawUrl} did not answer within ${timeoutMs} ms`)));
    req.on('error', (error) => reject(error instanceof PromptUrlError ? error : new PromptUrlError(`${rawUrl}: ${error.message}`)));
    req.end();
  });
}
