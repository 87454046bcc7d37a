import { loadConfig } from '../../config/app-config';
import type { AppException } from '../../common/app.exception';
import { loadRealtimeConfig } from '../machine-host/realtime-config';
import { VisitorTokenService } from './visitor-token.service';

/** Visitor tokens are verified once per process, then only their expiry: never accepting what a full verify refuses. */
describe(`${VisitorTokenService.name} verified-token cache`, () => {
  const config = loadConfig({ JWT_SECRET: 'unit-test-secret-unit-test-secret-1234' });
  const realtime = { ...loadRealtimeConfig({}), visitorTokenTtlSeconds: 600 };
  const identity = { conversationId: 'conv-1', tenantId: 'tenant-1', visitorId: 'visitor-1' };
  afterEach(() => jest.useRealTimers());

  const messageOf = (fn: () => unknown): string => {
    try {
      fn();
      return 'accepted';
    } catch (error) {
      return `${(error as AppException).code}: ${(error as Error).message}`;
    }
  };

  it('answers the same identity from the cache and refuses the token from the second it expires', () => {
    const start = Date.UTC(2026, 0, 1, 12, 0, 0);
    jest.useFakeTimers({ now: start });
    const service = new VisitorTokenService(config, realtime);
    const token = service.sign(identity);
    const fullVerifies = jest.spyOn(service as unknown as { verifyUncached: (token: string) => unknown }, 'verifyUncached');
    expect(service.verify(token)).toEqual(identity);
    expect(service.verify(token)).toEqual(identity);
    expect(fullVerifies).toHaveBeenCalledTimes(1);

    jest.setSystemTime(start + 600_000 - 1);
    expect(service.verify(token)).toEqual(identity);
    jest.setSystemTime(start + 600_000);
    expect(messageOf(() => service.verify(token))).toBe('unauthorized: The visitor token is invalid or has expired');
    // A fresh service (no cache) draws the line at the same instant.
    expect(messageOf(() => new VisitorTokenService(config, realtime).verify(token))).toBe(
      'unauthorized: The visitor token is invalid or has expired',
    );
  });

  it('never caches a token with a forged signature, even after the genuine one was cached', () => {
    const service = new VisitorTokenService(config, realtime);
    const token = service.sign(identity);
    service.verify(token);
    const [header, payload, signature] = token.split('.');
    const forged = `${header}.${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(messageOf(() => service.verify(forged))).toBe('unauthorized: The visitor token is invalid or has expired');
    expect(messageOf(() => service.verify(forged))).toBe('unauthorized: The visitor token is invalid or has expired');
    const other = new VisitorTokenService(loadConfig({ JWT_SECRET: 'another-secret-another-secret-123456' }), realtime).sign(identity);
    expect(messageOf(() => service.verify(other))).toBe('unauthorized: The visitor token is invalid or has expired');
  });
});

describe(`${VisitorTokenService.name}.assertOpen`, () => {
  const config = loadConfig({ JWT_SECRET: 'unit-test-secret-unit-test-secret-1234' });
  const service = new VisitorTokenService(config, { ...loadRealtimeConfig({}), visitorClosedGraceSeconds: 60 });
  const closedAt = new Date(Date.UTC(2026, 0, 1, 12, 0, 0));

  it('admits every state but Closed, however old', () => {
    for (const status of ['Transitory', 'LiningUp', 'Active', 'Inquest'])
      expect(() => service.assertOpen({ status, updated_at: closedAt }, closedAt.getTime() + 86_400_000)).not.toThrow();
  });

  it('admits a Closed conversation for the grace period, then refuses it from that second on', () => {
    const row = { status: 'Closed', updated_at: closedAt };
    expect(() => service.assertOpen(row, closedAt.getTime() + 59_999)).not.toThrow();
    expect(() => service.assertOpen(row, closedAt.getTime() + 60_000)).toThrow('The visitor token is invalid or has expired');
  });
});
