import { describe, expect, it } from '@jest/globals';
import { DomainError } from '../domain-error';
import { conversationMachine, type ConversationSnapshot } from '../machines/conversation.machine';
import { initial, step, type TransitionRecord } from '../machines/machine-step';
import { byLine, groupBy } from './group-by';
import type { ConversationLogRecord } from './kpi-log';
import { conversation, HOUR, queued, sec, T0 } from './kpi-log.fixtures';
import { queueArrivals, queueEpisodes, queueKpis, queueStatusAt } from './queue-kpis';

// One hour, 09:00–10:00 UTC, lines A (webchat) and B (whatsapp). Waits in seconds:
//   c1  A  queued 10,   answered 25       wait 15   within 20 s
//   c2  A  queued 100,  answered 140      wait 40   late
//   c3  A  queued 200,  abandoned 203     wait 3    (a short abandon when underSec = 5)
//   c4  B  queued 300,  abandoned 360     wait 60
//   c5  A  queued 400,  queue timeout 700 wait 300  offered, not answered, not abandoned
//   c6  A  queued 800,  transferred to B at 810 (A: not offered), answered on B at 830: wait 20, within (inclusive)
//   c7  A  queued 900,  closed by a supervisor at 950: not offered
//   c8  A  queued −100 (before the window), answered 5: wait 105, late, counted (answered in the window)
//   c9  A  queued 3500, still waiting at 10:00: not finished, not counted
//   c10 A  queued 1000, a message at 1005 (keeps the stay), answered 1010: wait 10, within
const log: ConversationLogRecord[] = [
  ...queued('c1', 'A', 10, [['LiningUp', 'Active', 'conversation.assigned', 25, { agentId: 'a1' }]]),
  ...queued('c2', 'A', 100, [['LiningUp', 'Active', 'conversation.assigned', 140, { agentId: 'a2' }]]),
  ...queued('c3', 'A', 200, [['LiningUp', 'Closed', 'conversation.abandoned', 203]]),
  ...queued('c4', 'B', 300, [['LiningUp', 'Closed', 'conversation.abandoned', 360]], 'whatsapp'),
  ...queued('c5', 'A', 400, [['LiningUp', 'Closed', 'conversation.queueTimedOut', 700]]),
  ...queued('c6', 'A', 800, [
    ['LiningUp', 'LiningUp', 'conversation.transferred', 810, { attentionLineId: 'B' }],
    ['LiningUp', 'Active', 'conversation.assigned', 830, { attentionLineId: 'B', agentId: 'a1' }],
  ]),
  ...queued('c7', 'A', 900, [['LiningUp', 'Closed', 'conversation.closed', 950]]),
  ...queued('c8', 'A', -100, [['LiningUp', 'Active', 'conversation.assigned', 5, { agentId: 'a2' }]]),
  ...queued('c9', 'A', 3500, []),
  ...queued('c10', 'A', 1000, [
    ['LiningUp', 'LiningUp', 'conversation.messageReceived', 1005],
    ['LiningUp', 'Active', 'conversation.assigned', 1010, { agentId: 'a1' }],
  ]),
];

