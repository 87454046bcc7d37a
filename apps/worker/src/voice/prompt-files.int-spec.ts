import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresFileStore } from '@centralita/contracts/server';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../../api/src/database/data-source';
import { createTenant } from '../../../api/test/support/factories';
import { PromptFiles } from './prompt-files';

describe(PromptFiles.name, () => {
  let ds: DataSource;
  let store: PostgresFileStore;
  let dir: string;
  let tenantId: string;

  beforeAll(async () => {
    ds = createDataSource(process.env.DATABASE_URL!);
    await ds.initialize();
    // Small chunks: the copy must join several lo_get reads.
    store = new PostgresFileStore((text, values) => ds.query(text, values), 1024);
    tenantId = (await createTenant(ds)).client.id;
    dir = await mkdtemp(join(tmpdir(), 'prompt-files-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await ds.destroy();
  });

  const put = async (bytes: Buffer) => {
    const upload = await store.create(tenantId, 'ivr-prompt');
    await new Promise<void>((resolve, reject) => upload.stream.on('error', reject).end(bytes, resolve));
    return upload.id;
  };

  it('copies the stored prompt to a local file once and answers the same path again', async () => {
    const bytes = randomBytes(5000);
    const id = await put(bytes);
    const files = new PromptFiles(store, dir);
    const [a, b] = await Promise.all([files.path(tenantId, id), files.path(tenantId, id)]);
    expect(a).toBe(join(dir, tenantId, `${id}.wav`));
    expect(b).toBe(a);
    expect(await readFile(a!)).toEqual(bytes);
    // Served from the copy: the stored file is gone, the path still answers.
    await store.remove(id);
    expect(await new PromptFiles(store, dir).path(tenantId, id)).toBe(a);
  });

  it("answers null for a missing file, another tenant's file and a malformed id", async () => {
    const id = await put(randomBytes(10));
    const other = (await createTenant(ds)).client.id;
    const files = new PromptFiles(store, dir);
    expect(await files.path(other, id)).toBeNull();
    expect(await files.path(tenantId, randomUUID())).toBeNull();
    expect(await files.path(tenantId, '../../etc/passwd')).toBeNull();
  });
});
