import type { DataSource, EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import type { OutboxRelay } from './outbox-relay.service';
import { writtenInTransaction, type OutboxRecord } from './outbox';

/**
 * Thrown inside a transaction run with `retry` to roll it back and run it again: the command found
 * it must lock a row it could only lock out of the global order (see MachineHostService.lockAgents).
 */
export class RetryTransaction extends Error {}

/** Attempts of a transaction run with `retry` (a deadlock or serialization failure, or RetryTransaction). */
export const TRANSACTION_ATTEMPTS = 4;

/** PostgreSQL gave up on the transaction for a reason a second run would not meet: deadlock, serialization failure. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof RetryTransaction) return true;
  const failed = error as { code?: unknown; driverError?: { code?: unknown } } | null;
  const code = failed?.driverError?.code ?? failed?.code;
  return code === '40P01' || code === '40001';
}

/**
 * Runs `work` in one transaction and hands the outbox rows it wrote to the relay after commit.
 * With `retry`, a run PostgreSQL rolled back as a deadlock victim or serialization failure (or
 * that threw RetryTransaction) runs again, up to TRANSACTION_ATTEMPTS times, then answers 409:
 * `work` must then touch nothing but the database.
 */
export async function runMachineTransaction<T>(
  dataSource: Pick<DataSource, 'transaction'>,
  relay: Pick<OutboxRelay, 'kick'>,
  work: (manager: EntityManager, outbox: string[]) => Promise<T>,
  options: { retry?: boolean } = {},
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const outbox: string[] = [];
    let records: OutboxRecord[] = [];
    try {
      const result = await dataSource.transaction(async (manager) => {
        const value = await work(manager, outbox);
        records = writtenInTransaction(manager);
        return value;
      });
      relay.kick(outbox, records);
      return result;
    } catch (error) {
      if (!options.retry || !isRetryable(error)) throw error;
      if (attempt >= TRANSACTION_ATTEMPTS) {
        throw new AppException('conflict', { message: 'Others changed these records at the same moment; try again' });
      }
    }
  }
}
