import type { RoutingPolicyName } from '@centralita/contracts';

/** The routing view of an agent who may take a conversation (see `routingCandidate`). */
export interface AgentCandidate {
  agentId: string;
  activeConversations: number;
  capacity: number;
  /** When the agent last received a conversation or became ready. */
  idleSince: number;
}

// The policies a line may be set to (its form and API validate against the same list).
export { ROUTING_POLICIES } from '@centralita/contracts';
export type RoutingPolicy = RoutingPolicyName;
export const DEFAULT_ROUTING_POLICY: RoutingPolicy = 'longest-idle';

type Comparison = (a: AgentCandidate, b: AgentCandidate) => number;

const longestIdleFirst: Comparison = (a, b) => a.idleSince - b.idleSince;
// Occupancy is active/capacity; cross-multiplying compares the ratios without rounding.
const leastOccupiedFirst: Comparison = (a, b) => a.activeConversations * b.capacity - b.activeConversations * a.capacity;
// Code-unit order, not localeCompare: the same choice on every process whatever its locale.
const byAgentId: Comparison = (a, b) => (a.agentId < b.agentId ? -1 : a.agentId > b.agentId ? 1 : 0);

const ORDER: Record<RoutingPolicy, Comparison[]> = {
  'longest-idle': [longestIdleFirst, leastOccupiedFirst, byAgentId],
  'least-occupied': [leastOccupiedFirst, longestIdleFirst, byAgentId],
};

/**
 * Picks the agent for the next conversation of a line among agents with free capacity, or null
 * when none has room. Ties fall through to the other criterion, then to the agent id, so every
 * process that sees the same candidates picks the same agent.
 */
export function selectAgent(candidates: readonly AgentCandidate[], policy: RoutingPolicy = DEFAULT_ROUTING_POLICY): AgentCandidate | null {
  const comparisons = ORDER[policy];
  const compare: Comparison = (a, b) => comparisons.reduce((result, comparison) => result || comparison(a, b), 0);
  let best: AgentCandidate | null = null;
  for (const candidate of candidates) {
    if (candidate.activeConversations >= candidate.capacity) continue;
    if (best === null || compare(candidate, best) < 0) best = candidate;
  }
  return best;
}
