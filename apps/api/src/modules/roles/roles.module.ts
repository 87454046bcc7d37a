import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { User } from '../users/user.entity';
import { MenuController, RolesController } from './roles.controller';
import { RoleMenu } from './role-menu.entity';
import { Role } from './role.entity';
import { RolesService } from './roles.service';

@Module({
  imports: [TypeOrmModule.forFeature([Role, RoleMenu, User]), AuthModule],
  controllers: [RolesController, MenuController],
  providers: [RolesService],
  exports: [RolesService],
})
export class RolesModule {}
