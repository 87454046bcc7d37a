import {
  OUTBOUND_TEMPLATE_LIMITS,
  PERMISSIONS,
  TEMPLATE_PARAMETER_SOURCES,
  type OutboundTemplateView,
  type Page,
  type TemplateTestResult,
} from '@centralita/contracts';
import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsArray, IsObject, IsOptional, IsString, IsUUID } from 'class-validator';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { PagedQueryDto } from '../admin/paged-query.dto';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { OutboundTemplatesService } from './outbound-templates.service';

class TemplateParameterDto {
  @ApiProperty({ description: 'Placeholder key: a letter, then letters, digits or _', maxLength: OUTBOUND_TEMPLATE_LIMITS.keyMax })
  key!: string;
  @ApiProperty({ maxLength: OUTBOUND_TEMPLATE_LIMITS.labelMax }) label!: string;
  @ApiProperty({ enum: TEMPLATE_PARAMETER_SOURCES, description: "A phone-list row field, or 'fixed'" }) source!: string;
  @ApiProperty({ description: "The text of a 'fixed' parameter" }) value!: string;
  @ApiProperty({ description: 'Used when the contact lacks the value' }) defaultValue!: string;
}

/** Types only; validateOutboundTemplate() (shared with the console) holds the rules. */
export class OutboundTemplateDto {
  @ApiProperty({ maxLength: OUTBOUND_TEMPLATE_LIMITS.nameMax }) @IsOptional() @IsString() name?: string;
  @ApiPropertyOptional({ maxLength: OUTBOUND_TEMPLATE_LIMITS.descriptionMax }) @IsOptional() @IsString() description?: string;
  @ApiProperty({ maxLength: OUTBOUND_TEMPLATE_LIMITS.scriptMax, description: 'The text the agent reads, with {{key}} placeholders' })
  @IsOptional()
  @IsString()
  script?: string;
  @ApiPropertyOptional({ type: [TemplateParameterDto], description: 'Every placeholder declared once, every parameter used' })
  @IsOptional()
  @IsArray()
  parameters?: never[];
}

export class TemplateTestDto {
  @ApiPropertyOptional({ format: 'uuid', description: "One of the tenant's outbound contacts or phone-list rows" })
  @IsOptional()
  @IsUUID()
  contactId?: string | null;
  @ApiPropertyOptional({ description: 'Sample values by parameter key (override the contact, the fixed text and the default)' })
  @IsOptional()
  @IsObject()
  values?: Record<string, string>;
}

class TemplateViewDto extends OutboundTemplateDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ description: 'Campaigns (not deleted) using the template' }) campaignCount!: number;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}
class TemplatePageDto {
  @ApiProperty({ type: [TemplateViewDto] }) items!: TemplateViewDto[];
  @ApiProperty() total!: number;
  @ApiProperty() page!: number;
  @ApiProperty() pageSize!: number;
}
class TemplateTestResultDto {
  @ApiProperty({ format: 'uuid' }) templateId!: string;
  @ApiProperty() templateName!: string;
  @ApiProperty({ description: 'The rendered script; placeholders without a value stay as {{key}}' }) text!: string;
  @ApiProperty({ type: [String], description: 'Keys with no value and no default' }) missing!: string[];
  @ApiPropertyOptional({ nullable: true, description: '{name, phone} of the contact used' }) contact!: object | null;
}

const MANAGE = PERMISSIONS.outboundManage;

@ApiTags('outbound')
@ApiBearerAuth()
@Controller('outbound/templates')
export class OutboundTemplatesController {
  constructor(private readonly templates: OutboundTemplatesService) {}

  @Get()
  @RequirePermission(MANAGE)
  @ApiOperation({ summary: 'Outbound campaign templates, paged; sortField: name, createdAt, updatedAt; q matches name and description' })
  @ApiEnvelope(TemplatePageDto)
  @ApiErrors(400, 401, 403)
  list(@CurrentPrincipal() principal: Principal, @Query() query: PagedQueryDto): Promise<Page<OutboundTemplateView>> {
    return this.templates.list(principal, query);
  }

  @Get(':id')
  @RequirePermission(MANAGE)
  @ApiEnvelope(TemplateViewDto)
  @ApiErrors(400, 401, 403, 404)
  get(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<OutboundTemplateView> {
    return this.templates.get(principal, id);
  }

  @Post()
  @RequirePermission(MANAGE)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Creates a template (name unique per tenant; placeholders and parameters must match)' })
  @ApiEnvelope(TemplateViewDto)
  @ApiErrors(400, 401, 403, 409)
  create(@CurrentPrincipal() principal: Principal, @Body() body: OutboundTemplateDto): Promise<OutboundTemplateView> {
    return this.templates.create(principal, body);
  }

  @Put(':id')
  @RequirePermission(MANAGE)
  @ApiOperation({ summary: 'Updates a template (omitted fields keep their value)' })
  @ApiEnvelope(TemplateViewDto)
  @ApiErrors(400, 401, 403, 404, 409)
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: OutboundTemplateDto,
  ): Promise<OutboundTemplateView> {
    return this.templates.update(principal, id, body);
  }

  @Delete(':id')
  @RequirePermission(MANAGE)
  @ApiOperation({ summary: 'Soft-deletes a template; campaigns using it are detached (they keep dialing without a script)' })
  @ApiErrors(400, 401, 403, 404)
  remove(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string) {
    return this.templates.remove(principal, id);
  }

  @Post(':id/test')
  @RequirePermission(MANAGE)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Test send: the script rendered for a contact and/or sample values, with the missing parameters (nothing stored)',
  })
  @ApiEnvelope(TemplateTestResultDto)
  @ApiErrors(400, 401, 403, 404)
  test(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: TemplateTestDto,
  ): Promise<TemplateTestResult> {
    return this.templates.test(principal, id, body);
  }
}
