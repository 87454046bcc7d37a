import { PERMISSIONS, type CampaignSummary, type OptionItem, type Page } from '@centralita/contracts';
import { Body, Controller, Delete, Get, Param, Post, Put, Query, HttpCode, HttpStatus } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { PagedQueryDto } from '../admin/paged-query.dto';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { CampaignsService } from './campaigns.service';
import { CampaignInputDto, CampaignPageDto, CampaignSummaryDto, OptionItemDto } from './dto/campaigns.dto';

@ApiTags('campaigns')
@ApiBearerAuth()
@Controller('campaigns')
export class CampaignsController {
  constructor(private readonly campaigns: CampaignsService) {}

  @Get()
  @RequirePermission(PERMISSIONS.campaignsManage)
  @ApiOperation({ summary: 'Campaigns, paged; sortField: name, identifier, fromDate, toDate, allowedChatsPerAgent, customer' })
  @ApiEnvelope(CampaignPageDto)
  @ApiErrors(400, 401, 403)
  list(@Query() query: PagedQueryDto, @CurrentPrincipal() principal: Principal): Promise<Page<CampaignSummary>> {
    return this.campaigns.list(principal.clientId, query);
  }

  @Get('options')
  @RequirePermission(PERMISSIONS.campaignsManage, PERMISSIONS.usersManage, PERMISSIONS.attentionLinesManage)
  @ApiOperation({ summary: 'Id and name of every campaign, for pickers' })
  @ApiEnvelope([OptionItemDto])
  @ApiErrors(401, 403)
  options(@CurrentPrincipal() principal: Principal): Promise<OptionItem[]> {
    return this.campaigns.options(principal.clientId);
  }

  @Get(':id')
  @RequirePermission(PERMISSIONS.campaignsManage)
  @ApiOperation({ summary: "One campaign; another tenant's id answers 404" })
  @ApiEnvelope(CampaignSummaryDto)
  @ApiErrors(400, 401, 403, 404)
  get(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<CampaignSummary> {
    return this.campaigns.get(principal.clientId, id);
  }

  @Post()
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.campaignsManage)
  @ApiOperation({ summary: 'Creates a campaign (chats per agent 1..5, fromDate before toDate, identifier ≤ 20 and unique)' })
  @ApiEnvelope(CampaignSummaryDto)
  @ApiErrors(400, 401, 403, 409)
  create(@Body() body: CampaignInputDto, @CurrentPrincipal() principal: Principal): Promise<CampaignSummary> {
    return this.campaigns.create(principal, body);
  }

  @Put(':id')
  @RequirePermission(PERMISSIONS.campaignsManage)
  @ApiOperation({ summary: 'Replaces a campaign (same rules as create)' })
  @ApiEnvelope(CampaignSummaryDto)
  @ApiErrors(400, 401, 403, 404, 409)
  update(
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: CampaignInputDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<CampaignSummary> {
    return this.campaigns.update(principal, id, body);
  }

  @Delete(':id')
  @RequirePermission(PERMISSIONS.campaignsManage)
  @ApiOperation({ summary: 'Soft-deletes a campaign (history keeps referring to it)' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  remove(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<{ deleted: true }> {
    return this.campaigns.remove(principal, id);
  }
}
