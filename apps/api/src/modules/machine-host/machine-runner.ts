import {
  initial,
  persist,
  restore,
  step,
  type Actor,
  type IntentOf,
  type PersistedSnapshot,
  type TransitionRecord,
} from '@centralita/domain';
import type { AnyMachineSnapshot, AnyStateMachine, ContextFrom, InputFrom, SnapshotFrom } from 'xstate';
import { AppException } from '../../common/app.exception';
import type { LoggedEntity } from './transition-log';
import type { VersionedWrite } from './versioned-write';

/** What every bound machine's row has: its status, its persisted snapshot and the version its writes check. */
export interface BoundRow {
  status: string;
  version: number;
  snapshot: { value: unknown; context: Record<string, unknown>; status: string };
}

/** A machine's accepted step before it is written: everything its row, log row and effects derive from. */
export interface Stepped<TMachine extends AnyStateMachine, TInput> {
  snapshot: SnapshotFrom<TMachine>;
  context: ContextFrom<TMachine>;
  persisted: PersistedSnapshot;
  record: TransitionRecord;
  intents: IntentOf<TMachine>[];
  input: TInput;
}

/**
 * A machine bound to its table: how its row's columns derive from a stepped snapshot, which of
 * them the versioned write sets (in order), and what its transition-log rows carry.
 */
export interface MachineBinding<TMachine extends AnyStateMachine, TRow extends BoundRow, TInput extends { type: string }> {
  machine: TMachine;
  table: VersionedWrite['table'];
  keyColumn: string;
  keyOf(row: TRow): string;
  entity: LoggedEntity;
  /** How the illegal_transition message names the entity ("the conversation"). */
  noun: string;
  /** The status column of a snapshot (its leaf state). */
  statusOf(snapshot: SnapshotFrom<TMachine>): string;
  /** The row as the step leaves it, from the current row and the step (snapshot and version are the runner's). */
  derive(current: TRow, stepped: Stepped<TMachine, TInput>): TRow;
  /** The columns the versioned write sets besides version, in order, from the row `derive` answered. */
  columns(next: TRow, snapshotJson: string): [column: string, value: unknown][];
  /** The KPI data copied onto the step's log row (see kpi-log.ts). */
  logData(stepped: Stepped<TMachine, TInput>): object | null;
  /** The KPI data of the log row that creates the entity. */
  initialLogData(context: ContextFrom<TMachine>): object | null;
}

/** A step planned in memory (planStep): `next` is the row as its write will leave it. */
export interface StepPlan<TMachine extends AnyStateMachine, TRow extends BoundRow, TInput> extends Stepped<TMachine, TInput> {
  current: TRow;
  next: TRow;
  logData: object | null;
}

/** An entity's first snapshot, planned in memory (planCreate): what its INSERT and first log row hold. */
export interface CreatePlan<TMachine extends AnyStateMachine> {
  snapshot: SnapshotFrom<TMachine>;
  context: ContextFrom<TMachine>;
  status: string;
  snapshotJson: string;
  /** The creating event (`xstate.init`): the row's last_event. */
  lastEvent: string;
  record: TransitionRecord;
  logData: object | null;
}

/** The refusal every machine host answers for an event its machine does not take in its state. */
export function illegalTransition(noun: string, eventType: string, status: string): AppException {
  return new AppException('illegal_transition', {
    message: `${eventType} is not allowed while ${noun} is ${status}`,
    data: { event: eventType, state: status },
  });
}

export function isIllegalTransition(error: unknown): boolean {
  return error instanceof AppException && error.code === 'illegal_transition';
}

/**
 * Restores the row's snapshot, steps it with the event (stamped `at` and `actor`) and works out the
 * row, log data and intents the step leaves, with no I/O; refuses an event the machine does not take
 * (illegal_transition, the row's status in its data).
 */
export function planStep<TMachine extends AnyStateMachine, TRow extends BoundRow, TInput extends { type: string }>(
  binding: MachineBinding<TMachine, TRow, TInput>,
  current: TRow,
  input: TInput,
  actor: Actor,
  at: number = Date.now(),
): StepPlan<TMachine, TRow, TInput> {
  const restored = restore(binding.machine, current.snapshot as PersistedSnapshot);
  const result = step(binding.machine, restored, { ...input, at, actor } as Parameters<typeof step<TMachine>>[2]);
  if (!result.changed || !result.record) throw illegalTransition(binding.noun, input.type, current.status);
  const persisted = persist(binding.machine, result.snapshot);
  const stepped: Stepped<TMachine, TInput> = {
    snapshot: result.snapshot,
    context: (result.snapshot as AnyMachineSnapshot).context as ContextFrom<TMachine>,
    persisted,
    record: result.record,
    intents: result.intents,
    input,
  };
  const next: TRow = {
    ...binding.derive(current, stepped),
    snapshot: persisted as TRow['snapshot'],
    version: current.version + 1,
  };
  return { ...stepped, current, next, logData: binding.logData(stepped) };
}

/**
 * The one write of a planned step: the row's columns, checked against the version it was planned
 * from, with its transition-log row and the step's outbox effects (writeVersioned and its batch).
 */
export function stepWrite<TMachine extends AnyStateMachine, TRow extends BoundRow, TInput extends { type: string }>(
  binding: MachineBinding<TMachine, TRow, TInput>,
  plan: StepPlan<TMachine, TRow, TInput>,
  effects: VersionedWrite['effects'],
): VersionedWrite {
  return {
    table: binding.table,
    key: { column: binding.keyColumn, value: binding.keyOf(plan.current) },
    version: plan.current.version,
    set: binding.columns(plan.next, JSON.stringify(plan.persisted)),
    entity: binding.entity,
    record: plan.record,
    logData: plan.logData,
    effects,
  };
}

/** An entity's first snapshot (version 1), its status and its creating log record, with no I/O. */
export function planCreate<TMachine extends AnyStateMachine, TRow extends BoundRow, TInput extends { type: string }>(
  binding: MachineBinding<TMachine, TRow, TInput>,
  input: Omit<InputFrom<TMachine>, 'at' | 'actor'>,
  actor: Actor,
  at: number = Date.now(),
): CreatePlan<TMachine> {
  const created = initial(binding.machine, { ...input, at, actor } as Parameters<typeof initial<TMachine>>[1]);
  const context = (created.snapshot as AnyMachineSnapshot).context as ContextFrom<TMachine>;
  return {
    snapshot: created.snapshot,
    context,
    status: binding.statusOf(created.snapshot),
    snapshotJson: JSON.stringify(persist(binding.machine, created.snapshot)),
    lastEvent: created.record.event,
    record: created.record,
    logData: binding.initialLogData(context),
  };
}
