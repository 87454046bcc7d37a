import { AgentRowCache } from './agent-row-cache';
import type { AgentRow } from './views';

const row = (userId: string, version = 1) => ({ user_id: userId, version }) as AgentRow;

describe(AgentRowCache.name, () => {
  it('answers the kept row while it is fresh and drops it once stale', () => {
    const cache = new AgentRowCache(10, 1_000);
    cache.keep('u1', row('u1', 3), 5_000);
    expect(cache.kept('u1', 6_000)).toEqual({ row: row('u1', 3), readAt: 5_000 });
    expect(cache.kept('u1', 6_001)).toBeUndefined();
    // Dropped, not only hidden: an earlier clock does not bring it back.
    expect(cache.kept('u1', 5_000)).toBeUndefined();
  });

  it('evicts the least recently written agent when full', () => {
    const cache = new AgentRowCache(2, 1_000);
    cache.keep('u1', row('u1'), 0);
    cache.keep('u2', row('u2'), 0);
    cache.keep('u1', row('u1', 2), 0);
    cache.keep('u3', row('u3'), 0);
    expect(cache.kept('u2', 0)).toBeUndefined();
    expect(cache.kept('u1', 0)?.row.version).toBe(2);
    expect(cache.kept('u3', 0)).toBeDefined();
  });

  it('forgets a row something else moved', () => {
    const cache = new AgentRowCache();
    cache.keep('u1', row('u1'), Date.now());
    cache.forget('u1');
    expect(cache.kept('u1')).toBeUndefined();
  });
});
