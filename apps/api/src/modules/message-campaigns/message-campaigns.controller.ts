import { PERMISSIONS } from '@centralita/contracts';
import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Query, StreamableFile } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsArray, IsIn, IsInt, IsOptional, IsString } from 'class-validator';
import { ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import type { ChannelTemplateInput, ParameterSourceInput, TemplateButtonInput } from '@centralita/contracts';
import { MessageCampaignsService } from './message-campaigns.service';

const MANAGE = PERMISSIONS.outboundManage;

/** Types only; templateProblem() names what is wrong. */
class ChannelTemplateDto {
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsString() accountId?: string;
  @ApiPropertyOptional({ description: 'Lowercase letters, digits and _ (Meta)' }) @IsOptional() @IsString() name?: string;
  @ApiPropertyOptional({ description: 'es, en_US, pt_BR…' }) @IsOptional() @IsString() language?: string;
  @ApiPropertyOptional({ enum: ['MARKETING', 'UTILITY', 'AUTHENTICATION'] })
  @IsOptional()
  @IsString()
  category?: ChannelTemplateInput['category'];
  @ApiPropertyOptional({ description: "{format:'TEXT', text, example} or {format:'IMAGE'|'VIDEO'|'DOCUMENT', handle}" })
  @IsOptional()
  header?: ChannelTemplateInput['header'];
  @ApiPropertyOptional({ description: '{text with {{1}}…, examples: one per parameter}' })
  @IsOptional()
  body?: ChannelTemplateInput['body'];
  @ApiPropertyOptional({ maxLength: 60 }) @IsOptional() @IsString() footer?: string;
  @ApiPropertyOptional({ description: "[{type:'QUICK_REPLY'|'URL'|'PHONE_NUMBER', text, url?, phoneNumber?}]" })
  @IsOptional()
  @IsArray()
  buttons?: TemplateButtonInput[];
}

class SyncDto {
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsString() accountId?: string;
}

class SampleValuesDto {
  @ApiPropertyOptional({ type: [String] }) @IsOptional() @IsArray() @IsString({ each: true }) header?: string[];
  @ApiPropertyOptional({ type: [String] }) @IsOptional() @IsArray() @IsString({ each: true }) body?: string[];
}

class TestSendDto extends SampleValuesDto {
  @ApiPropertyOptional({ description: "One of the account's internal test numbers" }) @IsOptional() @IsString() to?: string;
}

class MessageCampaignDto {
  @ApiPropertyOptional() @IsOptional() @IsString() name?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsString() accountId?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsString() templateId?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsString() phoneListId?: string;
  @ApiPropertyOptional({ description: "{header: [...], body: [...]} of {source:'name'|'phone'|'fixed', value?, fallback?}" })
  @IsOptional()
  parameterMapping?: { header?: ParameterSourceInput[]; body?: ParameterSourceInput[] };
  @ApiPropertyOptional({ description: 'Messages per second (Meta: 80 per number by default)', minimum: 1, maximum: 1000 })
  @IsOptional()
  @IsInt()
  ratePerSecond?: number;
}

class RecipientsQueryDto {
  @ApiPropertyOptional() @IsOptional() @IsIn(['queued', 'sending', 'sent', 'delivered', 'read', 'failed', 'skipped']) status?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() page?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() pageSize?: string;
}

class TemplatesQueryDto {
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsString() accountId?: string;
}

@ApiTags('message-campaigns')
@ApiBearerAuth()
@Controller('message-templates')
export class MessageTemplatesController {
  constructor(private readonly service: MessageCampaignsService) {}

  @Get()
  @RequirePermission(MANAGE)
  @ApiOperation({ summary: "The tenant's channel (WhatsApp) templates with their review status" })
  @ApiErrors(400, 401, 403)
  list(@CurrentPrincipal() principal: Principal, @Query() query: TemplatesQueryDto) {
    return this.service.listTemplates(principal, query.accountId);
  }

  @Get('accounts')
  @RequirePermission(MANAGE)
  @ApiOperation({ summary: "The tenant's channel accounts that have provider templates (the editor's and the campaign form's picker)" })
  @ApiErrors(401, 403)
  accounts(@CurrentPrincipal() principal: Principal) {
    return this.service.templateAccounts(principal);
  }

  @Get(':id')
  @RequirePermission(MANAGE)
  @ApiErrors(400, 401, 403, 404)
  get(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string) {
    return this.service.getTemplate(principal, id);
  }

  @Post()
  @RequirePermission(MANAGE)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Stores a draft template (checked as Meta checks it)' })
  @ApiErrors(400, 401, 403, 404, 409)
  create(@CurrentPrincipal() principal: Principal, @Body() body: ChannelTemplateDto) {
    return this.service.createTemplate(principal, body as Partial<ChannelTemplateInput>);
  }

  @Post('sync')
  @RequirePermission(MANAGE)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: "Sync now: reads every template's status from the provider" })
  @ApiErrors(400, 401, 403, 404, 503)
  sync(@CurrentPrincipal() principal: Principal, @Body() body: SyncDto) {
    return this.service.syncTemplates(principal, body.accountId);
  }

  @Post(':id/submit')
  @RequirePermission(MANAGE)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: "Submits the template to the account's WhatsApp Business account (status PENDING until Meta decides)" })
  @ApiErrors(400, 401, 403, 404, 409, 503)
  submit(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string) {
    return this.service.submitTemplate(principal, id);
  }

  @Post(':id/preview')
  @RequirePermission(MANAGE)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'The template rendered with sample values (its examples when none are given)' })
  @ApiErrors(400, 401, 403, 404)
  preview(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string, @Body() body: SampleValuesDto) {
    return this.service.previewTemplate(principal, id, body);
  }

  @Post(':id/test-send')
  @RequirePermission(MANAGE)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Test send of an approved template to an internal number: the rendered message and the provider answer' })
  @ApiErrors(400, 401, 403, 404, 409)
  testSend(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string, @Body() body: TestSendDto) {
    return this.service.testSend(principal, id, body);
  }
}

