import { describe, expect, it } from '@jest/globals';
import { LONG_GAP_MS, needsResync } from './socket-client';

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
