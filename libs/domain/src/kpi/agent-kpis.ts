import type { AgentStatus } from '../machines/agent-presence.machine';
import type { TransitionRecord } from '../machines/machine-step';
import type { AgentLogRecord, TimeWindow } from './kpi-log';
import { byEntity, ratio, requireWindow } from './kpi-internal';
import { timeInStates } from './time-in-states';

/** Working on contacts. `busy` also covers the manual "do not assign" flag: the log does not tell them apart. */
export const HANDLING_STATUSES: readonly AgentStatus[] = ['busy', 'inCall', 'afterCallWork', 'outboundCall'];

/** Logged in and not paused: the time an agent is there to take work (idle or handling). */
export const STAFFED_STATUSES: readonly AgentStatus[] = [...HANDLING_STATUSES, 'available', 'waitingOutboundCall'];

/** Pause time whose entering row carried no `data.pauseReasonId`. */
export const UNKNOWN_PAUSE_REASON = 'unknown';

export interface AgentStateTimes {
  agentId: string;
  tenantId: string;
  /** ms in each status within the window; a status with no time is absent. */
  times: Partial<Record<AgentStatus, number>>;
}

function sumOf(times: Partial<Record<string, number>>, statuses: readonly string[]): number {
  return statuses.reduce((total, status) => total + (times[status] ?? 0), 0);
}

/**
 * Time in each presence status per agent, clipped to [from, to): the status at `from` comes from
 * the last row at or before it, and an agent still logged in at `to` counts up to `to`. For day or
 * hour figures, call it once per `timeBuckets` window so a stay across midnight is split.
 */
export function agentStateTimes(records: readonly AgentLogRecord[], window: TimeWindow): AgentStateTimes[] {
  requireWindow(window);
  return [...byEntity(records)].map(([agentId, timeline]) => ({
    agentId,
    tenantId: timeline[0]!.tenantId,
    times: timeInStates(timeline, window.from, window.to),
  }));
}

export interface PauseTime {
  agentId: string;
  tenantId: string;
  reasonId: string;
  ms: number;
}

/**
 * Pause time per agent and reason, clipped to the window. Each pause is relabelled
 * `paused` → its reason so `timeInStates` does the clipping; a change of reason while paused
 * (a paused → paused row) starts the new reason's time.
 */
export function pauseTimeByReason(records: readonly AgentLogRecord[], window: TimeWindow): PauseTime[] {
  requireWindow(window);
  const result: PauseTime[] = [];
  for (const [agentId, timeline] of byEntity(records)) {
    const byReason: TransitionRecord[] = timeline.map((record) => ({
      ...record,
      to: record.to === 'paused' ? `pause:${record.data?.pauseReasonId ?? UNKNOWN_PAUSE_REASON}` : record.to,
    }));
    for (const [status, ms] of Object.entries(timeInStates(byReason, window.from, window.to))) {
      if (status.startsWith('pause:') && ms) result.push({ agentId, tenantId: timeline[0]!.tenantId, reasonId: status.slice(6), ms });
    }
  }
  return result;
}

export interface AgentOccupancy {
  agentId: string;
  tenantId: string;
  /** ms in `HANDLING_STATUSES`. */
  handlingMs: number;
  /** ms in `STAFFED_STATUSES` (logged in and not paused). */
  staffedMs: number;
  /** handlingMs ÷ staffedMs; null when the agent was never staffed in the window. */
  occupancy: number | null;
}

export function agentOccupancy(records: readonly AgentLogRecord[], window: TimeWindow): AgentOccupancy[] {
  return agentStateTimes(records, window).map(({ agentId, tenantId, times }) => {
    const handlingMs = sumOf(times, HANDLING_STATUSES);
    const staffedMs = sumOf(times, STAFFED_STATUSES);
    return { agentId, tenantId, handlingMs, staffedMs, occupancy: ratio(handlingMs, staffedMs) };
  });
}

