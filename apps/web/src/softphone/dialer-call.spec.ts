import { describe, expect, it } from '@jest/globals';
import { OUTBOUND_DISPOSITIONS } from '@centralita/contracts';
import { dispositionTarget, isDialerCall, outboundCallIdFrom, outboundDispositionBody } from './dialer-call';

const ID = '5B0F3C1E-8A57-4C61-9A3E-2F1D6C7B8A90';

describe('dialer calls on the softphone', () => {
  it('takes the outbound call id from the header, and nothing else', () => {
    expect(outboundCallIdFrom(ID)).toBe(ID.toLowerCase());
    expect(outboundCallIdFrom(` ${ID} `)).toBe(ID.toLowerCase());
    expect(outboundCallIdFrom(undefined)).toBeNull();
    expect(outboundCallIdFrom(null)).toBeNull();
    expect(outboundCallIdFrom('')).toBeNull();
    expect(outboundCallIdFrom('42')).toBeNull();
    expect(outboundCallIdFrom(`${ID}; drop table`)).toBeNull();
  });

  it("sends a dialer call's disposition to the outbound API and any other call's to the softphone records", () => {
    expect(dispositionTarget({ outboundCallId: 'c-1' })).toEqual({ kind: 'outbound', callId: 'c-1' });
    expect(dispositionTarget({ outboundCallId: null })).toEqual({ kind: 'softphone' });
    expect(dispositionTarget({})).toEqual({ kind: 'softphone' });
    expect(dispositionTarget(null)).toEqual({ kind: 'softphone' });
    expect(isDialerCall({ outboundCallId: 'c-1' })).toBe(true);
    expect(isDialerCall({ outboundCallId: null })).toBe(false);
  });

  it('builds the UpdDISPO body from the outbound dispositions only', () => {
    for (const disposition of OUTBOUND_DISPOSITIONS.filter((code) => code !== 'callback'))
      expect(outboundDispositionBody(disposition, '')).toEqual({ disposition });
    // The softphone's own outcomes are not UpdDISPO dispositions.
    expect(outboundDispositionBody('resolved', '')).toBeNull();
    expect(outboundDispositionBody('', '')).toBeNull();
  });

  it('needs a valid time for a callback, sent as ISO', () => {
    expect(outboundDispositionBody('callback', '')).toBeNull();
    expect(outboundDispositionBody('callback', 'tomorrow-ish')).toBeNull();
    const local = '2030-05-04T10:30';
    expect(outboundDispositionBody('callback', local)).toEqual({ disposition: 'callback', callbackAt: new Date(local).toISOString() });
  });
});
