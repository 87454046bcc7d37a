import { describe, expect, it } from '@jest/globals';
import { applyReadMark, concernsAgentDesk, mergeMessages, VersionStore } from './version-store';

type Item = { id: string; version: number; status: string };

describe(VersionStore.name, () => {
  const store = () => new VersionStore<Item>((item) => item.id);

  it('accepts the first version of an entity', () => {
    const s = store();
    expect(s.accept({ id: 'a', version: 1, status: 'LiningUp' })).toBe(true);
    expect(s.get('a')?.status).toBe('LiningUp');
  });

  it('keeps the newer version and drops a stale one', () => {
    const s = store();
    s.accept({ id: 'a', version: 3, status: 'Active' });
    expect(s.accept({ id: 'a', version: 2, status: 'LiningUp' })).toBe(false);
    expect(s.get('a')?.status).toBe('Active');
  });

  it('drops a duplicate of the version it holds', () => {
    const s = store();
    s.accept({ id: 'a', version: 3, status: 'Active' });
    expect(s.accept({ id: 'a', version: 3, status: 'Other' })).toBe(false);
  });

  it('lets a REST resync through only where it is newer', () => {
    const s = store();
    s.accept({ id: 'a', version: 5, status: 'Inquest' });
    expect(
      s.acceptAll([
        { id: 'a', version: 4, status: 'Active' },
        { id: 'b', version: 1, status: 'LiningUp' },
      ]),
    ).toBe(true);
    expect(
      s
        .values()
        .map((item) => `${item.id}:${item.status}`)
        .sort(),
    ).toEqual(['a:Inquest', 'b:LiningUp']);
  });

  it('accepts any version again after an entity was forgotten', () => {
    const s = store();
    s.accept({ id: 'a', version: 5, status: 'Closed' });
    s.delete('a');
    expect(s.accept({ id: 'a', version: 1, status: 'LiningUp' })).toBe(true);
  });
});

describe('message merging', () => {
  const m = (id: string, sequence: number, senderKind = 'customer') => ({ id, sequence, senderKind, readAt: null as string | null });

  it('orders by sequence and drops re-deliveries', () => {
    expect(mergeMessages([m('b', 2), m('a', 1)], [m('b', 2), m('c', 3)]).map((x) => x.id)).toEqual(['a', 'b', 'c']);
  });

  it("marks the other side's messages read up to the sequence", () => {
    const marked = applyReadMark([m('a', 1, 'agent'), m('b', 2, 'customer'), m('c', 3, 'agent')], 'customer', 2, 'T');
    expect(marked.map((x) => x.readAt)).toEqual(['T', null, null]);
  });
});

describe(concernsAgentDesk.name, () => {
  const held = new VersionStore<{ id: string; version: number; agentId: string | null }>((item) => item.id);
  held.accept({ id: 'shown', version: 1, agentId: 'me' });

  it("keeps the agent's own conversations and the ones the desk holds (seen leaving when transferred away)", () => {
    expect(concernsAgentDesk({ id: 'new', agentId: 'me' }, 'me', held)).toBe(true);
    expect(concernsAgentDesk({ id: 'shown', agentId: 'someone-else' }, 'me', held)).toBe(true);
  });

  it("leaves out the rest of the tenant, which a supervisor's socket also hears", () => {
    expect(concernsAgentDesk({ id: 'other', agentId: 'someone-else' }, 'me', held)).toBe(false);
    expect(concernsAgentDesk({ id: 'queued', agentId: null }, 'me', held)).toBe(false);
  });
});
