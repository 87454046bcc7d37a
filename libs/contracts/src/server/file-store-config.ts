import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { FileStoreError, PostgresFileStore, type FileStore, type FileStoreSql } from './file-store';
import { S3Client, type S3ClientOptions, type S3Settings } from './s3-client';
import { S3FileStore, type S3FileStoreOptions } from './s3-file-store';
import { EMPTY_PAYLOAD_SHA256 } from './sigv4';

/** Which store new files go to (FILE_STORE); read once at start-up by the API and the worker alike. */
export type FileStoreConfig = { driver: 'postgres' } | { driver: 's3'; s3: S3Settings };

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const PREFIX = /^[A-Za-z0-9!_.*'()-]+(\/[A-Za-z0-9!_.*'()-]+)*$/;

/**
 * FILE_STORE=postgres|s3 (postgres by default) and, for s3: S3_BUCKET, S3_ACCESS_KEY_ID and
 * S3_SECRET_ACCESS_KEY (required), S3_REGION (us-east-1), S3_ENDPOINT (AWS's endpoint of the
 * region), S3_PREFIX (centralita), S3_FORCE_PATH_STYLE (off). Problems are appended to `problems`
 * with the setting's name; secrets are never quoted.
 */
export function parseFileStoreConfig(env: NodeJS.ProcessEnv, problems: string[]): FileStoreConfig {
  const read = (name: string): string | undefined => env[name]?.trim() || undefined;
  const driver = (read('FILE_STORE') ?? 'postgres').toLowerCase();
  if (driver === 'postgres') return { driver: 'postgres' };
  if (driver !== 's3') {
    problems.push(`FILE_STORE must be postgres or s3 (got "${driver}")`);
    return { driver: 'postgres' };
  }
  const before = problems.length;
  const required = (name: string): string => {
    const value = read(name);
    if (value === undefined) problems.push(`${name} is required when FILE_STORE=s3`);
    return value ?? '';
  };
  const bucket = required('S3_BUCKET');
  if (bucket && (!BUCKET.test(bucket) || bucket.includes('..')))
    problems.push(`S3_BUCKET must be 3-63 lowercase letters, digits, "." or "-" (got "${bucket}")`);
  const accessKeyId = required('S3_ACCESS_KEY_ID');
  const secretAccessKey = required('S3_SECRET_ACCESS_KEY');
  const region = read('S3_REGION') ?? 'us-east-1';
  if (!/^[a-z0-9-]{2,40}$/.test(region)) problems.push(`S3_REGION must look like eu-west-1 (got "${region}")`);

  const endpoint = (read('S3_ENDPOINT') ?? `https://s3.${region}.amazonaws.com`).replace(/\/+$/, '');
  let endpointHost = '';
  try {
    const parsed = new URL(endpoint);
    if (!['http:', 'https:'].includes(parsed.protocol)) problems.push(`S3_ENDPOINT must use http: or https: (got "${parsed.protocol}")`);
    if (parsed.username || parsed.password)
      problems.push('S3_ENDPOINT must not carry credentials: use S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY');
    if (parsed.search || parsed.hash) problems.push('S3_ENDPOINT must not have a query or fragment');
    endpointHost = parsed.hostname.replace(/^\[|\]$/g, '');
  } catch {
    problems.push('S3_ENDPOINT must be a valid URL, e.g. https://s3.eu-west-1.amazonaws.com');
  }

  const prefix = (read('S3_PREFIX') ?? 'centralita').replace(/^\/+|\/+$/g, '');
  if (prefix && (!PREFIX.test(prefix) || prefix.length > 200))
    problems.push('S3_PREFIX may only contain letters, digits, "!_.*\'()-" and "/" between segments (at most 200 characters)');

  const pathStyleRaw = read('S3_FORCE_PATH_STYLE')?.toLowerCase();
  const forcePathStyle = pathStyleRaw !== undefined && ['on', 'true', '1', 'yes'].includes(pathStyleRaw);
  if (pathStyleRaw !== undefined && !forcePathStyle && !['off', 'false', '0', 'no'].includes(pathStyleRaw))
    problems.push(`S3_FORCE_PATH_STYLE must be on or off (got "${pathStyleRaw}")`);
  if (!forcePathStyle && endpointHost && (isIP(endpointHost) || endpointHost === 'localhost'))
    problems.push(`S3_FORCE_PATH_STYLE must be on when S3_ENDPOINT is an address (${endpointHost}): a bucket cannot be its subdomain`);

  if (problems.length > before) return { driver: 'postgres' };
  return { driver: 's3', s3: { endpoint, region, bucket, accessKeyId, secretAccessKey, prefix, forcePathStyle } };
}

/** A description for logs: never the secret, nor the access key id. */
export function describeFileStore(config: FileStoreConfig): string {
  if (config.driver === 'postgres') return 'PostgreSQL large objects';
  const { endpoint, bucket, prefix, region, forcePathStyle } = config.s3;
  return `S3 bucket ${bucket} at ${endpoint} (region ${region}, prefix "${prefix}", ${forcePathStyle ? 'path' : 'virtual-hosted'} style)`;
}

export interface CreateFileStoreOptions extends S3FileStoreOptions {
  client?: S3ClientOptions;
}

/** The one factory of the API and the worker: every process builds the store the same way from the same settings. */
export function createFileStore(config: FileStoreConfig, sql: FileStoreSql, options: CreateFileStoreOptions = {}): FileStore {
  if (config.driver === 'postgres') return new PostgresFileStore(sql);
  return new S3FileStore(sql, new S3Client(config.s3, options.client), options);
}

/**
 * Start-up check of the S3 settings: writes, reads back and deletes a small probe object under the
 * prefix, so wrong credentials, bucket or region stop the process with a message naming the setting
 * (a FileStoreError of kind `configuration`) instead of failing every upload later. Nothing to check
 * for PostgreSQL (its connection is checked by the database module).
 */
export async function checkFileStore(config: FileStoreConfig, options: S3ClientOptions = {}): Promise<void> {
  if (config.driver === 'postgres') return;
  const client = new S3Client(config.s3, options);
  const key = `${config.s3.prefix ? `${config.s3.prefix}/` : ''}.probe/${randomUUID()}`;
  await client.putObject(
    key,
    { bytes: Buffer.alloc(0) },
    { contentType: 'application/octet-stream', contentLength: 0, sha256: EMPTY_PAYLOAD_SHA256 },
  );
  const head = await client.headObject(key);
  await client.deleteObject(key);
  if (!head)
    throw new FileStoreError('configuration', `S3 bucket ${config.s3.bucket} did not keep a probe object: check S3_BUCKET and S3_ENDPOINT`);
}

/**
 * checkFileStore at start-up: a configuration error stops the process (thrown); S3 unreachable
 * only warns, since it may come back, and each call then answers its own error.
 */
export async function checkFileStoreAtStartup(
  config: FileStoreConfig,
  warn: (message: string) => void,
  options: S3ClientOptions = {},
): Promise<void> {
  try {
    await checkFileStore(config, options);
  } catch (error) {
    if (error instanceof FileStoreError && error.kind === 'configuration')
      throw new FileStoreError('configuration', `FILE_STORE=s3: ${error.message}`, error.storeCode);
    warn(`the file store (${describeFileStore(config)}) could not be checked at start-up: ${(error as Error).message}`);
  }
}
