import { describe, expect, it } from '@jest/globals';
import { createActor } from 'xstate';
import type { SipAdapter, SipEvent } from './sip-adapter';
import { bindSoftphone, softphoneMachine, type SoftphoneEvent } from './softphone.machine';

/** Records what the machine asked the SIP stack to do; the test plays the stack's answers. */
class FakeSipAdapter implements SipAdapter {
  calls: string[] = [];
  failNext: string | null = null;
  private act(name: string): Promise<void> {
    this.calls.push(name);
    if (this.failNext === name.split(':')[0]) {
      this.failNext = null;
      return Promise.reject(new Error(`${name} failed`));
    }
    return Promise.resolve();
  }
  register = () => this.act('register');
  unregister = () => this.act('unregister');
  dial = (target: string) => this.act(`dial:${target}`);
  answer = () => this.act('answer');
  decline = () => this.act('decline');
  hangup = () => this.act('hangup');
  setMuted = (muted: boolean) => void this.calls.push(`mute:${muted}`);
  setHeld = (held: boolean) => this.act(`hold:${held}`);
  sendDtmf = (tone: string) => this.act(`dtmf:${tone}`);
  transfer = (target: string) => this.act(`transfer:${target}`);
  dispose = () => this.act('dispose');
}

function start() {
  const adapter = new FakeSipAdapter();
  const presence: string[] = [];
  let send: (event: SoftphoneEvent) => void = () => {};
  const machine = bindSoftphone(
    adapter,
    {
      callStarted: async () => presence.push('callStarted'),
      callEnded: async () => presence.push('callEnded'),
      dialerCallEnded: async (outboundCallId) => presence.push(`dialerCallEnded:${outboundCallId}`),
    },
    (event) => send(event),
  );
  const actor = createActor(machine).start();
  send = (event) => actor.send(event);
  const sip = (event: SipEvent) => actor.send({ ...event, at: 1_000 });
  const state = () => actor.getSnapshot().value;
  return { actor, adapter, presence, sip, state, context: () => actor.getSnapshot().context };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

function registered() {
  const phone = start();
  phone.actor.send({ type: 'phone.register' });
  phone.sip({ type: 'sip.registered' });
  return phone;
}

describe('softphoneMachine', () => {
  it('starts unregistered and registers through the adapter', () => {
    const phone = start();
    expect(phone.state()).toBe('unregistered');
    phone.actor.send({ type: 'phone.register' });
    expect(phone.state()).toBe('registering');
    expect(phone.adapter.calls).toEqual(['register']);
    phone.sip({ type: 'sip.registered' });
    expect(phone.state()).toBe('registered');
  });

  it('fails with the reason when the server refuses the registration, and retries on demand', () => {
    const phone = start();
    phone.actor.send({ type: 'phone.register' });
    phone.sip({ type: 'sip.failed', reason: '403' });
    expect(phone.state()).toBe('failed');
    expect(phone.context().error).toBe('403');
    phone.actor.send({ type: 'phone.register' });
    expect(phone.state()).toBe('registering');
    expect(phone.context().error).toBeNull();
  });

  it('fails with "connection" when the adapter cannot reach the server', async () => {
    const phone = start();
    phone.adapter.failNext = 'register';
    phone.actor.send({ type: 'phone.register' });
    await flush();
    expect(phone.state()).toBe('failed');
    expect(phone.context().error).toBe('connection');
  });

  it('dials out, and ignores an empty number', () => {
    const phone = registered();
    phone.actor.send({ type: 'phone.dial', target: '   ' });
    expect(phone.state()).toBe('registered');
    phone.actor.send({ type: 'phone.dial', target: ' 1002 ' });
    expect(phone.state()).toBe('calling');
    expect(phone.adapter.calls).toContain('dial:1002');
    expect(phone.context().call).toMatchObject({ direction: 'outbound', remoteNumber: '1002', answeredAt: null });
  });

  it('rings on an incoming call, answers, and reports the agent in call', () => {
    const phone = registered();
    phone.sip({ type: 'sip.incoming', callId: 'c-1', remoteNumber: '1001', remoteName: 'Agent One' });
    expect(phone.state()).toBe('ringing');
    expect(phone.context().call).toMatchObject({ callId: 'c-1', direction: 'inbound', remoteNumber: '1001', remoteName: 'Agent One' });
    phone.actor.send({ type: 'phone.answer' });
    expect(phone.adapter.calls).toContain('answer');
    phone.sip({ type: 'sip.answered', callId: 'c-1' });
    expect(phone.state()).toBe('inCall');
    expect(phone.context().call?.answeredAt).toBe(1_000);
    expect(phone.presence).toEqual(['callStarted']);
  });

  it('toggles mute and hold, sends DTMF tones and refuses a non-tone', () => {
    const phone = registered();
    phone.actor.send({ type: 'phone.dial', target: '1002' });
    phone.sip({ type: 'sip.answered', callId: 'c-2' });
    phone.actor.send({ type: 'phone.mute.toggle' });
    expect(phone.context().muted).toBe(true);
    phone.actor.send({ type: 'phone.mute.toggle' });
    expect(phone.context().muted).toBe(false);
    phone.actor.send({ type: 'phone.hold.toggle' });
    phone.sip({ type: 'sip.held', held: true });
    expect(phone.context().held).toBe(true);
    phone.actor.send({ type: 'phone.dtmf', tone: '5' });
    phone.actor.send({ type: 'phone.dtmf', tone: '#' });
    phone.actor.send({ type: 'phone.dtmf', tone: 'x' });
    expect(phone.context().dtmfSent).toBe('5#');
    expect(phone.adapter.calls).toEqual(['register', 'dial:1002', 'mute:true', 'mute:false', 'hold:true', 'dtmf:5', 'dtmf:#']);
  });

  it('ends the call on hang-up, reports it to presence, and waits for the disposition', () => {
    const phone = registered();
    phone.actor.send({ type: 'phone.dial', target: '1002' });
    phone.sip({ type: 'sip.answered', callId: 'c-3' });
    phone.actor.send({ type: 'phone.hangup' });
    expect(phone.adapter.calls).toContain('hangup');
    phone.sip({ type: 'sip.ended', callId: 'c-3', reason: 'hangup' });
    expect(phone.state()).toBe('ended');
    expect(phone.context().call).toMatchObject({ callId: 'c-3', endReason: 'hangup', endedAt: 1_000 });
    expect(phone.presence).toEqual(['callStarted', 'callEnded']);
    phone.actor.send({ type: 'phone.wrapUp.done' });
    expect(phone.state()).toBe('registered');
    expect(phone.context().call).toBeNull();
  });

  it('keeps the phone conversation of an inbound call the voice server bridged (X-Centralita-Conversation) until it ends', () => {
    const phone = registered();
    const conversationId = '11111111-1111-4111-8111-111111111111';
    phone.sip({ type: 'sip.incoming', callId: 'c-v', remoteNumber: '+34661234567', remoteName: null, conversationId });
    expect(phone.state()).toBe('ringing');
    expect(phone.context().call).toMatchObject({ remoteNumber: '+34661234567', conversationId, outboundCallId: null });
    phone.actor.send({ type: 'phone.answer' });
    phone.sip({ type: 'sip.answered', callId: 'c-v' });
    expect(phone.context().call?.conversationId).toBe(conversationId);
    phone.sip({ type: 'sip.ended', callId: 'c-v', reason: 'remoteHangup' });
    phone.actor.send({ type: 'phone.wrapUp.done' });
    expect(phone.context().call).toBeNull();
    phone.sip({ type: 'sip.incoming', callId: 'c-w', remoteNumber: '200', remoteName: null });
    expect(phone.context().call?.conversationId).toBeNull();
  });

  describe('a call the outbound dialer bridged (X-Outbound-Call-Id)', () => {
    const OUTBOUND_ID = '5b0f3c1e-8a57-4c61-9a3e-2f1d6c7b8a90';
    const ring = (phone: ReturnType<typeof registered>) =>
      phone.sip({ type: 'sip.incoming', callId: 'c-d', remoteNumber: '+34912000101', remoteName: null, outboundCallId: OUTBOUND_ID });

    it('keeps the outbound call id, and leaves presence to the outbound machine while it rings and talks', () => {
      const phone = registered();
      ring(phone);
      expect(phone.context().call).toMatchObject({ remoteNumber: '+34912000101', outboundCallId: OUTBOUND_ID });
      phone.actor.send({ type: 'phone.answer' });
      phone.sip({ type: 'sip.answered', callId: 'c-d' });
      expect(phone.state()).toBe('inCall');
      expect(phone.presence).toEqual([]);
    });

    it('hangs up through the outbound API (HangUp) instead of the softphone presence link, and keeps the id for UpdDISPO', () => {
      const phone = registered();
      ring(phone);
      phone.sip({ type: 'sip.answered', callId: 'c-d' });
      phone.actor.send({ type: 'phone.hangup' });
      phone.sip({ type: 'sip.ended', callId: 'c-d', reason: 'hangup' });
      expect(phone.state()).toBe('ended');
      expect(phone.presence).toEqual([`dialerCallEnded:${OUTBOUND_ID}`]);
      expect(phone.context().call).toMatchObject({ outboundCallId: OUTBOUND_ID, endReason: 'hangup' });
    });

    it('closes the dialer call when the connection drops during it', () => {
      const phone = registered();
      ring(phone);
      phone.sip({ type: 'sip.answered', callId: 'c-d' });
      phone.sip({ type: 'sip.disconnected' });
      expect(phone.presence).toEqual([`dialerCallEnded:${OUTBOUND_ID}`]);
    });

    it('treats the next ordinary call as the softphone one again', () => {
      const phone = registered();
      ring(phone);
      phone.sip({ type: 'sip.ended', callId: 'c-d', reason: 'cancelled' });
      phone.sip({ type: 'sip.incoming', callId: 'c-e', remoteNumber: '1001', remoteName: null });
      expect(phone.context().call?.outboundCallId).toBeNull();
      phone.sip({ type: 'sip.answered', callId: 'c-e' });
      expect(phone.presence).toEqual(['callStarted']);
    });
  });

  it('ends a missed call without touching presence', () => {
    const phone = registered();
    phone.sip({ type: 'sip.incoming', callId: 'c-4', remoteNumber: '+50688887777', remoteName: null });
    phone.sip({ type: 'sip.ended', callId: 'c-4', reason: 'cancelled' });
    expect(phone.state()).toBe('ended');
    expect(phone.context().call?.answeredAt).toBeNull();
    expect(phone.presence).toEqual([]);
  });

  it('keeps the call when an in-call action fails, and says which', async () => {
    const phone = registered();
    phone.actor.send({ type: 'phone.dial', target: '1002' });
    phone.sip({ type: 'sip.answered', callId: 'c-5' });
    phone.adapter.failNext = 'transfer';
    phone.actor.send({ type: 'phone.transfer', target: '1003' });
    await flush();
    expect(phone.state()).toBe('inCall');
    expect(phone.context().failedAction).toBe('transfer');
  });

  it('goes to failed when the connection drops during a call, closing the call for presence', () => {
    const phone = registered();
    phone.actor.send({ type: 'phone.dial', target: '1002' });
    phone.sip({ type: 'sip.answered', callId: 'c-6' });
    phone.sip({ type: 'sip.disconnected' });
    expect(phone.state()).toBe('failed');
    expect(phone.context().error).toBe('disconnected');
    expect(phone.presence).toEqual(['callStarted', 'callEnded']);
  });

  it('records the tones the other side sends', () => {
    const phone = registered();
    phone.sip({ type: 'sip.incoming', callId: 'c-7', remoteNumber: '1001', remoteName: null });
    phone.sip({ type: 'sip.answered', callId: 'c-7' });
    phone.sip({ type: 'sip.dtmfReceived', tone: '4' });
    phone.sip({ type: 'sip.dtmfReceived', tone: '2' });
    expect(phone.context().dtmfReceived).toBe('42');
  });

  it('declines a ringing call through the adapter and rings again for the next one while wrapping up', () => {
    const phone = registered();
    phone.sip({ type: 'sip.incoming', callId: 'c-8', remoteNumber: '1001', remoteName: null });
    phone.actor.send({ type: 'phone.decline' });
    expect(phone.adapter.calls).toContain('decline');
    phone.sip({ type: 'sip.ended', callId: 'c-8', reason: 'declined' });
    expect(phone.state()).toBe('ended');
    phone.sip({ type: 'sip.incoming', callId: 'c-9', remoteNumber: '1004', remoteName: null });
    expect(phone.state()).toBe('ringing');
    expect(phone.context().call).toMatchObject({ callId: 'c-9', remoteNumber: '1004', endReason: null });
  });

  it('ignores in-call commands when there is no call', () => {
    const phone = registered();
    phone.actor.send({ type: 'phone.mute.toggle' });
    phone.actor.send({ type: 'phone.dtmf', tone: '1' });
    phone.actor.send({ type: 'phone.hangup' });
    expect(phone.state()).toBe('registered');
    expect(phone.adapter.calls).toEqual(['register']);
  });

  it('has no side effects of its own (default actions do nothing)', () => {
    const actor = createActor(softphoneMachine).start();
    actor.send({ type: 'phone.register' });
    expect(actor.getSnapshot().value).toBe('registering');
  });
});
