import { PERMISSIONS } from '@centralita/contracts';
import { Logger, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppException } from '../../common/app.exception';
import { ACCESS_RULE, type AccessRule } from './access.decorator';
import type { AccessTokenService } from './access-token.service';
import { AuthGuard, bearerToken, claimsAccessType } from './auth.guard';
import type { PrincipalCacheService, PrincipalState } from './principal-cache.service';
import type { RequestWithPrincipal } from './principal';

const claims = {
  sub: 'user-1',
  cid: 'client-1',
  sid: 'session-1',
  tv: 3,
  typ: 'access' as const,
  iat: 0,
  exp: 0,
  iss: 'centralita',
  aud: 'centralita-console',
};
const state: PrincipalState = {
  clientId: 'client-1',
  level: 'tenant',
  resellerId: 'reseller-1',
  roleId: 'role-1',
  roleCode: 'AGENT',
  permissions: [PERMISSIONS.dashboardView],
  tokenVersion: 3,
  active: true,
};

/** An unsigned JWT-shaped string with this payload: the guard only peeks at it, the (mocked) service verifies. */
const jwtShaped = (payload: object) => `h.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.s`;
const accessShaped = jwtShaped({ typ: 'access', sub: 'user-1' });

function setup(options: {
  rule?: AccessRule;
  authorization?: string;
  state?: PrincipalState | null;
  revoked?: boolean;
  verify?: () => typeof claims;
}) {
  const reflector = new Reflector();
  jest.spyOn(reflector, 'getAllAndOverride').mockImplementation((key) => (key === ACCESS_RULE ? options.rule : undefined));
  const tokens = { verify: jest.fn(options.verify ?? (() => claims)) } as unknown as AccessTokenService;
  const principals = {
    resolve: jest.fn(async () => ({
      state: options.state === undefined ? state : options.state,
      sessionRevoked: options.revoked ?? false,
    })),
  } as unknown as PrincipalCacheService;
  const request = { headers: { authorization: options.authorization }, method: 'GET', path: '/x' } as unknown as RequestWithPrincipal;
  const context = {
    getType: () => 'http',
    getHandler: () => () => undefined,
    getClass: () => class {},
    switchToHttp: () => ({ getRequest: () => request }),
  } as unknown as ExecutionContext;
  return { guard: new AuthGuard(reflector, tokens, principals), context, request, tokens };
}

const codeOf = async (promise: Promise<unknown>): Promise<string> =>
  ((await promise.catch((error: unknown) => error)) as AppException).code;

describe(AuthGuard.name, () => {
  it('refuses a route that declares no access rule (fail closed)', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const { guard, context } = setup({ authorization: 'Bearer t' });
    expect(await codeOf(guard.canActivate(context))).toBe('forbidden');
    expect(logged).toHaveBeenCalledWith('GET /x declares no access rule: refused');
    logged.mockRestore();
  });

  it('lets public routes through, attaching the caller when a valid token comes along', async () => {
    const anonymous = setup({ rule: { kind: 'public' } });
    await expect(anonymous.guard.canActivate(anonymous.context)).resolves.toBe(true);
    expect(anonymous.request.principal).toBeUndefined();

    const signedIn = setup({ rule: { kind: 'public' }, authorization: `Bearer ${accessShaped}` });
    await signedIn.guard.canActivate(signedIn.context);
    expect(signedIn.request.principal).toMatchObject({ userId: 'user-1', clientId: 'client-1', sessionId: 'session-1' });

    const badToken = setup({
      rule: { kind: 'public' },
      authorization: `Bearer ${accessShaped}`,
      verify: () => {
        throw new AppException('unauthorized');
      },
    });
    await expect(badToken.guard.canActivate(badToken.context)).resolves.toBe(true);
    expect(badToken.request.principal).toBeUndefined();
  });

  it("does not verify a web-chat visitor's token on a public route (it can never be a staff session)", async () => {
    const visitor = setup({ rule: { kind: 'public' }, authorization: `Bearer ${jwtShaped({ typ: 'visitor', sub: 'conv-1' })}` });
    await expect(visitor.guard.canActivate(visitor.context)).resolves.toBe(true);
    expect(visitor.request.principal).toBeUndefined();
    expect(visitor.tokens.verify).not.toHaveBeenCalled();
    // Anything else that is not a JWT claiming typ access is skipped the same way, and never throws.
    for (const token of ['t', 'a.b', 'a.%%%.c', `a.${Buffer.from('[1]').toString('base64url')}.c`])
      expect(claimsAccessType(token)).toBe(false);
    expect(claimsAccessType(accessShaped)).toBe(true);
  });

  it('requires a bearer token elsewhere', async () => {
    const { guard, context } = setup({ rule: { kind: 'authenticated' } });
    expect(await codeOf(guard.canActivate(context))).toBe('unauthorized');
  });

  it('checks the permission against the role state, not the token', async () => {
    const allowed = setup({
      rule: { kind: 'permission', anyOf: [PERMISSIONS.usersManage, PERMISSIONS.dashboardView] },
      authorization: 'Bearer t',
    });
    await expect(allowed.guard.canActivate(allowed.context)).resolves.toBe(true);
    const denied = setup({ rule: { kind: 'permission', anyOf: [PERMISSIONS.usersManage] }, authorization: 'Bearer t' });
    expect(await codeOf(denied.guard.canActivate(denied.context))).toBe('forbidden');
  });

  it.each([
    ['a disabled account', { state: { ...state, active: false } }, 'account_disabled'],
    ['a bumped tokenVersion', { state: { ...state, tokenVersion: 4 } }, 'session_expired'],
    ['a revoked session', { revoked: true }, 'session_expired'],
    ['a deleted user', { state: null }, 'unauthorized'],
    ['a user moved to another tenant', { state: { ...state, clientId: 'client-2' } }, 'unauthorized'],
  ])('refuses %s', async (_name, overrides, code) => {
    const { guard, context } = setup({ rule: { kind: 'authenticated' }, authorization: 'Bearer t', ...overrides });
    expect(await codeOf(guard.canActivate(context))).toBe(code);
  });
});

describe('bearerToken', () => {
  it.each([
    [undefined, null],
    ['Bearer abc.def.ghi', 'abc.def.ghi'],
    ['bearer   abc', 'abc'],
    ['Basic dXNlcjpwYXNz', null],
    ['Bearer', null],
    ['Bearer a b', null],
  ])('%s → %s', (header, expected) => {
    expect(bearerToken(header)).toBe(expected);
  });
});
