import type { PhoneListImportJob } from '@centralita/contracts';
import { Logger } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import type { DataSource } from 'typeorm';
import { PhoneListImportProcessor } from './phone-list-import.processor';

describe(PhoneListImportProcessor.name, () => {
  const query = jest.fn(async (_sql: string, _params?: unknown[]) => []);
  const db = { isInitialized: true, initialize: jest.fn(async () => db), query } as unknown as DataSource;
  const processor = new PhoneListImportProcessor(db);
  const importId = '5b0f6d8e-3d7a-4c1e-9f0a-2b3c4d5e6f70';
  const job = (attemptsMade: number, data: unknown = { importId }): Job<PhoneListImportJob> =>
    ({ id: importId, data, attemptsMade, opts: { attempts: 3 } }) as unknown as Job<PhoneListImportJob>;
  const marked = () => query.mock.calls.filter(([sql]) => sql.includes("failure_code = 'import_failed'"));

  beforeAll(() => jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined));
  beforeEach(() => query.mockClear());

  it('leaves the import to its next attempt while attempts remain', async () => {
    await processor.onFailed(job(1), new Error('connection reset'));
    expect(marked()).toHaveLength(0);
  });

  it('marks the import failed with a reason after the last attempt, unless it already finished', async () => {
    await processor.onFailed(job(3), new Error('connection reset'));
    expect(marked()).toHaveLength(1);
    expect(marked()[0][0]).toContain(`status IN ('queued', 'running')`);
    expect(marked()[0][1]).toEqual([importId, 'the import could not be completed; try again']);
  });

  it('marks it at once when the error is unrecoverable', async () => {
    await processor.onFailed(job(1), new UnrecoverableError('bad payload'));
    expect(marked()).toHaveLength(1);
  });

  it('fails a job without a well-formed import id for good, touching nothing', async () => {
    await expect(processor.process(job(0, { importId: "x' OR 1=1" }))).rejects.toBeInstanceOf(UnrecoverableError);
    await processor.onFailed(job(3, { importId: null }), new Error('x'));
    expect(query).not.toHaveBeenCalled();
  });
});
