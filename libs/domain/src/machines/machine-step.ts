import {
  createActor,
  initialTransition,
  type ActorScope,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type ContextFrom,
  type EventFromLogic,
  type ExecutableActionsFrom,
  type InputFrom,
  type SnapshotFrom,
  type StateMachine,
  type StateValue,
} from 'xstate';
import { DomainError } from '../domain-error';

export type ActorKind = 'agent' | 'customer' | 'supervisor' | 'system';

/** Who caused an event. `id` is absent for anonymous customers and for the system. */
export interface Actor {
  kind: ActorKind;
  id?: string;
}

/**
 * Every event and every creation input carries its own time and author: machines never read a
 * clock, so replaying the transition log reproduces the same snapshots and KPIs.
 */
export interface Stamped {
  at: number;
  actor: Actor;
}

/** One row of the transition log: KPIs are computed from these alone (see `timeInStates`). */
export interface TransitionRecord<TStatus extends string = string> {
  /** null only for the record that creates the entity. */
  from: TStatus | null;
  to: TStatus;
  event: string;
  at: number;
  actor: Actor;
}

type LeafOf<TValue> = TValue extends string ? TValue : TValue extends Record<string, infer TChild> ? LeafOf<TChild> : never;

/** The status names of a machine: the leaf state names of its state value. */
export type StatusOf<TMachine extends AnyStateMachine> = LeafOf<SnapshotFrom<TMachine>['value']>;

type ActionsOf<TMachine> =
  TMachine extends StateMachine<
    infer _TContext,
    infer _TEvent,
    infer _TChildren,
    infer _TActor,
    infer TAction,
    infer _TGuard,
    infer _TDelay,
    infer _TStateValue,
    infer _TTag,
    infer _TInput,
    infer _TOutput,
    infer _TEmitted,
    infer _TMeta,
    infer _TStateSchema,
    infer _TTransitionMeta
  >
    ? TAction
    : never;

/**
 * An effect the machine asks the host to perform (enqueue routing, arm a timer, notify an agent),
 * as a union discriminated by `type`. Only actions declared by name in `setup` are intents:
 * context updates are unnamed `assign`s and never appear.
 */
export type IntentOf<TMachine extends AnyStateMachine> =
  ActionsOf<TMachine> extends infer TAction
    ? TAction extends { type: string; params: unknown }
      ? { type: TAction['type']; params: TAction['params'] }
      : never
    : never;

export interface StepResult<TMachine extends AnyStateMachine> {
  snapshot: SnapshotFrom<TMachine>;
  /** false when the event was refused: the snapshot is then the very object passed in. */
  changed: boolean;
  intents: IntentOf<TMachine>[];
  /** The transition-log row to write with the snapshot; null when refused. */
  record: TransitionRecord<StatusOf<TMachine>> | null;
}

/** Leaf state name of a state value; our machines never run parallel regions. */
export function leafState(value: StateValue): string {
  let current = value;
  while (typeof current !== 'string') {
    const [child] = Object.values(current);
    if (child === undefined) throw new DomainError('machine.invalidInput', 'State value has no active child state');
    current = child;
  }
  return current;
}

function statusOf<TMachine extends AnyStateMachine>(snapshot: SnapshotFrom<TMachine>): StatusOf<TMachine> {
  return leafState((snapshot as AnyMachineSnapshot).value) as StatusOf<TMachine>;
}

function toIntents<TMachine extends AnyStateMachine>(actions: ExecutableActionsFrom<TMachine>[]): IntentOf<TMachine>[] {
  // Built-in xstate actions (raise, sendTo, spawn) are not host effects; our machines use none.
  return actions.filter((action) => !action.type.startsWith('xstate.')).map(({ type, params }) => ({ type, params }) as IntentOf<TMachine>);
}

/** An action implementation that throws leaves the snapshot in status 'error' instead of throwing. */
function throwIfErrored(snapshot: { status: string; error?: unknown }): void {
  if (snapshot.status !== 'error') return;
  throw snapshot.error instanceof Error ? snapshot.error : new DomainError('machine.invalidInput', String(snapshot.error));
}

