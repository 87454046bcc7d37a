import { requestFingerprint } from './idempotency.interceptor';

describe('requestFingerprint', () => {
  it('is the same for the same request whatever the order of its fields', () => {
    const one = requestFingerprint('POST', '/api/agent/conversations/c/transfer', { to: { agentId: 'a', note: 'x' }, reason: 'r' });
    const two = requestFingerprint('POST', '/api/agent/conversations/c/transfer', { reason: 'r', to: { note: 'x', agentId: 'a' } });
    expect(one).toBe(two);
    expect(one).toMatch(/^[0-9a-f]{64}$/);
  });

  it('tells apart another body, another path and another method', () => {
    const base = requestFingerprint('POST', '/api/agent/presence/pause', { reasonId: 'break' });
    expect(requestFingerprint('POST', '/api/agent/presence/pause', { reasonId: 'lunch' })).not.toBe(base);
    expect(requestFingerprint('POST', '/api/supervisor/agents/u/pause', { reasonId: 'break' })).not.toBe(base);
    expect(requestFingerprint('PUT', '/api/agent/presence/pause', { reasonId: 'break' })).not.toBe(base);
    // No body and a null body are the same request; an empty object is not an empty list.
    expect(requestFingerprint('POST', '/api/agent/presence/available', undefined)).toBe(
      requestFingerprint('POST', '/api/agent/presence/available', null),
    );
    expect(requestFingerprint('POST', '/api/agent/presence/available', {})).not.toBe(
      requestFingerprint('POST', '/api/agent/presence/available', []),
    );
  });
});
