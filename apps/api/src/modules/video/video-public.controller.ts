import type { VideoCallView, VideoGuestSession, VideoLinkView } from '@centralita/contracts';
import { Body, Controller, Get, Headers, HttpCode, HttpStatus, Param, Post, Query, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { Public } from '../auth/access.decorator';
import { JoinVideoDto, VideoConsentDto } from './video.dto';
import { VideoService } from './video.service';

const GUEST_HEADER = 'x-video-guest-key';

/**
 * The customer's side of a video call (no session: the link's token, then the guest key it gives,
 * are the credentials), and recordings played through signed URLs.
 */
@ApiTags('video')
@Controller()
export class VideoPublicController {
  constructor(private readonly video: VideoService) {}

  @Get('public/video-calls/:videoChatId')
  @Public()
  @ApiOperation({
    summary:
      'Whether a video link can be used: 404 reason unknown; 410 reason expired, used, ended or conversation_closed (the page translates data.reason)',
  })
  @ApiErrors(404, 410)
  view(@Param('videoChatId') videoChatId: string): Promise<VideoLinkView> {
    return this.video.linkView(videoChatId);
  }

  @Post('public/video-calls/:videoChatId/join')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Use the link up (once) and start the call: answers the guest key, the call id and ICE servers' })
  @ApiErrors(400, 404, 410)
  join(@Param('videoChatId') videoChatId: string, @Body() body: JoinVideoDto): Promise<VideoGuestSession> {
    return this.video.join(videoChatId, body.recordingConsent === true);
  }

  @Post('public/video-guest/resume')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiHeader({ name: GUEST_HEADER, required: true })
  @ApiOperation({ summary: 'A reloaded customer page takes its live call up again with the guest key it kept' })
  @ApiErrors(401, 410)
  resume(@Headers(GUEST_HEADER) guestKey: string | undefined): Promise<VideoGuestSession> {
    return this.video.resume(guestKey);
  }

  @Post('public/video-guest/consent')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiHeader({ name: GUEST_HEADER, required: true })
  @ApiOperation({ summary: "The customer's consent to recording, given or withdrawn (withdrawn stops a recording in progress)" })
  @ApiErrors(400, 401, 410)
  consent(@Headers(GUEST_HEADER) guestKey: string | undefined, @Body() body: VideoConsentDto): Promise<{ recordingConsent: boolean }> {
    return this.video.guestConsent(guestKey, body.consent);
  }

  @Post('public/video-guest/end')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiHeader({ name: GUEST_HEADER, required: true })
  @ApiOperation({ summary: 'The customer hangs up' })
  @ApiErrors(401, 410)
  end(@Headers(GUEST_HEADER) guestKey: string | undefined): Promise<VideoCallView> {
    return this.video.guestEnd(guestKey);
  }

  @Get('video-recordings/:id/content')
  @Public()
  @ApiOperation({ summary: 'Play a recording through the signed URL the desk or the case detail was given (404 once it expired); nosniff' })
  @ApiErrors(400, 404)
  async content(
    @Param('id', ParseUuidPipe) id: string,
    @Query() query: { t?: unknown; e?: unknown; s?: unknown },
    @Res() res: Response,
  ): Promise<void> {
    const file = await this.video.content(id, query);
    res.status(200);
    res.setHeader('Content-Type', file.format);
    res.setHeader('Content-Length', String(file.byteSize));
    res.setHeader('Content-Disposition', `inline; filename="recording-${id}.webm"`);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', "default-src 'none'; media-src 'self'; sandbox; frame-ancestors 'none'");
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    res.setHeader('Cache-Control', 'private, no-store');
    await pipeline(file.stream, res);
  }
}
