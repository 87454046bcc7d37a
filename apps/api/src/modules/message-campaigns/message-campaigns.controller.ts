import { PERMISSIONS } from '@centralita/contracts';
import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Query, Req, StreamableFile } from '@nestjs/common';
import type { Request } from 'express';
import { TEMPLATE_MEDIA_LIMITS, TEMPLATE_SAMPLE_TYPES, type HeaderMediaInput } from '@centralita/contracts';
import { readRawUpload } from '../../common/raw-upload';
import { ApiBearerAuth, ApiOperation, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsArray, IsIn, IsInt, IsOptional, IsString } from 'class-validator';
import { ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import type { CallingWindowsInput, ChannelTemplateInput, ParameterSourceInput, TemplateButtonInput } from '@centralita/contracts';
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
  @ApiPropertyOptional({ enum: ['POSITIONAL', 'NAMED'], description: 'NAMED: {{first_name}} parameters; examples in order of first use' })
  @IsOptional()
  @IsString()
  parameterFormat?: ChannelTemplateInput['parameterFormat'];
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
  // Email templates (an email account's; see email-campaigns.ts): subject, html and/or text, one example per {{n}}.
  @ApiPropertyOptional({ description: 'Email templates: the subject ({{n}} parameters allowed)' })
  @IsOptional()
  @IsString()
  subject?: string;
  @ApiPropertyOptional({ description: 'Email templates: the HTML body' }) @IsOptional() @IsString() html?: string;
  @ApiPropertyOptional({ description: 'Email templates: the plain-text body' }) @IsOptional() @IsString() text?: string;
  @ApiPropertyOptional({ type: [String], description: 'Email templates: one example per parameter' })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  examples?: string[];
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
  @ApiPropertyOptional({ description: 'Media header templates: {link: https URL} or {id: uploaded media id}, fileName for documents' })
  @IsOptional()
  headerMedia?: HeaderMediaInput;
}

class MessageCampaignDto {
  @ApiPropertyOptional() @IsOptional() @IsString() name?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsString() accountId?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsString() templateId?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsString() phoneListId?: string;
  @ApiPropertyOptional({ description: 'Email campaigns: the list column with the recipient addresses' })
  @IsOptional()
  @IsString()
  addressColumn?: string;
  @ApiPropertyOptional({ description: "{header: [...], body: [...]} of {source:'name'|'phone'|'fixed', value?, fallback?}" })
  @IsOptional()
  parameterMapping?: { header?: ParameterSourceInput[]; body?: ParameterSourceInput[] };
  @ApiPropertyOptional({ description: 'Media header templates: {link: https URL} or {id: uploaded media id}, fileName for documents' })
  @IsOptional()
  headerMedia?: HeaderMediaInput;
  @ApiPropertyOptional({ description: 'Messages per second (Meta: 80 per number by default)', minimum: 1, maximum: 1000 })
  @IsOptional()
  @IsInt()
  ratePerSecond?: number;
  @ApiPropertyOptional({ description: 'ISO date-time: started before it, the campaign waits (scheduled) until then', nullable: true })
  @IsOptional()
  @IsString()
  startsAt?: string | null;
  @ApiPropertyOptional({ description: 'ISO date-time: the campaign finishes then, its unsent recipients skipped', nullable: true })
  @IsOptional()
  @IsString()
  endsAt?: string | null;
  @ApiPropertyOptional({
    description: "The dialer's calling windows (weekday → [{from, to}] HH:MM, the recipient's local time); null = any hour",
    nullable: true,
    example: { mon: [{ from: '09:00', to: '21:00' }] },
  })
  @IsOptional()
  callingWindows?: CallingWindowsInput | null;
}

class RecipientsQueryDto {
  @ApiPropertyOptional() @IsOptional() @IsIn(['queued', 'sending', 'sent', 'delivered', 'read', 'failed', 'skipped']) status?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() page?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() pageSize?: string;
}

class TemplatesQueryDto {
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsString() accountId?: string;
}

class SampleQueryDto {
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsString() accountId?: string;
  @ApiPropertyOptional({ enum: ['IMAGE', 'VIDEO', 'DOCUMENT'] }) @IsOptional() @IsString() format?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() fileName?: string;
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

  @Get('test-numbers')
  @RequirePermission(MANAGE)
  @ApiOperation({ summary: "The account's internal numbers a template may be test sent to (setting testNumbers)" })
  @ApiErrors(400, 401, 403, 404)
  testNumbers(@CurrentPrincipal() principal: Principal, @Query() query: TemplatesQueryDto) {
    return this.service.testNumbers(principal, query.accountId);
  }

  @Post('samples')
  @RequirePermission(MANAGE)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: "A media header's sample (raw body, Content-Type the file's type): uploaded to Meta, answers the handle for header.handle",
  })
  @ApiErrors(400, 401, 403, 404, 413, 415, 503)
  async sample(@CurrentPrincipal() principal: Principal, @Query() query: SampleQueryDto, @Req() req: Request) {
    const limit =
      TEMPLATE_MEDIA_LIMITS[query.format as keyof typeof TEMPLATE_MEDIA_LIMITS]?.maxBytes ?? TEMPLATE_MEDIA_LIMITS.IMAGE.maxBytes;
    const bytes = await readRawUpload(req, limit, TEMPLATE_SAMPLE_TYPES);
    const mimeType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    return this.service.uploadTemplateSample(principal, { ...query, mimeType, bytes });
  }

  @Post('header-media')
  @RequirePermission(MANAGE)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary:
      "A campaign's media header (raw body, Content-Type the file's type): checked against WhatsApp's limits, uploaded once, answers the id for headerMedia.id",
  })
  @ApiErrors(400, 401, 403, 404, 413, 415, 503)
  async headerMedia(@CurrentPrincipal() principal: Principal, @Query() query: SampleQueryDto, @Req() req: Request) {
    const limit =
      TEMPLATE_MEDIA_LIMITS[query.format as keyof typeof TEMPLATE_MEDIA_LIMITS]?.maxBytes ?? TEMPLATE_MEDIA_LIMITS.IMAGE.maxBytes;
    const types = [...new Set(Object.values(TEMPLATE_MEDIA_LIMITS).flatMap((one) => one.mimeTypes))];
    const bytes = await readRawUpload(req, limit, types);
    const mimeType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    return this.service.uploadHeaderMedia(principal, { ...query, mimeType, bytes });
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
