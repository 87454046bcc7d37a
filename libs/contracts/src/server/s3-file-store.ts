import { createHash, randomUUID, type Hash } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable, type Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import {
  FileStoreError,
  PostgresFileStore,
  type FileCreateOptions,
  type FileStore,
  type FileStoreSql,
  type FileUpload,
} from './file-store';
import type { S3Client } from './s3-client';

export interface S3FileStoreOptions {
  /** Bytes an upload keeps in memory; beyond that it spills to a temporary file (memory stays flat for large exports). */
  memoryBytes?: number;
  /** Where spilled uploads wait for their PutObject (the OS temporary directory by default). */
  spoolDir?: string;
  /** Turns a store failure into the caller's own error (the API answers 503 for configuration/unavailable). */
  translateError?: (error: unknown) => unknown;
}

export const S3_MEMORY_BYTES = 8 * 1024 * 1024;
/** Deletions sent to S3 per sweep; the rest wait for the next one. */
const DELETIONS_PER_SWEEP = 1000;

type Row = Record<string, unknown>;
const rowsOf = (result: unknown): Row[] => (Array.isArray(result) ? (result as Row[]) : []);

/**
 * The file store in an S3-compatible bucket (FILE_STORE=s3). The `stored_files` row stays the index:
 * it is written first (driver 's3', `object_key` = `<prefix>/<tenantId>/<fileId>`), the object is
 * PUT with its size and sha256, and only then is the row marked complete, so readers never see a
 * half-written file. Rows of the large-object driver are still read from PostgreSQL.
 *
 * "Nothing stored or lost" without a transaction spanning PostgreSQL and S3: deleting a row (here,
 * by a report expiry's SQL, or by a tenant's cascade) queues its key in `stored_file_deletions` in
 * the same transaction (trigger `stored_files_unlink`); `remove` deletes the object at once and
 * `removeAbandoned` (the worker's periodic sweep) sends every queued deletion still pending. A
 * writer that died between PUT and completion leaves an incomplete row, which the sweep deletes
 * with its object; a row deleted while its object was being written is detected at completion and
 * the writer deletes the object itself.
 */
export class S3FileStore implements FileStore {
  private readonly largeObjects: PostgresFileStore;
  private readonly memoryBytes: number;

  constructor(
    private readonly sql: FileStoreSql,
    readonly client: S3Client,
    private readonly options: S3FileStoreOptions = {},
  ) {
    this.largeObjects = new PostgresFileStore(sql);
    this.memoryBytes = options.memoryBytes ?? S3_MEMORY_BYTES;
  }

  keyOf(tenantId: string, id: string): string {
    const prefix = this.client.settings.prefix;
    return prefix ? `${prefix}/${tenantId}/${id}` : `${tenantId}/${id}`;
  }

  async create(tenantId: string, kind: string, options: FileCreateOptions = {}): Promise<FileUpload> {
    const id = randomUUID();
    const key = this.keyOf(tenantId, id);
    await this.sql(`INSERT INTO stored_files (id, tenant_id, kind, driver, object_key) VALUES ($1, $2, $3, 's3', $4)`, [
      id,
      tenantId,
      kind,
      key,
    ]);
    return {
      id,
      stream: new S3ObjectWriter({
        store: this,
        sql: this.sql,
        id,
        key,
        contentType: options.contentType ?? 'application/octet-stream',
        memoryBytes: this.memoryBytes,
        spoolDir: this.options.spoolDir ?? tmpdir(),
        translate: (error) => this.translate(error),
      }),
    };
  }

  async open(tenantId: string, id: string): Promise<{ stream: Readable; byteSize: number } | null> {
    const [row] = rowsOf(
      await this.sql(
        `SELECT driver, object_key, byte_size FROM stored_files WHERE id = $1 AND tenant_id = $2 AND completed_at IS NOT NULL`,
        [id, tenantId],
      ),
    );
    if (!row) return null;
    // Written before the switch to S3: still a large object.
    if (row.driver !== 's3') return this.largeObjects.open(tenantId, id);
    const byteSize = Number(row.byte_size);
    const object = await this.client.getObject(String(row.object_key)).catch((error: unknown) => {
      throw this.translate(error);
    });
    if (!object) return null;
    if (object.contentLength !== byteSize) {
      object.stream.destroy();
      throw this.translate(
        new FileStoreError('unavailable', `stored file ${id}: the bucket holds ${object.contentLength} bytes, ${byteSize} were written`),
      );
    }
    return { stream: object.stream, byteSize };
  }

