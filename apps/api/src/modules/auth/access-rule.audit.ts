import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { ACCESS_RULE } from './access.decorator';

/** Refuses to start when a route declares no access rule (Public, Authenticated or RequirePermission). */
@Injectable()
export class AccessRuleAudit implements OnApplicationBootstrap {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onApplicationBootstrap(): void {
    const missing = this.routesWithoutRule();
    if (missing.length)
      throw new Error(`Routes without an access rule (add @Public, @Authenticated or @RequirePermission): ${missing.join(', ')}`);
  }

  routesWithoutRule(): string[] {
    const missing: string[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const { instance, metatype } = wrapper;
      if (!instance || !metatype) continue;
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name] as (...args: unknown[]) => unknown;
        if (Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        if (!this.reflector.getAllAndOverride(ACCESS_RULE, [handler, metatype])) missing.push(`${metatype.name}.${name}`);
      }
    }
    return missing;
  }
}
