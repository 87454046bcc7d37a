import { PERMISSIONS } from '@centralita/contracts';
import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { listColumns } from './email-campaigns';

/** What the email campaign form needs of a phone list: the columns it can map to the address and parameters. */
@ApiTags('message-campaigns')
@ApiBearerAuth()
@Controller('message-campaign-lists')
export class EmailCampaignListsController {
  constructor(private readonly dataSource: DataSource) {}

  @Get(':id/columns')
  @RequirePermission(PERMISSIONS.outboundManage)
  @ApiOperation({ summary: "A phone list's columns besides phone and name (lower-cased headers), for an email campaign's mapping" })
  @ApiErrors(400, 401, 403, 404)
  columns(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<string[]> {
    return listColumns(this.dataSource, principal.clientId, id);
  }
}
