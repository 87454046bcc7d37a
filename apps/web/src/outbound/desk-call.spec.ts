import { describe, expect, it } from '@jest/globals';
import type { OutboundCallView } from '@centralita/contracts';
import { deskCallAfterPush, previewAfterDial, previewAfterLinePush } from './desk-call';
import type { AgentCall, PreviewRecord } from './outbound-api';

const view = (overrides: Partial<OutboundCallView>): OutboundCallView => ({
  id: 'call-1',
  tenantId: 't-1',
  campaignId: 'c-1',
  contactId: 'ct-1',
  phone: '+34910000001',
  contactName: 'Ana',
  attempt: 1,
  status: 'connected',
  outcome: null,
  disposition: null,
  agentId: 'me',
  version: 3,
  createdAt: '2026-11-25T10:00:00.000Z',
  answeredAt: '2026-11-25T10:00:05.000Z',
  connectedAt: '2026-11-25T10:00:06.000Z',
  finishedAt: null,
  ...overrides,
});
const held: AgentCall = { ...view({}), campaignName: 'Renewals' };

describe(deskCallAfterPush.name, () => {
  it('takes a call that connects to this agent as the new screen pop', () => {
    expect(deskCallAfterPush(null, view({}), 'me')).toEqual({ call: { ...view({}), campaignName: '' }, isNew: true });
  });

  it("ignores a call connecting to another agent, which a supervisor's socket also hears", () => {
    expect(deskCallAfterPush(null, view({ agentId: 'someone-else' }), 'me')).toEqual({ call: null, isNew: false });
    expect(deskCallAfterPush(held, view({ id: 'call-2', agentId: 'someone-else' }), 'me')).toEqual({ call: held, isNew: false });
  });

  it('ignores calls of its own agent that are not connected yet, and any call when nobody is signed in', () => {
    expect(deskCallAfterPush(null, view({ status: 'ringing' }), 'me')).toEqual({ call: null, isNew: false });
    expect(deskCallAfterPush(null, view({}), null)).toEqual({ call: null, isNew: false });
  });

  it('updates the held call with newer views only, keeping what the screen pop fetched', () => {
    expect(deskCallAfterPush(held, view({ status: 'wrapUp', version: 4 }), 'me')).toEqual({
      call: { ...held, status: 'wrapUp', version: 4 },
      isNew: false,
    });
    expect(deskCallAfterPush(held, view({ status: 'ringing', version: 2 }), 'me')).toEqual({ call: held, isNew: false });
  });
});

describe(previewAfterLinePush.name, () => {
  const preview: PreviewRecord = {
    callId: 'call-1',
    contactId: 'ct-1',
    campaignId: 'c-1',
    campaignName: 'Renewals',
    phone: '+34910000001',
    name: 'Ana',
    attempt: 1,
    dialRequested: true,
    waitingForLineSince: null,
  };

  it('marks the previewed call as waiting for a line, then as placed', () => {
    const waiting = previewAfterLinePush(preview, { callId: 'call-1', waitingForLineSince: '2026-11-25T10:00:00.000Z' });
    expect(waiting).toEqual({ ...preview, waitingForLineSince: '2026-11-25T10:00:00.000Z' });
    expect(previewAfterLinePush(waiting, { callId: 'call-1', waitingForLineSince: null })).toEqual(preview);
  });

  it('changes nothing for another call, or with no record previewed', () => {
    expect(previewAfterLinePush(preview, { callId: 'call-2', waitingForLineSince: '2026-11-25T10:00:00.000Z' })).toBe(preview);
    expect(previewAfterLinePush(null, { callId: 'call-1', waitingForLineSince: null })).toBeNull();
  });
});

describe(previewAfterDial.name, () => {
  const previewed: PreviewRecord = {
    callId: 'call-1',
    contactId: 'ct-1',
    campaignId: 'c-1',
    campaignName: 'Renewals',
    phone: '+34910000001',
    name: 'Ana',
    attempt: 1,
    dialRequested: false,
    waitingForLineSince: null,
  };
  const answered = { ...previewed, dialRequested: true };

  it('keeps a "waiting for a line" push that arrived before the answer to the dial', () => {
    const pushed = previewAfterLinePush(previewed, { callId: 'call-1', waitingForLineSince: '2026-11-25T10:00:00.000Z' });
    expect(previewAfterDial(pushed, answered)).toEqual({ ...answered, waitingForLineSince: '2026-11-25T10:00:00.000Z' });
  });

  it('takes the answer as it is otherwise', () => {
    expect(previewAfterDial(previewed, answered)).toBe(answered);
    expect(previewAfterDial(null, answered)).toBe(answered);
    const other = { ...previewed, callId: 'call-2', waitingForLineSince: '2026-11-25T10:00:00.000Z' };
    expect(previewAfterDial(other, answered)).toBe(answered);
  });
});
