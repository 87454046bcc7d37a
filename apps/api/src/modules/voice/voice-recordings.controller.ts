import { PERMISSIONS, type VoiceRecordingView } from '@centralita/contracts';
import { Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { Public, RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { parseRange, sliceStream, VoiceRecordingsService } from './voice-recordings.service';

@ApiTags('voice')
@Controller('voice')
export class VoiceRecordingsController {
  constructor(private readonly recordings: VoiceRecordingsService) {}

  @Get('conversations/:id/recordings')
  @ApiBearerAuth()
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @ApiOperation({
    summary:
      "A phone conversation's call recordings (stereo WAV: caller left, agent right), newest first, each with signed short-lived URLs to play and download it",
  })
  @ApiErrors(400, 401, 403, 404)
  list(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<VoiceRecordingView[]> {
    return this.recordings.recordings(principal, id);
  }

  @Get('recordings/:id/audio')
  @Public()
  @ApiOperation({
    summary:
      "Play (Range requests) or download (download=1) a call recording through the signed URL the conversation or case detail was given; 404 once it expired, and 'The audio was not found, please try again later.' when the audio is gone",
  })
  @ApiErrors(400, 404)
  async audio(
    @Param('id', ParseUuidPipe) id: string,
    @Query() query: { t?: unknown; e?: unknown; s?: unknown; download?: unknown },
    @Headers('range') rangeHeader: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const file = await this.recordings.content(id, query);
    const range = parseRange(rangeHeader, file.byteSize);
    res.setHeader('Content-Type', 'audio/wav');
    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('Content-Disposition', `${query.download === '1' ? 'attachment' : 'inline'}; filename="call-recording-${id}.wav"`);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', "default-src 'none'; media-src 'self'; sandbox; frame-ancestors 'none'");
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    res.setHeader('Cache-Control', 'private, no-store');
    if (range === 'unsatisfiable') {
      file.stream.destroy();
      res.status(416).setHeader('Content-Range', `bytes */${file.byteSize}`);
      res.end();
      return;
    }
    if (!range) {
      res.status(200).setHeader('Content-Length', String(file.byteSize));
      await pipeline(file.stream, res);
      return;
    }
    res.status(206);
    res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${file.byteSize}`);
    res.setHeader('Content-Length', String(range.end - range.start + 1));
    await pipeline(sliceStream(file.stream, range), res);
  }
}
