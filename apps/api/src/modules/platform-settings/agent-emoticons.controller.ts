import { PERMISSIONS } from '@centralita/contracts';
import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { PlatformSettingsService } from './platform-settings.service';

/** The agent desk's read of the tenant's emoticons (the full settings stay with settings.manage). */
@ApiTags('agent')
@ApiBearerAuth()
@Controller('agent')
export class AgentEmoticonsController {
  constructor(private readonly settings: PlatformSettingsService) {}

  @Get('emoticons')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @ApiOperation({ summary: "The tenant's emoticons for the chat input; [] when none are configured (the desk then offers its own)" })
  @ApiEnvelope(null)
  @ApiErrors(401, 403)
  emoticons(@CurrentPrincipal() principal: Principal): Promise<string[]> {
    return this.settings.emoticons(principal.clientId);
  }
}
