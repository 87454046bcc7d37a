import { describe, expect, it } from '@jest/globals';
import { DomainError } from '../domain-error';
import { agentPresenceMachine, type AgentPresenceSnapshot } from '../machines/agent-presence.machine';
import { initial, step, type TransitionRecord } from '../machines/machine-step';
import {
  agentOccupancy,
  agentStateTimes,
  averageAgentsStaffed,
  pauseTimeByReason,
  staffCompliance,
  teamOccupancy,
  UNKNOWN_PAUSE_REASON,
} from './agent-kpis';
import { timeBuckets } from './group-by';
import { handledCalls } from './handle-time';
import type { AgentLogRecord } from './kpi-log';
import { agent, HOUR, sec } from './kpi-log.fixtures';

// Window 09:00–10:00 UTC (3600 s). Seconds from 09:00:
//   a: logged in at −600 (before the window: available at 09:00), busy 600, paused (lunch) 1200,
//      reason changed to training 1500, available 1800, inCall 2400, afterCallWork 3000,
//      available 3300 and still logged in at 10:00 (clipped).
//   b: logs in 1800, paused with no reason 2700, logs out 3000.
//   c: logged out at −100 and never back.
const a = agent('a', [
  [null, 'loggedOut', 'xstate.init', -900],
  ['loggedOut', 'available', 'agent.loggedIn', -600],
  ['available', 'busy', 'agent.conversationAssigned', 600],
  ['busy', 'paused', 'agent.paused', 1200, { pauseReasonId: 'lunch' }],
  ['paused', 'paused', 'agent.paused', 1500, { pauseReasonId: 'training' }],
  ['paused', 'available', 'agent.resumed', 1800],
  ['available', 'inCall', 'agent.callStarted', 2400],
  ['inCall', 'afterCallWork', 'agent.callEnded', 3000],
  ['afterCallWork', 'available', 'agent.afterCallWorkEnded', 3300],
]);
const b = agent('b', [
  ['loggedOut', 'available', 'agent.loggedIn', 1800],
  ['available', 'paused', 'agent.paused', 2700],
  ['paused', 'loggedOut', 'agent.loggedOut', 3000],
]);
const c = agent('c', [['available', 'loggedOut', 'agent.loggedOut', -100]]);
const log = [...a, ...b, ...c];

describe(agentStateTimes.name, () => {
  it('clips each agent to the window, deriving the state at the start from earlier rows', () => {
    // a: available 0–600 + 1800–2400 + 3300–3600 = 600 + 600 + 300 = 1500; busy 600; paused 1200–1800 = 600;
    //    inCall 600; afterCallWork 300. 1500 + 600 + 600 + 600 + 300 = 3600.
    // b: nothing before 1800 (its first row); available 900; paused 300; loggedOut 3000–3600 = 600.
    // c: loggedOut all hour.
    expect(agentStateTimes(log, HOUR)).toEqual([
      {
        agentId: 'a',
        tenantId: 't1',
        times: { available: 1_500_000, busy: 600_000, paused: 600_000, inCall: 600_000, afterCallWork: 300_000 },
      },
      { agentId: 'b', tenantId: 't1', times: { available: 900_000, paused: 300_000, loggedOut: 600_000 } },
      { agentId: 'c', tenantId: 't1', times: { loggedOut: 3_600_000 } },
    ]);
  });

  it('gives no time to a zero-duration state', () => {
    // paused and resumed in the same millisecond: all 100 s are available.
    const blink = agent('d', [
      ['loggedOut', 'available', 'agent.loggedIn', 0],
      ['available', 'paused', 'agent.paused', 50, { pauseReasonId: 'lunch' }],
      ['paused', 'available', 'agent.resumed', 50],
    ]);
    expect(agentStateTimes(blink, { from: sec(0), to: sec(100) })[0]!.times).toEqual({ available: 100_000 });
    expect(pauseTimeByReason(blink, { from: sec(0), to: sec(100) })).toEqual([]);
  });

  it('refuses a window that ends before it starts', () => {
    expect(() => agentStateTimes(log, { from: sec(5), to: sec(1) })).toThrow(DomainError);
  });
});