describe(queueEpisodes.name, () => {
  it('keeps the stays that ended in the window, with their outcome and full wait', () => {
    const episodes = queueEpisodes(log, HOUR);
    const summary = episodes.map((episode) => [
      episode.conversationId,
      episode.attentionLineId,
      episode.outcome,
      (episode.leftAt! - episode.enteredAt) / 1000,
    ]);
    expect(summary).toEqual([
      ['c1', 'A', 'answered', 15],
      ['c2', 'A', 'answered', 40],
      ['c3', 'A', 'abandoned', 3],
      ['c4', 'B', 'abandoned', 60],
      ['c5', 'A', 'timedOut', 300],
      ['c6', 'A', 'transferred', 10],
      ['c6', 'B', 'answered', 20],
      ['c7', 'A', 'closed', 50],
      ['c8', 'A', 'answered', 105],
      ['c10', 'A', 'answered', 10],
    ]);
    expect(episodes.find((episode) => episode.conversationId === 'c8')).toMatchObject({ enteredAt: sec(-100), agentId: 'a2' });
  });

  it('offers a chat an agent sends back to a line to that line again', () => {
    // Queued on A at 10, answered 20, the agent transfers it to line B at 100, answered there at 130.
    const requeued = queued('r', 'A', 10, [
      ['LiningUp', 'Active', 'conversation.assigned', 20, { agentId: 'a1' }],
      ['Active', 'LiningUp', 'conversation.transferred', 100, { attentionLineId: 'B', agentId: null }],
      ['LiningUp', 'Active', 'conversation.assigned', 130, { attentionLineId: 'B', agentId: 'a2' }],
    ]);
    expect(queueEpisodes(requeued, HOUR).map((episode) => [episode.attentionLineId, episode.outcome, episode.agentId])).toEqual([
      ['A', 'answered', 'a1'],
      ['B', 'answered', 'a2'],
    ]);
  });

  it('does not offer a conversation abandoned in the menu', () => {
    const menuOnly = conversation('m', [
      [null, 'Transitory', 'xstate.init', 0],
      ['Transitory', 'Closed', 'conversation.abandoned', 30],
    ]);
    expect(queueEpisodes(menuOnly, HOUR)).toEqual([]);
  });

  it('reads rows given out of time order and interleaved across conversations', () => {
    expect(queueEpisodes([...log].reverse(), HOUR)).toHaveLength(10);
  });

  it('ignores rows at or after the window end', () => {
    // c9 answered at 3600 = 10:00: outside [09:00, 10:00), so it is still waiting as far as this hour knows.
    const later = [...log, ...queued('c9', 'A', 3500, [['LiningUp', 'Active', 'conversation.assigned', 3600]]).slice(2)];
    expect(queueEpisodes(later, HOUR).some((episode) => episode.conversationId === 'c9')).toBe(false);
  });

  it('refuses a window that ends before it starts', () => {
    expect(() => queueEpisodes(log, { from: sec(10), to: sec(5) })).toThrow(DomainError);
  });
});

describe(queueArrivals.name, () => {
  it('keeps the stays that began in the window, finished or not', () => {
    // Every stay but c8 (queued before 09:00); c6 counts twice (A, then B at 810); c9 is still waiting.
    const arrivals = queueArrivals(log, HOUR).map((episode) => `${episode.conversationId}:${episode.attentionLineId}:${episode.outcome}`);
    expect(arrivals).toEqual([
      'c1:A:answered',
      'c2:A:answered',
      'c3:A:abandoned',
      'c4:B:abandoned',
      'c5:A:timedOut',
      'c6:A:transferred',
      'c6:B:answered',
      'c7:A:closed',
      'c9:A:waiting',
      'c10:A:answered',
    ]);
  });
});