@ApiTags('message-campaigns')
@ApiBearerAuth()
@Controller('message-campaigns')
export class MessageCampaignsController {
  constructor(private readonly service: MessageCampaignsService) {}

  @Get()
  @RequirePermission(MANAGE)
  @ApiErrors(401, 403)
  list(@CurrentPrincipal() principal: Principal) {
    return this.service.listCampaigns(principal);
  }

  @Post()
  @RequirePermission(MANAGE)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Creates a message campaign (draft): account, template, phone list, parameter mapping, pace' })
  @ApiErrors(400, 401, 403, 404)
  create(@CurrentPrincipal() principal: Principal, @Body() body: MessageCampaignDto) {
    return this.service.createCampaign(principal, body);
  }

  @Get(':id')
  @RequirePermission(MANAGE, PERMISSIONS.conversationsSupervise)
  @ApiOperation({ summary: 'The campaign and its board: recipients per status, skips per reason, replies' })
  @ApiErrors(400, 401, 403, 404)
  get(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string) {
    return this.service.getCampaign(principal, id);
  }

  @Post(':id/start')
  @RequirePermission(MANAGE)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Starts or resumes the campaign (its first start writes the recipients)' })
  @ApiErrors(400, 401, 403, 404, 409)
  start(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string) {
    return this.service.startCampaign(principal, id);
  }

  @Post(':id/pause')
  @RequirePermission(MANAGE)
  @HttpCode(HttpStatus.OK)
  @ApiErrors(400, 401, 403, 404, 409)
  pause(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string) {
    return this.service.pauseCampaign(principal, id);
  }

  @Post(':id/stop')
  @RequirePermission(MANAGE)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Stops the campaign at once (no further sends; it cannot start again)' })
  @ApiErrors(400, 401, 403, 404, 409)
  stop(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string) {
    return this.service.stopCampaign(principal, id);
  }

  @Get(':id/recipients')
  @RequirePermission(MANAGE, PERMISSIONS.conversationsSupervise)
  @ApiErrors(400, 401, 403, 404)
  recipients(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string, @Query() query: RecipientsQueryDto) {
    return this.service.recipients(principal, id, query);
  }

  @Get(':id/results.csv')
  @RequirePermission(MANAGE, PERMISSIONS.conversationsSupervise)
  @ApiOperation({ summary: 'Per-recipient results as CSV (formula cells neutralised; not enveloped)' })
  @ApiErrors(401, 403, 404)
  async csv(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<StreamableFile> {
    const csv = await this.service.exportCsv(principal, id);
    return new StreamableFile(Buffer.from(`\uFEFF${csv}`, 'utf8'), {
      type: 'text/csv; charset=utf-8',
      disposition: 'attachment; filename="message-campaign-results.csv"',
    });
  }
}
