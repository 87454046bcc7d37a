import { Controller, Get, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { Authenticated, Public } from './access.decorator';
import { AccessRuleAudit } from './access-rule.audit';

@Controller('open')
class DeclaredController {
  @Get()
  @Public()
  open(): string {
    return 'ok';
  }

  @Get('mine')
  @Authenticated()
  mine(): string {
    return 'ok';
  }

  helper(): string {
    return 'not a route';
  }
}

@Authenticated()
@Controller('class-level')
class ClassLevelController {
  @Get()
  list(): string[] {
    return [];
  }
}

@Controller('forgot')
class ForgotController {
  @Get()
  forgot(): string {
    return 'oops';
  }
}

describe(AccessRuleAudit.name, () => {
  const audit = async (...controllers: (new () => object)[]): Promise<AccessRuleAudit> => {
    @Module({ imports: [DiscoveryModule], controllers, providers: [AccessRuleAudit] })
    class AuditedModule {}
    const moduleRef = await Test.createTestingModule({ imports: [AuditedModule] }).compile();
    return moduleRef.get(AccessRuleAudit);
  };

  it('accepts routes with a rule on the method or the class', async () => {
    expect((await audit(DeclaredController, ClassLevelController)).routesWithoutRule()).toEqual([]);
  });

  it('names routes without a rule and refuses to start', async () => {
    const subject = await audit(DeclaredController, ForgotController);
    expect(subject.routesWithoutRule()).toEqual(['ForgotController.forgot']);
    expect(() => subject.onApplicationBootstrap()).toThrow(/ForgotController\.forgot/);
  });
});
