/**
 * Codes for errors the pure domain throws on input that no event can repair (a machine created
 * with an impossible configuration, a KPI window that ends before it starts). Refused events are
 * not errors here: `step` reports them as `changed: false` and the host answers with its own code.
 */
export type DomainErrorCode = 'agent.capacityOutOfRange' | 'machine.invalidInput' | 'kpi.invalidWindow' | 'routing.invalidArgument';

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}
