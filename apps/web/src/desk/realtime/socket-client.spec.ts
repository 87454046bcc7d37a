import { describe, expect, it } from '@jest/globals';
import { LONG_GAP_MS, needsResync, onConnectRefused } from './socket-client';

describe('reconnection resync', () => {
  it('loads over REST on the first connection', () => {
    expect(needsResync(true, false, 0)).toBe(true);
  });

  it('trusts a recovered short reconnect', () => {
    expect(needsResync(false, true, 1_000)).toBe(false);
  });

  it('resyncs after a reconnect the server did not recover', () => {
    expect(needsResync(false, false, 1_000)).toBe(true);
  });

  it('resyncs after a long gap even when recovered', () => {
    expect(needsResync(false, true, LONG_GAP_MS + 1)).toBe(true);
  });
});

describe('a refused staff handshake', () => {
  /** What socket.io-client gives connect_error for a middleware refusal (socket-access.service authError). */
  const refusal = (errorCode: string) => Object.assign(new Error(errorCode), { data: { errorCode } });

  it('renews the session once when the access token expired (a tab whose timers were throttled)', () => {
    expect(onConnectRefused(refusal('session_expired'), false, false)).toBe('renew');
  });

  it('renews once for a token the server no longer takes (unauthorized)', () => {
    expect(onConnectRefused(refusal('unauthorized'), false, false)).toBe('renew');
  });

  it('does not loop: refused again after a renewal, the socket stays down', () => {
    expect(onConnectRefused(refusal('session_expired'), false, true)).toBe('stop');
  });

  it('leaves network failures to the client’s own reconnection', () => {
    expect(onConnectRefused(new Error('xhr poll error'), true, false)).toBe('wait');
    expect(onConnectRefused(refusal('session_expired'), true, false)).toBe('wait');
  });

  it('does not renew for a refusal that is not about the session', () => {
    expect(onConnectRefused(refusal('forbidden'), false, false)).toBe('stop');
    expect(onConnectRefused(new Error('timeout'), false, false)).toBe('stop');
    expect(onConnectRefused(null, false, false)).toBe('stop');
  });
});