describe(queueKpis.name, () => {
  const finished = queueEpisodes(log, HOUR);

  it('computes service level, abandonment and speed of answer over the offered contacts', () => {
    // answered 5 (c1 15, c2 40, c6 20, c8 105, c10 10); within 20 s: c1, c6, c10 = 3
    // abandoned 2 (c3, c4); timed out 1 (c5); offered = 5 + 2 + 1 = 8 (c6 on A and c7 are not offered)
    // SL = 3 / 8 = 0.375; abandonment = 2 / 8 = 0.25; ASA = (15 + 40 + 20 + 105 + 10) / 5 = 190 / 5 = 38 s
    expect(queueKpis(finished, { thresholdSec: 20 })).toEqual({
      offered: 8,
      answered: 5,
      answeredWithinThreshold: 3,
      abandoned: 2,
      shortAbandons: 0,
      timedOut: 1,
      serviceLevel: 0.375,
      abandonmentRate: 0.25,
      averageSpeedOfAnswerMs: 38_000,
      longestAnswerWaitMs: 105_000,
    });
  });

  it('drops short abandons from offered and abandoned when told to exclude them', () => {
    // c3 waited 3 s < 5 s: offered = 8 − 1 = 7, abandoned = 1 (c4). SL = 3 / 7, abandonment = 1 / 7.
    const kpis = queueKpis(finished, { thresholdSec: 20, shortAbandon: { underSec: 5, treatment: 'exclude' } });
    expect(kpis).toMatchObject({ offered: 7, abandoned: 1, shortAbandons: 1 });
    expect(kpis.serviceLevel).toBeCloseTo(3 / 7, 12);
    expect(kpis.abandonmentRate).toBeCloseTo(1 / 7, 12);
    expect(kpis.averageSpeedOfAnswerMs).toBe(38_000);
  });

  it('counts short abandons as answered out of threshold when told to', () => {
    // c3 stays offered (8) and fails the SL (3 / 8) but is not abandoned: abandonment = 1 / 8.
    const kpis = queueKpis(finished, { thresholdSec: 20, shortAbandon: { underSec: 5, treatment: 'outOfThreshold' } });
    expect(kpis).toMatchObject({ offered: 8, abandoned: 1, shortAbandons: 1, serviceLevel: 0.375, abandonmentRate: 0.125 });
  });

  it('treats an abandon of exactly the short-abandon limit as a real abandon', () => {
    // c3 waited 3 s, which is not shorter than 3 s.
    expect(queueKpis(finished, { thresholdSec: 20, shortAbandon: { underSec: 3, treatment: 'exclude' } })).toMatchObject({
      offered: 8,
      abandoned: 2,
      shortAbandons: 0,
    });
  });

  it('gives per-line figures through groupBy', () => {
    // B: c4 abandoned (60 s), c6 answered in 20 s: offered 2, SL 1 / 2, abandonment 1 / 2, ASA 20 s.
    const lineB = groupBy(finished, byLine).get('B')!;
    expect(queueKpis(lineB, { thresholdSec: 20 })).toMatchObject({
      offered: 2,
      serviceLevel: 0.5,
      abandonmentRate: 0.5,
      averageSpeedOfAnswerMs: 20_000,
    });
  });

  it('answers null rates, not NaN or 0, when there was no traffic', () => {
    expect(queueKpis(queueEpisodes([], HOUR), { thresholdSec: 20 })).toEqual({
      offered: 0,
      answered: 0,
      answeredWithinThreshold: 0,
      abandoned: 0,
      shortAbandons: 0,
      timedOut: 0,
      serviceLevel: null,
      abandonmentRate: null,
      averageSpeedOfAnswerMs: null,
      longestAnswerWaitMs: null,
    });
  });

  it('gives 0 % service level and 100 % abandonment when everyone abandoned', () => {
    // c3 (3 s) and c4 (60 s): offered 2, answered 0, abandoned 2. No one answered, so no ASA.
    const abandoned = finished.filter((episode) => episode.outcome === 'abandoned');
    expect(queueKpis(abandoned, { thresholdSec: 20 })).toMatchObject({
      offered: 2,
      serviceLevel: 0,
      abandonmentRate: 1,
      averageSpeedOfAnswerMs: null,
    });
  });

  it('has no service level when every contact was a short abandon that is excluded', () => {
    const kpis = queueKpis(
      finished.filter((episode) => episode.conversationId === 'c3'),
      { thresholdSec: 20, shortAbandon: { underSec: 5, treatment: 'exclude' } },
    );
    expect(kpis).toMatchObject({ offered: 0, shortAbandons: 1, serviceLevel: null, abandonmentRate: null });
  });

  it('counts an answer in the same millisecond as a zero wait within any threshold', () => {
    const instant = queueEpisodes(queued('z', 'A', 50, [['LiningUp', 'Active', 'conversation.assigned', 50]]), HOUR);
    expect(queueKpis(instant, { thresholdSec: 0 })).toMatchObject({ answered: 1, serviceLevel: 1, averageSpeedOfAnswerMs: 0 });
  });

  it('refuses a negative threshold', () => {
    expect(() => queueKpis(finished, { thresholdSec: -1 })).toThrow(DomainError);
  });
});

