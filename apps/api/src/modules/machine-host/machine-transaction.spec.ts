import type { DataSource, EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { RetryTransaction, runMachineTransaction, TRANSACTION_ATTEMPTS } from './machine-transaction';
import { rememberWritten } from './outbox';

/** A data source whose transactions run `work` on a fresh manager each time, counting the runs. */
function fakeDataSource() {
  let runs = 0;
  const dataSource = {
    transaction: async <T>(work: (manager: EntityManager) => Promise<T>) => {
      runs++;
      return work({ run: runs } as unknown as EntityManager);
    },
  } as unknown as DataSource;
  return { dataSource, runs: () => runs };
}

const deadlock = () => Object.assign(new Error('deadlock detected'), { driverError: { code: '40P01' } });

describe(runMachineTransaction.name, () => {
  it("hands the committed transaction's outbox ids and records to the relay", async () => {
    const { dataSource } = fakeDataSource();
    const kick = jest.fn();
    const answer = await runMachineTransaction(dataSource, { kick }, async (manager, outbox) => {
      rememberWritten(manager, ['7'], ['socket'], ['{}']);
      outbox.push('7');
      return 'done';
    });
    expect(answer).toBe('done');
    expect(kick).toHaveBeenCalledWith(['7'], [{ id: '7', topic: 'socket', payload: '{}' }]);
  });

  it('runs a deadlocked or RetryTransaction run again when asked to retry, kicking only the run that committed', async () => {
    const { dataSource, runs } = fakeDataSource();
    const kick = jest.fn();
    const failures = [deadlock(), new RetryTransaction('locked out of order')];
    const answer = await runMachineTransaction(
      dataSource,
      { kick },
      async (_manager, outbox) => {
        outbox.push(`from run ${runs()}`);
        const failure = failures.shift();
        if (failure) throw failure;
        return runs();
      },
      { retry: true },
    );
    expect(answer).toBe(3);
    expect(kick).toHaveBeenCalledTimes(1);
    expect(kick).toHaveBeenCalledWith(['from run 3'], []);
  });

  it('answers conflict after its attempts', async () => {
    const { dataSource, runs } = fakeDataSource();
    const failed = runMachineTransaction(dataSource, { kick: jest.fn() }, () => Promise.reject(deadlock()), { retry: true });
    await expect(failed).rejects.toMatchObject({ code: 'conflict' });
    await expect(failed).rejects.toBeInstanceOf(AppException);
    expect(runs()).toBe(TRANSACTION_ATTEMPTS);
  });

  it('throws a deadlock at once without retry, and any other error even with it', async () => {
    const first = fakeDataSource();
    await expect(runMachineTransaction(first.dataSource, { kick: jest.fn() }, () => Promise.reject(deadlock()))).rejects.toThrow(
      'deadlock',
    );
    expect(first.runs()).toBe(1);
    const second = fakeDataSource();
    const other = new Error('boom');
    await expect(runMachineTransaction(second.dataSource, { kick: jest.fn() }, () => Promise.reject(other), { retry: true })).rejects.toBe(
      other,
    );
    expect(second.runs()).toBe(1);
  });
});
