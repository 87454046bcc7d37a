import os from 'node:os';
import path from 'node:path';

/**
 * Where export files live: REPORT_EXPORT_DIR, else a directory under the OS temp dir. The API
 * (downloads) and the worker (writes) must see the same directory; the worker deletes files older
 * than REPORT_EXPORT_RETENTION_HOURS (default 24).
 */
export function reportExportDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.REPORT_EXPORT_DIR?.trim() || path.join(os.tmpdir(), 'centralita-exports');
}

export function reportExportPath(dir: string, id: string, format: string): string {
  return path.join(dir, `${id}.${format}`);
}
