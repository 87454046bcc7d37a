import type { ChannelAccountRow } from './channel-account.row';
import { FreshChannelEvents, type FreshChannelEvent } from './fresh-channel-events';

const TENANT = '00000000-0000-4000-8000-0000000000aa';
const event = (id: string, bytes = 10, tenant = TENANT): FreshChannelEvent => ({
  id,
  tenant_id: tenant,
  account_id: 'account',
  raw_body: Buffer.alloc(bytes),
  processed_at: null,
  account: { id: 'account' } as ChannelAccountRow,
  account_version: '1',
});

describe('FreshChannelEvents', () => {
  it('gives an event once, to a job of its own tenant', () => {
    const fresh = new FreshChannelEvents();
    fresh.keep(event('a'));
    fresh.keep(event('b'));
    expect(fresh.take('a', TENANT)?.id).toBe('a');
    // Taken: a retry reads the table.
    expect(fresh.take('a', TENANT)).toBeUndefined();
    // Another tenant's job never gets it (and it is gone: the table answers that job too).
    expect(fresh.take('b', '00000000-0000-4000-8000-0000000000bb')).toBeUndefined();
    expect(fresh.take('b', TENANT)).toBeUndefined();
  });

  it('holds at most 32 MB of bodies, letting the oldest go first', () => {
    const fresh = new FreshChannelEvents();
    const megabyte = 1024 * 1024;
    for (let i = 0; i < 40; i++) fresh.keep(event(`e${i}`, megabyte));
    expect(fresh.take('e0', TENANT)).toBeUndefined();
    expect(fresh.take('e7', TENANT)).toBeUndefined();
    expect(fresh.take('e8', TENANT)?.id).toBe('e8');
    expect(fresh.take('e39', TENANT)?.id).toBe('e39');
  });
});