/** Creates an entity: its first snapshot, the intents of its initial state and its first log row. */
export function initial<TMachine extends AnyStateMachine>(
  machine: TMachine,
  input: InputFrom<TMachine> & Stamped,
): Omit<StepResult<TMachine>, 'record'> & { record: TransitionRecord<StatusOf<TMachine>> } {
  const [snapshot, actions] = initialTransition(machine, input);
  throwIfErrored(snapshot);
  return {
    snapshot,
    changed: true,
    intents: toIntents<TMachine>(actions),
    record: { from: null, to: statusOf<TMachine>(snapshot), event: 'xstate.init', at: input.at, actor: input.actor },
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- one scope serves any machine's snapshots and events
type InertScope = ActorScope<any, any> & { collected: ExecutableActionsFrom<AnyStateMachine>[] };
const inertScopes = new WeakMap<AnyStateMachine, InertScope>();

/**
 * The actor scope `step` hands to a machine's own `transition`, made once per machine. It is what
 * xstate's pure `transition()` builds on every call, minus the cost: that builds a new inert actor
 * each time, whose constructor computes an initial snapshot without input — which our context
 * factories refuse by throwing, so every step paid for an exception and its stack trace (about a
 * third of a step, in the P6 benchmark's profile). Our machines spawn no children, schedule no
 * delayed events and send nothing to other actors, so the scope holds nothing between calls but
 * the list the step's actions are collected in, emptied by each step.
 */
function inertScope(machine: AnyStateMachine): InertScope {
  let scope = inertScopes.get(machine);
  if (scope) return scope;
  // Never started: its own failed initial snapshot (no input) is never used.
  const self = createActor(machine);
  const collected: InertScope['collected'] = [];
  scope = {
    self,
    system: self.system,
    id: '',
    sessionId: '',
    logger: () => {},
    defer: () => {},
    emit: () => {},
    stopChild: () => {},
    actionExecutor: (action) => {
      collected.push(action as ExecutableActionsFrom<AnyStateMachine>);
    },
    collected,
  };
  inertScopes.set(machine, scope);
  return scope;
}

/** xstate's pure `transition(machine, snapshot, event)`, on the machine's reusable inert scope. */
function transition<TMachine extends AnyStateMachine>(
  machine: TMachine,
  snapshot: SnapshotFrom<TMachine>,
  event: EventFromLogic<TMachine>,
): [SnapshotFrom<TMachine>, ExecutableActionsFrom<TMachine>[]] {
  const scope = inertScope(machine);
  scope.collected.length = 0;
  const next = machine.transition(snapshot, event, scope) as SnapshotFrom<TMachine>;
  return [next, scope.collected.splice(0) as ExecutableActionsFrom<TMachine>[]];
}

/**
 * Applies one event with xstate's pure transition. A refused event (no transition, failed
 * guard, or a final snapshot) returns the same snapshot object, no intents and no record.
 */
export function step<TMachine extends AnyStateMachine>(
  machine: TMachine,
  snapshot: SnapshotFrom<TMachine>,
  event: EventFromLogic<TMachine> & Stamped,
): StepResult<TMachine> {
  const [next, actions] = transition(machine, snapshot, event);
  if (next === snapshot) return { snapshot, changed: false, intents: [], record: null };
  throwIfErrored(next);
  return {
    snapshot: next,
    changed: true,
    intents: toIntents<TMachine>(actions),
    record: { from: statusOf<TMachine>(snapshot), to: statusOf<TMachine>(next), event: event.type, at: event.at, actor: event.actor },
  };
}

/** The JSON-safe form of a snapshot, as stored beside the entity row. */
export function persist<TMachine extends AnyStateMachine>(machine: TMachine, snapshot: SnapshotFrom<TMachine>): PersistedSnapshot {
  // Machine snapshots persist as { value, context, status, … }; xstate types them as any actor's snapshot.
  return machine.getPersistedSnapshot(snapshot) as unknown as PersistedSnapshot;
}

export interface PersistedSnapshot {
  value: StateValue;
  context: unknown;
  status: string;
}

/** Rebuilds a live snapshot (with `can`, `matches`) from its stored JSON. */
export function restore<TMachine extends AnyStateMachine>(machine: TMachine, persisted: PersistedSnapshot): SnapshotFrom<TMachine> {
  if (persisted === null || typeof persisted !== 'object' || persisted.value === undefined || persisted.context === undefined) {
    throw new DomainError('machine.invalidInput', 'A persisted snapshot needs a value and a context');
  }
  return machine.resolveState({ value: persisted.value, context: persisted.context as ContextFrom<TMachine> }) as SnapshotFrom<TMachine>;
}
