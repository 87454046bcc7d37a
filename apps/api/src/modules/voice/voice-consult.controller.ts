import { PERMISSIONS, type VoiceConsultView } from '@centralita/contracts';
import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsOptional, IsUUID } from 'class-validator';
import { ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { VoiceConsultService } from './voice-consult.service';

/** Whom an attended transfer consults: one colleague, or the next ready agent of a line (exactly one). */
export class ConsultTargetDto {
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUUID() agentId?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUUID() attentionLineId?: string;
}

/** Attended (consultative) transfer of the signed-in agent's live phone conversation (voice-consult.service.ts). */
@ApiTags('voice')
@ApiBearerAuth()
@Controller('voice')
export class VoiceConsultController {
  constructor(private readonly consult: VoiceConsultService) {}

  @Get('conversations/:id/transfer/consult')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @ApiOperation({ summary: "The live call's attended-transfer consultation (whom the connected agent consults, and its state)" })
  @ApiErrors(400, 401, 403, 404)
  status(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<VoiceConsultView> {
    return this.consult.status(principal, id);
  }

  @Post('conversations/:id/transfer/consult')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @ApiOperation({
    summary:
      "Attended transfer: the caller goes on hold music and the colleague's softphone ({agentId}, or the longest-ready agent of {attentionLineId}) rings; when it answers the two agents talk. 409 when the call is not connected to the signed-in agent, a consultation runs, or nobody ready with a softphone can take it",
  })
  @ApiErrors(400, 401, 403, 404, 409)
  start(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: ConsultTargetDto,
  ): Promise<VoiceConsultView> {
    return this.consult.start(principal, id, body);
  }

  @Post('conversations/:id/transfer/consult/complete')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @ApiOperation({
    summary:
      'Complete the attended transfer: the caller is bridged to the consulted agent, who gets the conversation; the signed-in agent goes to after-call work. 409 before the consulted agent answered',
  })
  @ApiErrors(400, 401, 403, 404, 409)
  complete(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<VoiceConsultView> {
    return this.consult.complete(principal, id);
  }

  @Delete('conversations/:id/transfer/consult')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @ApiOperation({
    summary: 'Cancel the consultation: the colleague is hung up and the caller talks with the signed-in agent again (409 when none runs)',
  })
  @ApiErrors(400, 401, 403, 404, 409)
  cancel(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<VoiceConsultView> {
    return this.consult.cancel(principal, id);
  }
}
