import {
  MESSAGING_KINDS,
  PERMISSIONS,
  type ChannelAccountInput,
  type ChannelAccountView,
  type ChannelKindView,
  type MessagingKind,
  type TemplateView,
} from '@centralita/contracts';
import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { Allow, IsOptional } from 'class-validator';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import {
  ChannelAccountsService,
  type ChannelAccountRegisterWebhookResult,
  type ChannelAccountTestResult,
} from './channel-accounts.service';
import { ChannelAdaptersService } from './channel-adapters.service';

/**
 * Fields are declared for the whitelist and the docs only: ChannelAccountsService checks them
 * against the kind's adapter (which secrets and settings exist, which are required) and names the
 * field in each 400.
 */
export class ChannelAccountUpdateDto {
  @ApiPropertyOptional({ maxLength: 120 }) @IsOptional() @Allow() name?: string;
  @ApiPropertyOptional({ maxLength: 200, description: "The provider's id of the account (phone-number id, page id, bot id…)" })
  @IsOptional()
  @Allow()
  externalAccountId?: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'The attention line its conversations enter by' })
  @IsOptional()
  @Allow()
  attentionLineId?: string;
  @ApiPropertyOptional({ type: Object, description: 'Plain settings named by GET /api/channel-kinds' })
  @IsOptional()
  @Allow()
  settings?: Record<string, string>;
  @ApiPropertyOptional({
    type: Object,
    writeOnly: true,
    description: 'Secrets named by GET /api/channel-kinds: stored encrypted, never answered',
  })
  @IsOptional()
  @Allow()
  secrets?: Record<string, string>;
  @ApiPropertyOptional() @IsOptional() @Allow() enabled?: boolean;
  /** Accepted only when it is the account's own kind (a form sending the whole account back). */
  @ApiPropertyOptional({ enum: MESSAGING_KINDS, description: 'Cannot change' }) @IsOptional() @Allow() kind?: MessagingKind;
}

export class ChannelAccountInputDto extends ChannelAccountUpdateDto {
  @ApiProperty({ enum: MESSAGING_KINDS }) @Allow() declare kind: MessagingKind;
}

/** Messaging channel accounts of the caller's organisation (permission settings.manage, as the channel settings). */
@ApiTags('channels')
@ApiBearerAuth()
@Controller()
export class ChannelAccountsController {
  constructor(
    private readonly accounts: ChannelAccountsService,
    private readonly adapters: ChannelAdaptersService,
  ) {}

  @Get('channel-kinds')
  // Capabilities, not secrets: the desk's composer checks attachments against them before upload.
  @RequirePermission(PERMISSIONS.settingsManage, PERMISSIONS.conversationsHandle, PERMISSIONS.conversationsSupervise)
  @ApiOperation({ summary: 'Channel kinds with an adapter: credentials to enter, capabilities, and whether this deployment offers it' })
  @ApiEnvelope(null)
  @ApiErrors(401, 403)
  kinds(): ChannelKindView[] {
    return this.adapters.kinds();
  }

  @Get('channel-accounts')
  @RequirePermission(PERMISSIONS.settingsManage)
  @ApiOperation({ summary: 'Connected accounts (secrets never answered: only which are set)' })
  @ApiEnvelope(null)
  @ApiErrors(401, 403)
  list(@CurrentPrincipal() principal: Principal): Promise<ChannelAccountView[]> {
    return this.accounts.list(principal.clientId);
  }

  @Get('channel-accounts/:id')
  @RequirePermission(PERMISSIONS.settingsManage)
  @ApiOperation({ summary: 'One connected account' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  get(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<ChannelAccountView> {
    return this.accounts.get(principal.clientId, id);
  }

  @Post('channel-accounts')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.settingsManage)
  @ApiOperation({
    summary: 'Connects an account: answers the webhook URL and verify token to paste at the provider. 409: already connected',
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 409)
  create(@Body() body: ChannelAccountInputDto, @CurrentPrincipal() principal: Principal): Promise<ChannelAccountView> {
    return this.accounts.create(principal.clientId, body as ChannelAccountInput);
  }

  @Put('channel-accounts/:id')
  @RequirePermission(PERMISSIONS.settingsManage)
  @ApiOperation({ summary: 'Changes an account; `secrets` replaces only the names it carries' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 409)
  update(
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: ChannelAccountUpdateDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ChannelAccountView> {
    return this.accounts.update(principal.clientId, id, body);
  }

  @Delete('channel-accounts/:id')
  @RequirePermission(PERMISSIONS.settingsManage)
  @ApiOperation({ summary: 'Disconnects an account (kept for history; its webhook answers 404 from now on)' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  remove(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<{ id: string }> {
    return this.accounts.remove(principal.clientId, id);
  }

  @Post('channel-accounts/:id/test')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.settingsManage)
  @ApiOperation({
    summary: "Calls the provider with the stored credentials: {ok, name} or {ok: false, message} with the provider's reason",
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  test(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<ChannelAccountTestResult> {
    return this.accounts.test(principal.clientId, id);
  }

  @Post('channel-accounts/:id/register-webhook')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.settingsManage)
  @ApiOperation({
    summary:
      "Points the provider's webhook at this account's webhook URL (kinds whose provider has an API for it, e.g. Telegram; others 400): " +
      "{ok: true, message: the URL} or {ok: false, message} with the provider's reason",
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  registerWebhook(
    @Param('id', ParseUuidPipe) id: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ChannelAccountRegisterWebhookResult> {
    return this.accounts.registerWebhook(principal.clientId, id);
  }

  @Get('channel-accounts/:id/templates')
  @RequirePermission(PERMISSIONS.settingsManage)
  @ApiOperation({ summary: "The account's approved message templates (channels with templates only; others 400)" })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 502)
  templates(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<TemplateView[]> {
    return this.accounts.templates(principal.clientId, id);
  }
}
