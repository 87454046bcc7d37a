import { Readable, Writable } from 'node:stream';

/**
 * One file store reachable from every API and worker process (attachments, customers' media,
 * report exports). A file is a row of `stored_files` plus its bytes; the row is created first, the
 * owner records its id, then the bytes are streamed in and the file is marked complete with its
 * size. Readers only see complete files. The row's `driver` says which store holds the bytes, so
 * files written before the store was switched stay readable.
 *
 * The default driver keeps the bytes in PostgreSQL large objects, written and read in chunks with
 * `lo_put`/`lo_get` (each chunk its own statement: no transaction held open for the length of an
 * export, memory bounded by one chunk). Deleting the row unlinks the large object in the same
 * transaction (trigger `stored_files_unlink`), so a tenant's deletion or any cascade cannot leave
 * bytes behind. The S3 driver (s3-file-store.ts, FILE_STORE=s3) implements the same contract with
 * an outbox of deletions in place of the unlink.
 */
export interface FileStore {
  /** Registers a new empty file; record the id with its owner before writing, so nothing is orphaned. */
  create(tenantId: string, kind: string, options?: FileCreateOptions): Promise<FileUpload>;
  /** A complete file of the tenant, streamed in chunks; null when it does not exist (or is not complete). */
  open(tenantId: string, id: string): Promise<{ stream: Readable; byteSize: number } | null>;
  /** Deletes the file and its bytes; a missing file is not an error. */
  remove(id: string): Promise<void>;
  /** Deletes files never completed (a writer that crashed) created before `before`. */
  removeAbandoned(before: Date): Promise<number>;
}

export interface FileCreateOptions {
  /** Content-Type an object store records with the bytes (application/octet-stream otherwise). */
  contentType?: string;
}

/**
 * What a store's failure means for its caller: `configuration` (credentials, bucket, region: the
 * operator must act; the message names the setting), `unavailable` (try again later), `not_found`.
 */
export class FileStoreError extends Error {
  constructor(
    readonly kind: 'configuration' | 'unavailable' | 'not_found',
    message: string,
    /** The store's own code (S3's `<Code>`), when it gave one. */
    readonly storeCode?: string,
  ) {
    super(message);
    this.name = 'FileStoreError';
  }
}

export interface FileUpload {
  id: string;
  /**
   * Takes the bytes; buffers at most one chunk and waits for the store before taking more.
   * `finish` (end() resolving) means the bytes are stored and the file is complete.
   */
  stream: Writable;
}

/** Runs one statement and answers its rows (TypeORM's `DataSource.query` or a pg pool wrapper). */
export type FileStoreSql = (text: string, values?: unknown[]) => Promise<unknown>;

/** Bytes per `lo_put`/`lo_get` round trip. */
export const FILE_STORE_CHUNK_BYTES = 256 * 1024;

type Row = Record<string, unknown>;
const rowsOf = (result: unknown): Row[] => (Array.isArray(result) ? (result as Row[]) : []);

export class PostgresFileStore implements FileStore {
  constructor(
    private readonly sql: FileStoreSql,
    private readonly chunkBytes = FILE_STORE_CHUNK_BYTES,
  ) {}

  async create(tenantId: string, kind: string): Promise<FileUpload> {
    // One statement: the large object exists only with the row that owns it.
    const [row] = rowsOf(
      await this.sql(
        `INSERT INTO stored_files (tenant_id, kind, driver, lo_oid) VALUES ($1, $2, 'postgres', lo_create(0)) RETURNING id, lo_oid::text AS oid`,
        [tenantId, kind],
      ),
    );
    const id = String(row!.id);
    return { id, stream: new LargeObjectWriter(this.sql, id, String(row!.oid), this.chunkBytes) };
  }

  async open(tenantId: string, id: string): Promise<{ stream: Readable; byteSize: number } | null> {
    const [row] = rowsOf(
      await this.sql(
        `SELECT lo_oid::text AS oid, byte_size FROM stored_files WHERE id = $1 AND tenant_id = $2 AND completed_at IS NOT NULL AND lo_oid IS NOT NULL`,
        [id, tenantId],
      ),
    );
    if (!row) return null;
    const byteSize = Number(row.byte_size);
    return { stream: new LargeObjectReader(this.sql, String(row.oid), byteSize, this.chunkBytes), byteSize };
  }

  async remove(id: string): Promise<void> {
    await this.sql(`DELETE FROM stored_files WHERE id = $1`, [id]);
  }

  async removeAbandoned(before: Date): Promise<number> {
    const rows = rowsOf(
      await this.sql(`WITH d AS (DELETE FROM stored_files WHERE completed_at IS NULL AND created_at < $1 RETURNING id) SELECT id FROM d`, [
        before,
      ]),
    );
    return rows.length;
  }
}

class LargeObjectWriter extends Writable {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private offset = 0;

  constructor(
    private readonly sql: FileStoreSql,
    private readonly id: string,
    private readonly oid: string,
    private readonly chunkBytes: number,
  ) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes < this.chunkBytes) return callback();
    this.flush().then(() => callback(), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.flush()
      .then(() =>
        this.sql(`UPDATE stored_files SET byte_size = $2, completed_at = now() WHERE id = $1`, [this.id, this.offset]).then(
          () => undefined,
        ),
      )
      .then(() => callback(), callback);
  }

  private async flush(): Promise<void> {
    if (!this.pendingBytes) return;
    const data = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    await this.sql(`SELECT lo_put($1::oid, $2::bigint, $3::bytea)`, [this.oid, this.offset, data]);
    this.offset += data.length;
  }
}

class LargeObjectReader extends Readable {
  private offset = 0;

  constructor(
    private readonly sql: FileStoreSql,
    private readonly oid: string,
    private readonly byteSize: number,
    private readonly chunkBytes: number,
  ) {
    super();
  }

  override _read(): void {
    if (this.offset >= this.byteSize) {
      this.push(null);
      return;
    }
    const length = Math.min(this.chunkBytes, this.byteSize - this.offset);
    this.sql(`SELECT lo_get($1::oid, $2::bigint, $3::int) AS data`, [this.oid, this.offset, length]).then(
      (result) => {
        const data = rowsOf(result)[0]?.data;
        if (!Buffer.isBuffer(data) || data.length !== length) {
          this.destroy(new Error(`stored file ${this.oid}: expected ${length} bytes at ${this.offset}`));
          return;
        }
        this.offset += data.length;
        this.push(data);
      },
      (error: Error) => this.destroy(error),
    );
  }
}
