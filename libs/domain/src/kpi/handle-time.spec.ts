import { describe, expect, it } from '@jest/globals';
import { DomainError } from '../domain-error';
import { byAgent, groupBy } from './group-by';
import { averageHandleTimeMs, handledCalls, handledChats } from './handle-time';
import { agent, conversation, HOUR, sec } from './kpi-log.fixtures';

// Chats in 09:00–10:00 UTC, seconds from 09:00 (line A, webchat):
//   h1  a1 Active 10 → Inquest 130 → Closed 200   handle 120 (the poll is not handle time)
//   h2  a1 Active 300 → transferred to a2 at 360 → closed 480: a1 60, a2 120
//   h3  a1 Active 3500, still open at 10:00: not finished, not counted
//   h4  a2 Active −200 → closed 100: 300, counted in full (it ended in the window)
//   h5  a2 Active −500 → closed −400: ended before the window
//   h6  a1 Active 1000 → transferred to line B at 1030: 30
const line = { attentionLineId: 'A', channel: 'webchat' };
const chats = [
  ...conversation(
    'h1',
    [
      ['LiningUp', 'Active', 'conversation.assigned', 10, { agentId: 'a1' }],
      ['Active', 'Active', 'conversation.messageReceived', 50, { agentId: 'a1' }],
      ['Active', 'Inquest', 'conversation.closed', 130, { agentId: 'a1' }],
      ['Inquest', 'Closed', 'conversation.surveyAnswered', 200, { agentId: 'a1' }],
    ],
    line,
  ),
  ...conversation(
    'h2',
    [
      ['LiningUp', 'Active', 'conversation.assigned', 300, { agentId: 'a1' }],
      ['Active', 'Active', 'conversation.transferred', 360, { agentId: 'a2' }],
      ['Active', 'Closed', 'conversation.closed', 480, { agentId: 'a2' }],
    ],
    line,
  ),
  ...conversation('h3', [['LiningUp', 'Active', 'conversation.assigned', 3500, { agentId: 'a1' }]], line),
  ...conversation(
    'h4',
    [
      ['LiningUp', 'Active', 'conversation.assigned', -200, { agentId: 'a2' }],
      ['Active', 'Closed', 'conversation.closed', 100, { agentId: 'a2' }],
    ],
    line,
  ),
  ...conversation(
    'h5',
    [
      ['LiningUp', 'Active', 'conversation.assigned', -500, { agentId: 'a2' }],
      ['Active', 'Closed', 'conversation.inactivityTimedOut', -400, { agentId: 'a2' }],
    ],
    line,
  ),
  ...conversation(
    'h6',
    [
      ['LiningUp', 'Active', 'conversation.assigned', 1000, { agentId: 'a1' }],
      ['Active', 'LiningUp', 'conversation.transferred', 1030, { agentId: null, attentionLineId: 'B' }],
    ],
    line,
  ),
];

describe(handledChats.name, () => {
  it('gives one contact per agent stay in Active that ended in the window', () => {
    const handled = handledChats(chats, HOUR).map((contact) => [contact.entityId, contact.agentId, contact.handleMs / 1000]);
    expect(handled).toEqual([
      ['h1', 'a1', 120],
      ['h2', 'a1', 60],
      ['h2', 'a2', 120],
      ['h4', 'a2', 300],
      ['h6', 'a1', 30],
    ]);
  });

  it('keeps the line and channel of the assignment and has no after-call work', () => {
    expect(handledChats(chats, HOUR).find((contact) => contact.entityId === 'h6')).toEqual({
      kind: 'chat',
      entityId: 'h6',
      tenantId: 't1',
      agentId: 'a1',
      attentionLineId: 'A',
      channel: 'webchat',
      startedAt: sec(1000),
      endedAt: sec(1030),
      talkMs: 30_000,
      afterCallWorkMs: 0,
      handleMs: 30_000,
    });
  });
});

// Agent x, phone line L (seconds from 09:00):
//   available 0; inCall 100 (a self row at 150 keeps the call); afterCallWork 280; available 310
//     → inbound: talk 180 + wrap 30 = 210
//   outboundCall 400; afterCallWork 460; paused 470 (pausing ends the wrap-up)
//     → outbound: talk 60 + wrap 10 = 70
//   available 500; inCall 3550, still talking at 10:00 → not counted
const calls = agent('x', [
  ['loggedOut', 'available', 'agent.loggedIn', 0],
  ['available', 'inCall', 'agent.callStarted', 100, { attentionLineId: 'L', channel: 'phone' }],
  ['inCall', 'inCall', 'agent.capacityChanged', 150],
  ['inCall', 'afterCallWork', 'agent.callEnded', 280],
  ['afterCallWork', 'available', 'agent.afterCallWorkEnded', 310],
  ['available', 'waitingOutboundCall', 'agent.outboundWaitStarted', 390],
  ['waitingOutboundCall', 'outboundCall', 'agent.outboundCallConnected', 400, { attentionLineId: 'L', channel: 'phone' }],
  ['outboundCall', 'afterCallWork', 'agent.outboundCallEnded', 460],
  ['afterCallWork', 'paused', 'agent.paused', 470, { pauseReasonId: 'break' }],
  ['paused', 'available', 'agent.resumed', 500],
  ['available', 'inCall', 'agent.callStarted', 3550, { attentionLineId: 'L', channel: 'phone' }],
]);