describe(queueStatusAt.name, () => {
  it('lists who waits at an instant, longest first, with rows at that instant applied', () => {
    // x queued on B at 700. At 800 s: x has waited 100 s; c6 entered A at exactly 800 → wait 0, still listed.
    // c5 left at 700 (queue timeout) and c7 enters at 900: neither waits.
    const status = queueStatusAt([...log, ...queued('x', 'B', 700, [])], sec(800));
    expect(status.length).toBe(2);
    expect(status.longestWaitMs).toBe(100_000);
    expect(status.waiting.map((contact) => [contact.conversationId, contact.attentionLineId, contact.waitMs])).toEqual([
      ['x', 'B', 100_000],
      ['c6', 'A', 0],
    ]);
  });

  it('restarts the wait on a transfer to another line, not on a message', () => {
    // c6 moved to B at 810: at 820 it waits 10 s on B. c10 has waited 1008 − 1000 = 8 s despite the message at 1005.
    expect(queueStatusAt(log, sec(820)).waiting.find((contact) => contact.conversationId === 'c6')).toMatchObject({
      attentionLineId: 'B',
      since: sec(810),
      waitMs: 10_000,
    });
    expect(queueStatusAt(log, sec(1008)).waiting.find((contact) => contact.conversationId === 'c10')).toMatchObject({ waitMs: 8_000 });
  });

  it('derives the queue before the window from earlier rows', () => {
    // 08:59:10 (−50 s): only c8, queued at −100 → 50 s.
    expect(queueStatusAt(log, sec(-50))).toMatchObject({ length: 1, longestWaitMs: 50_000 });
  });

  it('has no longest wait when nobody waits', () => {
    expect(queueStatusAt(log, sec(-200))).toEqual({ length: 0, longestWaitMs: null, waiting: [] });
  });
});

describe('the log the conversation machine produces', () => {
  // The host writes each row with the context after the transition: checks that the KPIs read the
  // machine's own rows the way the fixtures above assume.
  it('gives the same episodes as the fixtures', () => {
    const system = { kind: 'system' as const };
    const rows: ConversationLogRecord[] = [];
    const write = (record: TransitionRecord<string>, snapshot: ConversationSnapshot) => {
      const { id, tenantId, channel, attentionLineId, agentId } = snapshot.context;
      rows.push({ ...(record as ConversationLogRecord), entityId: id, tenantId, data: { channel, attentionLineId, agentId } });
    };
    const created = initial(conversationMachine, { id: 'm1', tenantId: 't1', channel: 'webchat', at: T0, actor: system });
    write(created.record, created.snapshot);
    let snapshot = created.snapshot;
    const events = [
      {
        type: 'conversation.menuCompleted',
        queryTypeId: 'q',
        submenuId: 's',
        attentionLineId: 'A',
        pollId: null,
        at: sec(10),
        actor: system,
      },
      { type: 'conversation.messageReceived', at: sec(12), actor: { kind: 'customer' } },
      { type: 'conversation.transferred', to: { kind: 'line', attentionLineId: 'B', pollId: null }, at: sec(15), actor: system },
      { type: 'conversation.assigned', agentId: 'a1', at: sec(40), actor: system },
    ] as const;
    for (const event of events) {
      const result = step(conversationMachine, snapshot, event);
      expect(result.changed).toBe(true);
      write(result.record!, result.snapshot);
      snapshot = result.snapshot;
    }
    expect(
      queueEpisodes(rows, HOUR).map((episode) => [episode.attentionLineId, episode.outcome, episode.leftAt! - episode.enteredAt]),
    ).toEqual([
      ['A', 'transferred', 5_000],
      ['B', 'answered', 25_000],
    ]);
  });
});

