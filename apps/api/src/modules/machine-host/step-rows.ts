import type { EntityManager } from 'typeorm';
import { writeOutbox, type OutboxEffect } from './outbox';
import { appendTransitionLog, type LogEntry } from './transition-log';
import { writeVersioned, type VersionedWrite, type Written } from './versioned-write';

/**
 * What every machine's step writes, whichever machine it is (the runner's persist step): the log
 * row of a creation, the versioned row with its log and outbox rows, outbox rows alone. Each
 * family's repository (MachineRows, OutboundMachineRows) extends it; withPgStepRows gives their
 * PostgreSQL implementations these writes, and their fakes write them in memory.
 */
export abstract class StepRows {
  /** The log row of a step written without writeVersioned (an entity's creation). */
  abstract appendLog(manager: EntityManager, entry: LogEntry): Promise<void>;
  /** One step: row, log row and outbox rows, in one statement; null when the version moved (see writeVersioned). */
  abstract writeVersioned<TRow>(manager: EntityManager, write: VersionedWrite): Promise<Written<TRow> | null>;
  /** Outbox rows of the manager's transaction, handed to the relay after commit; answers their ids. */
  abstract writeOutbox(manager: EntityManager, effects: OutboxEffect[]): Promise<string[]>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a mixin's base takes any constructor arguments
type AbstractRowsClass = abstract new (...args: any[]) => StepRows;

/** A repository's base class with the step writes done in PostgreSQL (the same statements for every machine). */
export function withPgStepRows<TBase extends AbstractRowsClass>(Base: TBase) {
  abstract class PgStepRows extends Base {
    appendLog(manager: EntityManager, entry: LogEntry): Promise<void> {
      return appendTransitionLog(manager, entry);
    }

    writeVersioned<TRow>(manager: EntityManager, write: VersionedWrite): Promise<Written<TRow> | null> {
      return writeVersioned<TRow>(manager, write);
    }

    writeOutbox(manager: EntityManager, effects: OutboxEffect[]): Promise<string[]> {
      return writeOutbox(manager, effects);
    }
  }
  return PgStepRows;
}
