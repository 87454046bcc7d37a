import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BrandingController } from './branding.controller';
import { BrandingService } from './branding.service';
import { Client } from './client.entity';
import { Reseller } from './reseller.entity';

@Module({
  imports: [TypeOrmModule.forFeature([Client, Reseller])],
  controllers: [BrandingController],
  providers: [BrandingService],
  exports: [BrandingService],
})
export class TenancyModule {}