/** Occupancy of a team: total handling ÷ total staffed time (not the mean of the agents' ratios). */
export function teamOccupancy(rows: readonly AgentOccupancy[]): number | null {
  return ratio(
    rows.reduce((total, row) => total + row.handlingMs, 0),
    rows.reduce((total, row) => total + row.staffedMs, 0),
  );
}

/**
 * Mean number of agents logged in and not paused over the window: total staffed time ÷ window
 * length. Null for an empty window. Pass the rows of the agents who serve the line in question.
 */
export function averageAgentsStaffed(records: readonly AgentLogRecord[], window: TimeWindow): number | null {
  const staffedMs = agentOccupancy(records, window).reduce((total, row) => total + row.staffedMs, 0);
  return ratio(staffedMs, window.to - window.from);
}

/** A planned working interval [start, end) of one agent. */
export interface ScheduledShift {
  agentId: string;
  start: number;
  end: number;
}

export interface StaffCompliance {
  agentId: string;
  /** Scheduled time inside the window (overlapping shifts counted once). */
  scheduledMs: number;
  /** Logged-in time inside the window, scheduled or not. */
  loggedInMs: number;
  /** Logged in during scheduled time. */
  loggedInWhileScheduledMs: number;
  /** Logged in and not paused during scheduled time. */
  staffedWhileScheduledMs: number;
  /** loggedInWhileScheduledMs ÷ scheduledMs; null when nothing was scheduled. */
  compliance: number | null;
}

/** Shifts of one agent clipped to the window and merged, so overlaps are not counted twice. */
function mergedIntervals(shifts: readonly ScheduledShift[], { from, to }: TimeWindow): TimeWindow[] {
  const clipped = shifts
    .map((shift) => ({ from: Math.max(shift.start, from), to: Math.min(shift.end, to) }))
    .filter((interval) => interval.to > interval.from)
    .sort((a, b) => a.from - b.from);
  const merged: TimeWindow[] = [];
  for (const interval of clipped) {
    const last = merged.at(-1);
    if (last && interval.from <= last.to) last.to = Math.max(last.to, interval.to);
    else merged.push({ ...interval });
  }
  return merged;
}

/**
 * Scheduled against logged-in time per agent, for every agent with a shift or a row. Logged in
 * means any status but `loggedOut` (paused included: the agent is at work); the stricter
 * `staffedWhileScheduledMs` leaves pauses out.
 */
export function staffCompliance(
  records: readonly AgentLogRecord[],
  shifts: readonly ScheduledShift[],
  window: TimeWindow,
): StaffCompliance[] {
  requireWindow(window);
  const timelines = byEntity(records);
  const agentIds = [...new Set([...shifts.map((shift) => shift.agentId), ...timelines.keys()])];
  const loggedIn = (times: Partial<Record<AgentStatus, number>>) => sumOf(times, [...STAFFED_STATUSES, 'paused']);
  return agentIds.map((agentId) => {
    const timeline = timelines.get(agentId) ?? [];
    const intervals = mergedIntervals(
      shifts.filter((shift) => shift.agentId === agentId),
      window,
    );
    let loggedInWhileScheduledMs = 0;
    let staffedWhileScheduledMs = 0;
    for (const interval of intervals) {
      const times = timeInStates(timeline, interval.from, interval.to);
      loggedInWhileScheduledMs += loggedIn(times);
      staffedWhileScheduledMs += sumOf(times, STAFFED_STATUSES);
    }
    const scheduledMs = intervals.reduce((total, interval) => total + interval.to - interval.from, 0);
    return {
      agentId,
      scheduledMs,
      loggedInMs: loggedIn(timeInStates(timeline, window.from, window.to)),
      loggedInWhileScheduledMs,
      staffedWhileScheduledMs,
      compliance: ratio(loggedInWhileScheduledMs, scheduledMs),
    };
  });
}