describe(handledCalls.name, () => {
  it('adds the after-call work to the talk of each finished call', () => {
    expect(
      handledCalls(calls, HOUR).map(({ kind, talkMs, afterCallWorkMs, handleMs }) => [kind, talkMs, afterCallWorkMs, handleMs]),
    ).toEqual([
      ['inboundCall', 180_000, 30_000, 210_000],
      ['outboundCall', 60_000, 10_000, 70_000],
    ]);
  });

  it('keeps the line and channel the host wrote on the row entering the call', () => {
    expect(handledCalls(calls, HOUR)[0]).toMatchObject({ agentId: 'x', attentionLineId: 'L', channel: 'phone', startedAt: sec(100) });
  });

  it('counts a call whose wrap-up ended in the window in full, and not one that ended before it', () => {
    // From 09:04:00 (240 s): the inbound call (100–310) ended at 310 and counts with all 210 s.
    // From 09:08:00 (480 s): both calls ended before it.
    expect(handledCalls(calls, { from: sec(240), to: sec(3600) }).map((contact) => contact.handleMs)).toEqual([210_000, 70_000]);
    expect(handledCalls(calls, { from: sec(480), to: sec(3600) })).toEqual([]);
  });

  it('handles a zero-length wrap-up', () => {
    // inCall 100 → afterCallWork 200 → available 200: talk 100, wrap 0.
    const quick = agent('y', [
      ['available', 'inCall', 'agent.callStarted', 100],
      ['inCall', 'afterCallWork', 'agent.callEnded', 200],
      ['afterCallWork', 'available', 'agent.afterCallWorkEnded', 200],
    ]);
    expect(handledCalls(quick, HOUR)).toMatchObject([{ talkMs: 100_000, afterCallWorkMs: 0, handleMs: 100_000, attentionLineId: null }]);
  });

  it('refuses a window that ends before it starts', () => {
    expect(() => handledCalls(calls, { from: sec(1), to: sec(0) })).toThrow(DomainError);
  });
});

describe(averageHandleTimeMs.name, () => {
  it('averages chats and calls alike', () => {
    // Chats: (120 + 60 + 120 + 300 + 30) / 5 = 630 / 5 = 126 s. Calls: (210 + 70) / 2 = 140 s.
    expect(averageHandleTimeMs(handledChats(chats, HOUR))).toBe(126_000);
    expect(averageHandleTimeMs(handledCalls(calls, HOUR))).toBe(140_000);
  });

  it('gives per-agent AHT through groupBy', () => {
    // a1: (120 + 60 + 30) / 3 = 70 s; a2: (120 + 300) / 2 = 210 s.
    const perAgent = groupBy(handledChats(chats, HOUR), byAgent);
    expect(averageHandleTimeMs(perAgent.get('a1')!)).toBe(70_000);
    expect(averageHandleTimeMs(perAgent.get('a2')!)).toBe(210_000);
  });

  it('is null when nothing was handled', () => {
    expect(averageHandleTimeMs(handledChats([], HOUR))).toBeNull();
  });
});

describe('calls and their conversations', () => {
  it('leaves a phone conversation’s Active stay out of the chats (its ringing is not handle time) and reads the call from presence', () => {
    const phoneConversation = conversation(
      'call-1',
      [
        ['LiningUp', 'Active', 'conversation.assigned', 10, { agentId: 'a1' }],
        ['Active', 'Active', 'conversation.callAnswered', 18, { agentId: 'a1' }],
        ['Active', 'Closed', 'conversation.closed', 100, { agentId: 'a1' }],
      ],
      { attentionLineId: 'P', channel: 'phone' },
    );
    expect(handledChats(phoneConversation, HOUR)).toEqual([]);
    const presence = agent('a1', [
      ['available', 'inCall', 'agent.callStarted', 18, { attentionLineId: 'P', channel: 'phone', conversationId: 'call-1' }],
      ['inCall', 'afterCallWork', 'agent.callEnded', 100],
      ['afterCallWork', 'available', 'agent.afterCallWorkEnded', 130],
    ]);
    expect(handledCalls(presence, HOUR)).toEqual([
      expect.objectContaining({
        kind: 'inboundCall',
        conversationId: 'call-1',
        talkMs: 82_000,
        afterCallWorkMs: 30_000,
        handleMs: 112_000,
      }),
    ]);
  });
});
