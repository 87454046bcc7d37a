import { PERMISSIONS, type AuditEntry, type Page } from '@centralita/contracts';
import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsOptional, IsString, IsUUID, Matches } from 'class-validator';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { AuditService } from './audit.service';
import { PageNumber, PageSize } from './paged-query.dto';

export class AuditQueryDto {
  @ApiPropertyOptional({ example: 'campaign' })
  @IsOptional()
  @Matches(/^[a-z-]{1,60}$/)
  @IsString()
  entityType?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  entityId?: string;

  @PageNumber()
  page?: number;

  @PageSize(200)
  pageSize?: number;
}

export class AuditEntryDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() entityType!: string;
  @ApiProperty({ format: 'uuid' }) entityId!: string;
  @ApiProperty({ enum: ['create', 'update', 'delete'] }) action!: string;
  @ApiProperty({ type: String, nullable: true }) actorUserId!: string | null;
  @ApiProperty({ type: String, nullable: true }) actorName!: string | null;
  @ApiProperty({ type: Object, nullable: true }) before!: Record<string, unknown> | null;
  @ApiProperty({ type: Object, nullable: true }) after!: Record<string, unknown> | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class AuditPageDto {
  @ApiProperty({ type: [AuditEntryDto] }) items!: AuditEntryDto[];
  @ApiProperty() total!: number;
  @ApiProperty() page!: number;
  @ApiProperty() pageSize!: number;
}

@ApiTags('audit')
@ApiBearerAuth()
@Controller('audit')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @RequirePermission(PERMISSIONS.auditView)
  @ApiOperation({ summary: "Configuration changes of the caller's tenant, newest first (who, what, before and after)" })
  @ApiEnvelope(AuditPageDto)
  @ApiErrors(400, 401, 403)
  list(@Query() query: AuditQueryDto, @CurrentPrincipal() principal: Principal): Promise<Page<AuditEntry>> {
    return this.audit.list(principal.clientId, query);
  }
}
