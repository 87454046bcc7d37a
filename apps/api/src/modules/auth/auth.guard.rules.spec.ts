import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppException } from '../../common/app.exception';
import { Authenticated, Public, RequirePermission } from './access.decorator';
import type { AccessTokenService } from './access-token.service';
import { AuthGuard } from './auth.guard';
import type { PrincipalCacheService } from './principal-cache.service';
import type { RequestWithPrincipal } from './principal';

/** The guard remembers each route's access rule; it must still be the rule of that exact route. */
describe(`${AuthGuard.name} access rules`, () => {
  class Parent {
    @Authenticated() read(): void {}
    @Public() open(): void {}
  }
  @RequirePermission('dashboard.view')
  class Child extends Parent {}

  const reflector = new Reflector();
  const lookups = jest.spyOn(reflector, 'getAllAndOverride');
  const tokens = { verify: () => ({ sub: 'u', cid: 'c', sid: 's', tv: 1 }) } as unknown as AccessTokenService;
  const principals = {
    resolve: async () => ({
      state: {
        clientId: 'c',
        level: 'tenant',
        resellerId: 'x',
        roleId: 'r',
        roleCode: 'AGENT',
        permissions: [],
        tokenVersion: 1,
        active: true,
      },
      sessionRevoked: false,
    }),
  } as unknown as PrincipalCacheService;
  const guard = new AuthGuard(reflector, tokens, principals);
  const call = (controller: object, handler: object): Promise<boolean> => {
    const request = { headers: { authorization: 'Bearer t' }, method: 'GET', path: '/x' } as unknown as RequestWithPrincipal;
    const context = {
      getType: () => 'http',
      getHandler: () => handler,
      getClass: () => controller,
      switchToHttp: () => ({ getRequest: () => request }),
    } as unknown as ExecutionContext;
    return guard.canActivate(context);
  };
  const codeOf = (promise: Promise<unknown>): Promise<string> =>
    promise.then(
      () => 'none',
      (error: unknown) => (error as AppException).code,
    );

  it('looks a route’s rule up once, and keeps each route’s own rule', async () => {
    for (let i = 0; i < 3; i++) {
      expect(await codeOf(call(Parent, Parent.prototype.read))).toBe('none');
      expect(await codeOf(call(Parent, Parent.prototype.open))).toBe('none');
    }
    expect(lookups).toHaveBeenCalledTimes(2);
  });

  it('a subclass sharing its parent’s handler still gets its own rule', async () => {
    // The handler's own rule (authenticated) overrides the class's, as the reflector decides.
    expect(await codeOf(call(Child, Parent.prototype.read))).toBe('none');
    // A handler without a rule of its own takes the subclass's: the caller lacks the permission.
    class Bare {
      list(): void {}
    }
    expect(await codeOf(call(Child, Bare.prototype.list))).toBe('forbidden');
    expect(await codeOf(call(Child, Bare.prototype.list))).toBe('forbidden');
    expect(await codeOf(call(Parent, Bare.prototype.list))).toBe('forbidden'); // no rule at all: fail closed
  });
});
