import { PERMISSIONS } from '@centralita/contracts';
import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { VoiceCallsService, type VoiceCallView } from './voice-calls.service';

@ApiTags('voice')
@ApiBearerAuth()
@Controller('voice')
export class VoiceController {
  constructor(private readonly calls: VoiceCallsService) {}

  @Get('conversations/:id/call')
  @RequirePermission(PERMISSIONS.conversationsSupervise)
  @ApiOperation({ summary: 'The inbound call behind a phone conversation: numbers, IVR path, stage, abandon stage, times' })
  @ApiErrors(400, 401, 403, 404)
  call(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<VoiceCallView> {
    return this.calls.callOfConversation(principal.clientId, id);
  }
}
