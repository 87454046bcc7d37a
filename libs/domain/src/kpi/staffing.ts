import { DomainError } from '../domain-error';
import { agentsForServiceLevel } from '../routing/erlang-c';
import { averageAgentsStaffed } from './agent-kpis';
import { averageHandleTimeMs, type HandledContact } from './handle-time';
import type { AgentLogRecord, TimeWindow } from './kpi-log';
import { requireNonNegative, requireWindow } from './kpi-internal';
import type { QueueEpisode } from './queue-kpis';

export interface StaffingSettings {
  /** Fraction to answer within the threshold, in [0, 1), e.g. 0.8. */
  targetServiceLevel: number;
  thresholdSec: number;
  /** AHT to assume when nothing was handled in the window (a new line); without it the advice is null. */
  fallbackAhtSec?: number;
}

export interface StaffingInput {
  window: TimeWindow;
  /** Queue stays of this line that began in the window (`queueArrivals`, filtered by line). */
  arrivals: readonly QueueEpisode[];
  /** Contacts of this line handled in the window (`handledChats` / `handledCalls`, filtered by line). */
  handled: readonly HandledContact[];
  /** Presence rows of the agents who serve this line (membership is not in the log). */
  agentRecords: readonly AgentLogRecord[];
  settings: StaffingSettings;
}

export interface StaffingRecommendation {
  arrivals: number;
  arrivalRatePerSec: number;
  /** Measured AHT, or the fallback; null when neither exists. */
  ahtSec: number | null;
  /** Erlang C agents for the target; 0 with no arrivals; null when arrivals exist but no AHT is known. */
  recommendedAgents: number | null;
  /** Mean agents logged in and not paused over the window; null for an empty window. */
  actualAgents: number | null;
}

/**
 * Erlang C advice for one line and interval beside the staffing it actually had. Erlang C assumes
 * one contact per agent at a time: for chat lines with several chats per agent the advice is an
 * upper bound (divide by the usual concurrency). No shrinkage is applied.
 */
export function staffingRecommendation({ window, arrivals, handled, agentRecords, settings }: StaffingInput): StaffingRecommendation {
  requireWindow(window);
  requireNonNegative(settings.thresholdSec, 'thresholdSec');
  if (!(settings.targetServiceLevel >= 0 && settings.targetServiceLevel < 1)) {
    throw new DomainError('machine.invalidInput', `targetServiceLevel must be a fraction in [0, 1), got ${settings.targetServiceLevel}`);
  }
  if (settings.fallbackAhtSec !== undefined) requireNonNegative(settings.fallbackAhtSec, 'fallbackAhtSec');
  const durationSec = (window.to - window.from) / 1000;
  const arrivalRatePerSec = durationSec > 0 ? arrivals.length / durationSec : 0;
  const measuredAhtMs = averageHandleTimeMs(handled);
  const ahtSec = measuredAhtMs !== null ? measuredAhtMs / 1000 : (settings.fallbackAhtSec ?? null);
  let recommendedAgents: number | null = null;
  if (arrivalRatePerSec === 0) recommendedAgents = 0;
  else if (ahtSec !== null)
    recommendedAgents = agentsForServiceLevel(settings.targetServiceLevel, settings.thresholdSec, arrivalRatePerSec, ahtSec);
  return {
    arrivals: arrivals.length,
    arrivalRatePerSec,
    ahtSec,
    recommendedAgents,
    actualAgents: averageAgentsStaffed(agentRecords, window),
  };
}
