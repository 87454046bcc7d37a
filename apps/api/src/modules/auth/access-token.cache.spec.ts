import { JwtService } from '@nestjs/jwt';
import { loadConfig } from '../../config/app-config';
import { AppException } from '../../common/app.exception';
import { AccessTokenService, VERIFIED_TOKENS_MAX_ENTRIES } from './access-token.service';

/** The in-process cache of verified access tokens must never accept what a full verify refuses. */
describe(`${AccessTokenService.name} verified-token cache`, () => {
  const config = loadConfig({ JWT_SECRET: 'unit-test-secret-unit-test-secret-1234' });
  const subject = { userId: 'u-1', clientId: 'c-1', sessionId: 's-1', tokenVersion: 2 };
  let jwt: JwtService;
  let service: AccessTokenService;
  let fullVerifies: jest.SpyInstance;

  beforeEach(() => {
    jwt = new JwtService({ secret: config.jwt.secret });
    service = new AccessTokenService(jwt, config);
    fullVerifies = jest.spyOn(jwt, 'verify');
  });
  afterEach(() => jest.useRealTimers());

  const codeOf = (fn: () => unknown): string => {
    try {
      fn();
      return 'none';
    } catch (error) {
      return (error as AppException).code;
    }
  };
  const cacheSize = (): number => (service as unknown as { verified: Map<string, unknown> }).verified.size;

  it('verifies a token once, then answers the same claims from the cache', () => {
    const token = service.sign(subject);
    const first = service.verify(token);
    expect(service.verify(token)).toEqual(first);
    expect(service.verify(token)).toMatchObject({ sub: 'u-1', cid: 'c-1', sid: 's-1', tv: 2, typ: 'access' });
    expect(fullVerifies).toHaveBeenCalledTimes(1);
  });

  it('still refuses a cached token once it expires (session_expired), from the second exp names', () => {
    const start = Date.UTC(2026, 0, 1, 12, 0, 0);
    jest.useFakeTimers({ now: start });
    const token = service.sign(subject);
    const { exp } = service.verify(token);
    expect(exp).toBe(start / 1000 + config.jwt.accessTtlSeconds);

    jest.setSystemTime(exp * 1000 - 1);
    expect(codeOf(() => service.verify(token))).toBe('none');
    expect(fullVerifies).toHaveBeenCalledTimes(1); // answered from the cache

    jest.setSystemTime(exp * 1000);
    expect(codeOf(() => service.verify(token))).toBe('session_expired');
    // jsonwebtoken, with no cache involved, draws the line at the same instant.
    expect(codeOf(() => new AccessTokenService(new JwtService({ secret: config.jwt.secret }), config).verify(token))).toBe(
      'session_expired',
    );
    // The expired entry is gone: later calls go through the full check and are still refused.
    expect(cacheSize()).toBe(0);
    expect(codeOf(() => service.verify(token))).toBe('session_expired');
    expect(cacheSize()).toBe(0);
  });

  it('never caches a token with a bad signature, even when a valid token with the same claims is cached', () => {
    const token = service.sign(subject);
    service.verify(token);
    expect(cacheSize()).toBe(1);

    const [header, payload] = token.split('.');
    const forged = `${header}.${payload}.${Buffer.from('not the signature').toString('base64url')}`;
    const otherKey = new JwtService({ secret: 'another-secret-another-secret-another-1' }).sign(
      { cid: 'c-1', sid: 's-1', tv: 2, typ: 'access' },
      { subject: 'u-1', expiresIn: 600, issuer: config.jwt.issuer, audience: config.jwt.audience },
    );
    for (const bad of [forged, otherKey]) {
      expect(codeOf(() => service.verify(bad))).toBe('unauthorized');
      expect(codeOf(() => service.verify(bad))).toBe('unauthorized');
    }
    expect(cacheSize()).toBe(1);
    // Every attempt with a bad token was fully verified (and refused), none answered from the cache.
    expect(fullVerifies).toHaveBeenCalledTimes(5);
  });

  it('never caches tokens refused for their claims (other kinds, missing claims)', () => {
    const refresh = jwt.sign(
      { cid: 'c', sid: 's', tv: 0, typ: 'refresh' },
      { subject: 'u', expiresIn: 60, issuer: config.jwt.issuer, audience: config.jwt.audience },
    );
    expect(codeOf(() => service.verify(refresh))).toBe('unauthorized');
    expect(codeOf(() => service.verify(refresh))).toBe('unauthorized');
    expect(cacheSize()).toBe(0);
  });

  it('is bounded, evicting the oldest entries first', () => {
    const tokens = Array.from({ length: VERIFIED_TOKENS_MAX_ENTRIES + 5 }, (_, index) =>
      service.sign({ ...subject, sessionId: `s-${index}` }),
    );
    for (const token of tokens) service.verify(token);
    expect(cacheSize()).toBe(VERIFIED_TOKENS_MAX_ENTRIES);
    fullVerifies.mockClear();

    // The newest are still cached; the oldest were evicted and need a full verify again.
    expect(service.verify(tokens[tokens.length - 1]).sid).toBe(`s-${tokens.length - 1}`);
    expect(fullVerifies).not.toHaveBeenCalled();
    expect(service.verify(tokens[0]).sid).toBe('s-0');
    expect(fullVerifies).toHaveBeenCalledTimes(1);
    expect(cacheSize()).toBe(VERIFIED_TOKENS_MAX_ENTRIES);
  });
});