  async remove(id: string): Promise<void> {
    const [row] = rowsOf(
      await this.sql(`WITH d AS (DELETE FROM stored_files WHERE id = $1 RETURNING driver, object_key) SELECT * FROM d`, [id]),
    );
    // The trigger queued the key in the deletion's own statement: if S3 fails now, the sweep sends it later.
    if (row?.driver === 's3') await this.sendDeletions([String(row.object_key)]).catch(() => undefined);
  }

  async removeAbandoned(before: Date): Promise<number> {
    const rows = rowsOf(
      await this.sql(`WITH d AS (DELETE FROM stored_files WHERE completed_at IS NULL AND created_at < $1 RETURNING id) SELECT id FROM d`, [
        before,
      ]),
    );
    await this.purgeDeleted();
    return rows.length;
  }

  /** Sends the queued deletions (rows already gone) to S3; answers how many were done. */
  async purgeDeleted(): Promise<number> {
    const pending = rowsOf(await this.sql(`SELECT DISTINCT object_key FROM stored_file_deletions LIMIT ${DELETIONS_PER_SWEEP}`));
    if (!pending.length) return 0;
    await this.sendDeletions(pending.map((row) => String(row.object_key)));
    return pending.length;
  }

  /** Deletes the objects, then their queue entries; a key whose row came back (never: ids are new) is left alone. */
  private async sendDeletions(keys: string[]): Promise<void> {
    for (const key of keys) {
      await this.client.deleteObject(key).catch((error: unknown) => {
        throw this.translate(error);
      });
      await this.sql(`DELETE FROM stored_file_deletions WHERE object_key = $1`, [key]);
    }
  }

  private translate(error: unknown): unknown {
    return this.options.translateError ? this.options.translateError(error) : error;
  }
}

/**
 * Takes an upload's bytes, hashing them as they come (x-amz-content-sha256 is signed), in memory up
 * to `memoryBytes` and then in a private temporary file, so a retried PutObject can send them again.
 */
class S3ObjectWriter extends Writable {
  private chunks: Buffer[] = [];
  private size = 0;
  private readonly hash: Hash = createHash('sha256');
  private spool: { path: string; stream: WriteStream } | null = null;

  constructor(
    private readonly target: {
      store: S3FileStore;
      sql: FileStoreSql;
      id: string;
      key: string;
      contentType: string;
      memoryBytes: number;
      spoolDir: string;
      translate: (error: unknown) => unknown;
    },
  ) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.hash.update(chunk);
    this.size += chunk.length;
    if (!this.spool) {
      this.chunks.push(chunk);
      if (this.size <= this.target.memoryBytes) return callback();
      const spoolPath = path.join(this.target.spoolDir, `centralita-upload-${this.target.id}-${randomUUID().slice(0, 8)}`);
      this.spool = { path: spoolPath, stream: createWriteStream(spoolPath, { flags: 'wx', mode: 0o600 }) };
      this.spool.stream.on('error', (error) => this.destroy(error));
      chunk = Buffer.concat(this.chunks);
      this.chunks = [];
    }
    if (this.spool.stream.write(chunk)) callback();
    else this.spool.stream.once('drain', () => callback());
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.complete().then(
      () => callback(),
      (error: unknown) => callback(this.target.translate(error) as Error),
    );
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.cleanUp().then(
      () => callback(error),
      () => callback(error),
    );
  }

  private async complete(): Promise<void> {
    const { store, sql, id, key, contentType } = this.target;
    try {
      if (this.spool) {
        this.spool.stream.end();
        await finished(this.spool.stream);
      }
      const body = this.spool ? { path: this.spool.path } : { bytes: Buffer.concat(this.chunks, this.size) };
      await store.client.putObject(key, body, { contentType, contentLength: this.size, sha256: this.hash.digest('hex') });
      const [done] = rowsOf(
        await sql(
          `WITH u AS (UPDATE stored_files SET byte_size = $2, completed_at = now() WHERE id = $1 AND completed_at IS NULL RETURNING id) SELECT id FROM u`,
          [id, this.size],
        ),
      );
      if (!done) {
        // The row went (its tenant deleted, or the sweep) while the bytes travelled: take them back.
        await store.client.deleteObject(key).catch(() => undefined);
        throw new FileStoreError('not_found', `stored file ${id} was deleted while it was being written`);
      }
    } finally {
      await this.cleanUp();
    }
  }

  private async cleanUp(): Promise<void> {
    this.chunks = [];
    const spool = this.spool;
    this.spool = null;
    if (!spool) return;
    spool.stream.destroy();
    await unlink(spool.path).catch(() => undefined);
  }
}
