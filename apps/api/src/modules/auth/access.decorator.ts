import type { Permission } from '@centralita/contracts';
import { SetMetadata } from '@nestjs/common';

/**
 * Every route declares who may call it; the global AuthGuard refuses routes that declare nothing
 * (and start-up fails on them), so forgetting the check cannot open an endpoint.
 */
export type AccessRule = { kind: 'public' } | { kind: 'authenticated' } | { kind: 'permission'; anyOf: Permission[] };
export const ACCESS_RULE = 'centralita:access-rule';

/** No session needed; a valid bearer token, when sent, is still read (e.g. branding of the caller's tenant). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(ACCESS_RULE, { kind: 'public' } satisfies AccessRule);
/** Any signed-in user: endpoints about the caller's own session or profile. */
export const Authenticated = (): MethodDecorator & ClassDecorator =>
  SetMetadata(ACCESS_RULE, { kind: 'authenticated' } satisfies AccessRule);
/** Signed-in user whose role grants at least one of these permissions; otherwise 403 forbidden. */
export const RequirePermission = (...anyOf: [Permission, ...Permission[]]): MethodDecorator & ClassDecorator =>
  SetMetadata(ACCESS_RULE, { kind: 'permission', anyOf } satisfies AccessRule);
