import {
  PERMISSIONS,
  VIDEO_LIMITS,
  type VideoCallOffer,
  type VideoCallView,
  type VideoChunkAck,
  type VideoIceConfig,
  type VideoRecordingView,
} from '@centralita/contracts';
import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiErrors } from '../../common/api-envelope.decorator';
import { AppException } from '../../common/app.exception';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { StartRecordingDto } from './video.dto';
import { VideoService } from './video.service';

/** The request's bytes, refused past `limit` (413) or when empty (400). */
export async function readBody(req: Request, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    throw new AppException('payload_too_large', { message: `A recording chunk may not exceed ${limit} bytes` });
  }
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > limit) throw new AppException('payload_too_large', { message: `A recording chunk may not exceed ${limit} bytes` });
    parts.push(part);
  }
  if (size === 0)
    throw new AppException('validation', { message: 'The chunk is empty', data: { fields: { body: ['body must not be empty'] } } });
  return Buffer.concat(parts, size);
}

@ApiTags('video')
@ApiBearerAuth()
@Controller()
export class VideoController {
  constructor(private readonly video: VideoService) {}

  @Post('conversations/:id/video-calls')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary:
      'Offer a video call from the Active conversation the agent handles: a single-use, expiring link is sent to the customer as a chat message',
  })
  @ApiErrors(400, 401, 403, 404, 409)
  offer(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<VideoCallOffer> {
    return this.video.offer(principal, id);
  }

  @Get('conversations/:id/video-calls')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @ApiOperation({ summary: "The conversation's latest video calls, newest first" })
  @ApiErrors(400, 401, 403, 404)
  calls(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<VideoCallView[]> {
    return this.video.calls(principal, id);
  }

  @Post('conversations/:id/video-calls/:callId/end')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Hang up (idempotent); the end and the length go into the conversation history' })
  @ApiErrors(400, 401, 403, 404)
  end(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUuidPipe) id: string,
    @Param('callId', ParseUuidPipe) callId: string,
  ): Promise<VideoCallView> {
    return this.video.end(principal, id, callId);
  }

  @Get('video-calls/:callId/ice')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @ApiOperation({ summary: "STUN/TURN servers for the call's agent, TURN credentials minted now (coturn REST API scheme)" })
  @ApiErrors(400, 401, 403, 404, 410)
  ice(@CurrentPrincipal() principal: Principal, @Param('callId', ParseUuidPipe) callId: string): Promise<VideoIceConfig> {
    return this.video.agentIce(principal, callId);
  }

  @Post('video-calls/:callId/recordings')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Start a recording of a live call; 409 consent_required until the customer agreed on their page' })
  @ApiErrors(400, 401, 403, 404, 409)
  startRecording(
    @CurrentPrincipal() principal: Principal,
    @Param('callId', ParseUuidPipe) callId: string,
    @Body() body: StartRecordingDto,
  ): Promise<VideoRecordingView> {
    return this.video.startRecording(principal, callId, body.mimeType);
  }

  @Post('video-calls/:callId/recordings/:recordingId/chunks/:index')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @HttpCode(HttpStatus.OK)
  @ApiConsumes('application/octet-stream', 'video/webm')
  @ApiOperation({
    summary: `One chunk of the recording, raw bytes (at most ${VIDEO_LIMITS.maxChunkBytes}); in order, idempotent by index (same bytes again = duplicate)`,
  })
  @ApiErrors(400, 401, 403, 404, 409, 413)
  async chunk(
    @CurrentPrincipal() principal: Principal,
    @Param('callId', ParseUuidPipe) callId: string,
    @Param('recordingId', ParseUuidPipe) recordingId: string,
    @Param('index') raw: string,
    @Req() req: Request,
  ): Promise<VideoChunkAck> {
    const index = /^\d{1,9}$/.test(raw) ? Number(raw) : -1;
    if (index < 0 || index >= VIDEO_LIMITS.maxChunks) {
      throw new AppException('validation', {
        message: `index must be from 0 to ${VIDEO_LIMITS.maxChunks - 1}`,
        data: { fields: { index: [`index must be from 0 to ${VIDEO_LIMITS.maxChunks - 1}`] } },
      });
    }
    return this.video.chunk(principal, callId, recordingId, index, await readBody(req, VIDEO_LIMITS.maxChunkBytes));
  }

  @Post('video-calls/:callId/recordings/:recordingId/stop')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Stop recording: the worker joins the chunks, measures the duration and makes it playable' })
  @ApiErrors(400, 401, 403, 404)
  stopRecording(
    @CurrentPrincipal() principal: Principal,
    @Param('callId', ParseUuidPipe) callId: string,
    @Param('recordingId', ParseUuidPipe) recordingId: string,
  ): Promise<VideoRecordingView> {
    return this.video.stopRecording(principal, callId, recordingId);
  }

  @Get('conversations/:id/video-recordings')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @ApiOperation({ summary: "The conversation's video recordings, each ready one with a signed, short-lived URL to play it" })
  @ApiErrors(400, 401, 403, 404)
  recordings(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<VideoRecordingView[]> {
    return this.video.recordings(principal, id);
  }
}
