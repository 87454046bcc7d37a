import { PERMISSIONS, type Page, type PredefinedMessageSummary } from '@centralita/contracts';
import { Body, Controller, Delete, Get, Param, Post, Put, Query, HttpCode, HttpStatus } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { PagedQueryDto } from '../admin/paged-query.dto';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { PredefinedMessageInputDto, PredefinedMessagePageDto, PredefinedMessageSummaryDto } from './dto/predefined-messages.dto';
import { PredefinedMessagesService } from './predefined-messages.service';

@ApiTags('predefined-messages')
@ApiBearerAuth()
@Controller('predefined-messages')
export class PredefinedMessagesController {
  constructor(private readonly messages: PredefinedMessagesService) {}

  @Get()
  @RequirePermission(PERMISSIONS.predefinedMessagesManage)
  @ApiOperation({ summary: 'Response templates, paged; sortField: shortcut, message, scope, updatedAt' })
  @ApiEnvelope(PredefinedMessagePageDto)
  @ApiErrors(400, 401, 403)
  list(@Query() query: PagedQueryDto, @CurrentPrincipal() principal: Principal): Promise<Page<PredefinedMessageSummary>> {
    return this.messages.list(principal, query);
  }

  // Declared before ':id' so the path is not taken for an id.
  @Get('usable')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @ApiOperation({ summary: 'Templates the caller may insert in a chat: tenant-wide, of the lines they serve, and their own' })
  @ApiEnvelope([PredefinedMessageSummaryDto])
  @ApiErrors(401, 403)
  usable(@CurrentPrincipal() principal: Principal): Promise<PredefinedMessageSummary[]> {
    return this.messages.usable(principal);
  }

  @Get(':id')
  @RequirePermission(PERMISSIONS.predefinedMessagesManage)
  @ApiOperation({ summary: "One template; another tenant's (or another user's personal) id answers 404" })
  @ApiEnvelope(PredefinedMessageSummaryDto)
  @ApiErrors(400, 401, 403, 404)
  get(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<PredefinedMessageSummary> {
    return this.messages.get(principal, id);
  }

  @Post()
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.predefinedMessagesManage)
  @ApiOperation({ summary: 'Creates a template (message ≤ 500 characters; scope tenant, line or personal)' })
  @ApiEnvelope(PredefinedMessageSummaryDto)
  @ApiErrors(400, 401, 403, 404)
  create(@Body() body: PredefinedMessageInputDto, @CurrentPrincipal() principal: Principal): Promise<PredefinedMessageSummary> {
    return this.messages.create(principal, body);
  }

  @Put(':id')
  @RequirePermission(PERMISSIONS.predefinedMessagesManage)
  @ApiOperation({ summary: 'Replaces a template (same rules as create)' })
  @ApiEnvelope(PredefinedMessageSummaryDto)
  @ApiErrors(400, 401, 403, 404)
  update(
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: PredefinedMessageInputDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<PredefinedMessageSummary> {
    return this.messages.update(principal, id, body);
  }

  @Delete(':id')
  @RequirePermission(PERMISSIONS.predefinedMessagesManage)
  @ApiOperation({ summary: 'Soft-deletes a template' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  remove(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<{ deleted: true }> {
    return this.messages.remove(principal, id);
  }
}