describe('queue stays of calls (phone)', () => {
  // A call assigned to an agent only rings their phone: the stay ends at the answer.
  //   p1  queued 10, rings a1 at 12, answered 20                       wait 10, answered by a1
  //   p2  queued 100, rings a1 at 101, a1's phone fails at 110 (back to the same line),
  //       rings a2 at 111, answered 130                                  one stay, wait 30, answered by a2
  //   p3  queued 200, rings a1 at 205, the caller hangs up at 215        abandoned after 15
  //   p4  queued 300, rings a1 at 301, a supervisor closes it at 305     closed (not offered)
  //   p5  queued 3500, rings a1 at 3590, still ringing at 10:00          waiting
  const phone: ConversationLogRecord[] = [
    ...queued(
      'p1',
      'P',
      10,
      [
        ['LiningUp', 'Active', 'conversation.assigned', 12, { agentId: 'a1' }],
        ['Active', 'Active', 'conversation.callAnswered', 20, { agentId: 'a1' }],
        ['Active', 'Closed', 'conversation.closed', 200, { agentId: 'a1' }],
      ],
      'phone',
    ),
    ...queued(
      'p2',
      'P',
      100,
      [
        ['LiningUp', 'Active', 'conversation.assigned', 101, { agentId: 'a1' }],
        ['Active', 'LiningUp', 'conversation.transferred', 110, { agentId: null }],
        ['LiningUp', 'Active', 'conversation.assigned', 111, { agentId: 'a2' }],
        ['Active', 'Active', 'conversation.callAnswered', 130, { agentId: 'a2' }],
      ],
      'phone',
    ),
    ...queued(
      'p3',
      'P',
      200,
      [
        ['LiningUp', 'Active', 'conversation.assigned', 205, { agentId: 'a1' }],
        ['Active', 'Closed', 'conversation.closed', 215, { agentId: 'a1' }],
      ],
      'phone',
    ),
    ...queued(
      'p4',
      'P',
      300,
      [
        ['LiningUp', 'Active', 'conversation.assigned', 301, { agentId: 'a1' }],
        ['Active', 'Closed', 'conversation.closed', 305, { agentId: 'a1' }],
      ],
      'phone',
    ).map((record) => (record.event === 'conversation.closed' ? { ...record, actor: { kind: 'supervisor' as const, id: 's1' } } : record)),
    ...queued('p5', 'P', 3500, [['LiningUp', 'Active', 'conversation.assigned', 3590, { agentId: 'a1' }]], 'phone'),
  ];

  it('ends a call’s stay when the phone answers, keeps it through a phone that did not take it, and tells a hang-up while ringing', () => {
    const episodes = queueEpisodes(phone, HOUR);
    expect(
      episodes.map((episode) => [episode.conversationId, episode.outcome, (episode.leftAt! - episode.enteredAt) / 1000, episode.agentId]),
    ).toEqual([
      ['p1', 'answered', 10, 'a1'],
      ['p2', 'answered', 30, 'a2'],
      ['p3', 'abandoned', 15, null],
      ['p4', 'closed', 5, null],
    ]);
    expect(queueKpis(episodes, { thresholdSec: 20 })).toMatchObject({
      offered: 3,
      answered: 2,
      answeredWithinThreshold: 1,
      abandoned: 1,
      averageSpeedOfAnswerMs: 20_000,
    });
  });

  it('counts a ringing call as still waiting', () => {
    const status = queueStatusAt(phone, sec(3600));
    expect(status.waiting.map((contact) => [contact.conversationId, contact.waitMs])).toEqual([['p5', 100_000]]);
  });

  it('starts a new stay when a ringing call is sent to another line', () => {
    const moved = queued(
      'p6',
      'P',
      10,
      [
        ['LiningUp', 'Active', 'conversation.assigned', 11, { agentId: 'a1' }],
        ['Active', 'LiningUp', 'conversation.transferred', 15, { attentionLineId: 'Q', agentId: null }],
        ['LiningUp', 'Active', 'conversation.assigned', 20, { attentionLineId: 'Q', agentId: 'a2' }],
        ['Active', 'Active', 'conversation.callAnswered', 24, { attentionLineId: 'Q', agentId: 'a2' }],
      ],
      'phone',
    );
    expect(
      queueEpisodes(moved, HOUR).map((episode) => [episode.attentionLineId, episode.outcome, episode.leftAt! - episode.enteredAt]),
    ).toEqual([
      ['P', 'transferred', 5_000],
      ['Q', 'answered', 9_000],
    ]);
  });
});