describe(pauseTimeByReason.name, () => {
  it('splits pause time by the reason the host logged, unknown when it logged none', () => {
    // a: lunch 1200–1500 = 300 s, training 1500–1800 = 300 s; b: 2700–3000 = 300 s with no reason.
    expect(pauseTimeByReason(log, HOUR)).toEqual([
      { agentId: 'a', tenantId: 't1', reasonId: 'lunch', ms: 300_000 },
      { agentId: 'a', tenantId: 't1', reasonId: 'training', ms: 300_000 },
      { agentId: 'b', tenantId: 't1', reasonId: UNKNOWN_PAUSE_REASON, ms: 300_000 },
    ]);
  });

  it('clips a pause that began before the window', () => {
    // From 09:22:30 (1350 s): lunch 1350–1500 = 150 s, training 300 s.
    expect(pauseTimeByReason(a, { from: sec(1350), to: sec(3600) }).map((pause) => [pause.reasonId, pause.ms])).toEqual([
      ['lunch', 150_000],
      ['training', 300_000],
    ]);
  });

  it('splits a pause across midnight between the two days, in the tenant time zone', () => {
    // Madrid is UTC+1 in January. Paused 23:00 on the 15th (22:00 UTC) to 01:00 on the 16th (00:00 UTC).
    // Day buckets of [15th 00:00, 17th 00:00) Madrid time: 60 min on the 15th, 60 min on the 16th.
    const night = agent('n', [
      ['loggedOut', 'available', 'agent.loggedIn', 0],
      ['available', 'paused', 'agent.paused', 13 * 3600, { pauseReasonId: 'lunch' }], // 09:00 UTC + 13 h = 22:00 UTC
      ['paused', 'available', 'agent.resumed', 15 * 3600], // 00:00 UTC on the 16th
    ]);
    const days = timeBuckets({ from: Date.UTC(2026, 0, 14, 23), to: Date.UTC(2026, 0, 16, 23) }, 'day', 'Europe/Madrid');
    const perDay = days.map((day) => [day.key, pauseTimeByReason(night, day).map((pause) => pause.ms)]);
    expect(perDay).toEqual([
      ['2026-01-15', [3_600_000]],
      ['2026-01-16', [3_600_000]],
    ]);
  });
});

describe(agentOccupancy.name, () => {
  it('divides handling time by logged-in, not-paused time', () => {
    // a: handling = busy 600 + inCall 600 + afterCallWork 300 = 1500; staffed = 3600 − paused 600 = 3000 → 0.5
    // b: handling 0; staffed = available 900 → 0.  c: never staffed → null (not 0, not NaN).
    expect(agentOccupancy(log, HOUR)).toEqual([
      { agentId: 'a', tenantId: 't1', handlingMs: 1_500_000, staffedMs: 3_000_000, occupancy: 0.5 },
      { agentId: 'b', tenantId: 't1', handlingMs: 0, staffedMs: 900_000, occupancy: 0 },
      { agentId: 'c', tenantId: 't1', handlingMs: 0, staffedMs: 0, occupancy: null },
    ]);
  });

  it('weights a team by time, not by agent', () => {
    // (1500 + 0 + 0) / (3000 + 900 + 0) = 1500 / 3900 = 5 / 13
    expect(teamOccupancy(agentOccupancy(log, HOUR))).toBeCloseTo(5 / 13, 12);
    expect(teamOccupancy([])).toBeNull();
  });
});

describe(averageAgentsStaffed.name, () => {
  it('is the staffed time of all agents over the window length', () => {
    // (3000 + 900 + 0) / 3600 = 3900 / 3600 = 13 / 12
    expect(averageAgentsStaffed(log, HOUR)).toBeCloseTo(13 / 12, 12);
  });

  it('is null for an empty window', () => {
    expect(averageAgentsStaffed(log, { from: sec(10), to: sec(10) })).toBeNull();
  });
});

