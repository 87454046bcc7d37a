/**
 * Declares an intent in `setup({ actions })`: a no-op whose only job is to give the action a name
 * and a params type. The host either reads intents from `step(...).intents` or swaps in real
 * implementations with `machine.provide({ actions })`; the machine itself never performs effects.
 */
export function intent<TParams extends object>(): (_args: unknown, _params: TParams) => void {
  return () => undefined;
}
