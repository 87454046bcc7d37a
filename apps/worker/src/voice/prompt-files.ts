import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FileStore } from '@centralita/contracts/server';

/**
 * IVR prompt audio as a local file rtpengine can play (play media `file=`). Prompts live in the
 * shared file store (8 kHz mono 16-bit PCM WAV, rendered at publish or uploaded); a stored file
 * never changes, so a copy kept under its id stays right for ever. A download lands in a temporary
 * name and is renamed into place, so a player never opens half a file; concurrent asks for the
 * same prompt share one download.
 */
export class PromptFiles {
  private readonly inFlight = new Map<string, Promise<string | null>>();

  constructor(
    private readonly store: FileStore,
    /** Where the copies go (VOICE_PROMPT_CACHE_DIR; default <tmp>/centralita-prompts). */
    readonly cacheDir: string = process.env.VOICE_PROMPT_CACHE_DIR?.trim() || join(tmpdir(), 'centralita-prompts'),
  ) {}

  /** The local path of the tenant's prompt file, or null when the store has no such (complete) file for that tenant. */
  async path(tenantId: string, fileId: string): Promise<string | null> {
    if (!/^[0-9a-f-]{36}$/i.test(fileId) || !/^[0-9a-f-]{36}$/i.test(tenantId)) return null;
    const target = join(this.cacheDir, tenantId, `${fileId}.wav`);
    if (await exists(target)) return target;
    const key = `${tenantId}/${fileId}`;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.download(tenantId, fileId, target).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  private async download(tenantId: string, fileId: string, target: string): Promise<string | null> {
    const file = await this.store.open(tenantId, fileId);
    if (!file) return null;
    await mkdir(join(this.cacheDir, tenantId), { recursive: true });
    const partial = `${target}.${process.pid}.${Date.now()}.part`;
    try {
      await pipeline(file.stream, createWriteStream(partial));
      await rename(partial, target);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    return target;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** One-shot form of PromptFiles.path for callers that keep no instance. */
export function promptFilePath(store: FileStore, tenantId: string, fileId: string, cacheDir?: string): Promise<string | null> {
  return new PromptFiles(store, cacheDir).path(tenantId, fileId);
}
