import type { Branding } from '@centralita/contracts';
import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsOptional, IsUUID } from 'class-validator';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { Public } from '../auth/access.decorator';
import { BrandingDto } from '../auth/dto/auth-responses.dto';
import { OptionalPrincipal, type Principal } from '../auth/principal';
import { BrandingService } from './branding.service';

export class BrandingQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: "Tenant to brand the sign-in page for; default: the caller's tenant" })
  @IsOptional()
  @IsUUID()
  clientId?: string;
}

/** Branding is public by design: the sign-in page shows it before anyone is signed in. */
@ApiTags('general')
@Controller('general')
export class BrandingController {
  constructor(private readonly branding: BrandingService) {}

  @Get('branding')
  @Public()
  @ApiBearerAuth()
  @ApiOperation({ summary: "Logos, colour and images of ?clientId, else of the caller's tenant, else the defaults" })
  @ApiEnvelope(BrandingDto)
  @ApiErrors(400)
  get(@Query() query: BrandingQueryDto, @OptionalPrincipal() principal: Principal | undefined): Promise<Branding> {
    return this.branding.forClient(query.clientId ?? principal?.clientId);
  }
}