describe(staffCompliance.name, () => {
  const shifts = [
    { agentId: 'a', start: sec(-1800), end: sec(1800) },
    { agentId: 'a', start: sec(1200), end: sec(2400) }, // overlaps the first: a's scheduled time is 0–2400 in the window
    { agentId: 'b', start: sec(0), end: sec(3600) },
    { agentId: 'd', start: sec(600), end: sec(1200) }, // scheduled, never logged in
  ];

  it('compares scheduled with logged-in time per agent', () => {
    // a: scheduled 0–2400 = 2400; logged in all of it (paused counts as logged in) → 1.
    //    Staffed while scheduled = 2400 − paused 600 = 1800. Logged in over the hour: 3600.
    // b: scheduled 3600; logged in 1800–3000 = 1200 → 1200 / 3600 = 1/3; staffed while scheduled 900.
    // c: not scheduled → compliance null. d: scheduled 600, never logged in → 0.
    const rows = staffCompliance(log, shifts, HOUR);
    expect(rows.find((row) => row.agentId === 'a')).toEqual({
      agentId: 'a',
      scheduledMs: 2_400_000,
      loggedInMs: 3_600_000,
      loggedInWhileScheduledMs: 2_400_000,
      staffedWhileScheduledMs: 1_800_000,
      compliance: 1,
    });
    expect(rows.find((row) => row.agentId === 'b')).toMatchObject({
      scheduledMs: 3_600_000,
      loggedInMs: 1_200_000,
      staffedWhileScheduledMs: 900_000,
    });
    expect(rows.find((row) => row.agentId === 'b')!.compliance).toBeCloseTo(1 / 3, 12);
    expect(rows.find((row) => row.agentId === 'c')).toMatchObject({ scheduledMs: 0, loggedInMs: 0, compliance: null });
    expect(rows.find((row) => row.agentId === 'd')).toMatchObject({ scheduledMs: 600_000, loggedInMs: 0, compliance: 0 });
  });

  it('lists every agent with a shift or a row, in that order', () => {
    expect(staffCompliance(log, shifts, HOUR).map((row) => row.agentId)).toEqual(['a', 'b', 'd', 'c']);
  });
});

describe('the log the agent-presence machine produces', () => {
  it('books pause time under the reason the host copies from the context', () => {
    // Logged in at 0, paused for lunch 100–400, on a call 500–600 with wrap-up to 650: lunch 300 s.
    const me = { kind: 'agent' as const, id: 'm' };
    const rows: AgentLogRecord[] = [];
    const write = (record: TransitionRecord<string>, snapshot: AgentPresenceSnapshot) => {
      const { agentId, tenantId, pauseReasonId } = snapshot.context;
      rows.push({ ...(record as AgentLogRecord), entityId: agentId, tenantId, data: { pauseReasonId } });
    };
    const created = initial(agentPresenceMachine, {
      agentId: 'm',
      tenantId: 't1',
      capacity: 1,
      pauseReasons: ['lunch'],
      at: sec(0),
      actor: me,
    });
    write(created.record, created.snapshot);
    let snapshot = created.snapshot;
    const events = [
      { type: 'agent.loggedIn', at: sec(0), actor: me },
      { type: 'agent.paused', reasonId: 'lunch', at: sec(100), actor: me },
      { type: 'agent.resumed', at: sec(400), actor: me },
      { type: 'agent.callStarted', at: sec(500), actor: me },
      { type: 'agent.callEnded', at: sec(600), actor: me },
      { type: 'agent.afterCallWorkEnded', at: sec(650), actor: me },
    ] as const;
    for (const event of events) {
      const result = step(agentPresenceMachine, snapshot, event);
      expect(result.changed).toBe(true);
      write(result.record!, result.snapshot);
      snapshot = result.snapshot;
    }
    expect(pauseTimeByReason(rows, HOUR).map((pause) => [pause.reasonId, pause.ms])).toEqual([['lunch', 300_000]]);
    expect(handledCalls(rows, HOUR).map((call) => call.handleMs)).toEqual([150_000]);
  });
});
