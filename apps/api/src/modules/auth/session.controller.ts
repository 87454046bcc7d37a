import { REFRESH_TOKEN_HEADER, type ResetTokenCheck, type TokenPair } from '@centralita/contracts';
import { Body, Controller, Get, Headers, HttpCode, HttpStatus, Post, Query, Req } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { Public } from './access.decorator';
import { AuthService } from './auth.service';
import { RefreshBodyDto, RefreshQueryDto, ResetPasswordDto, ResetTokenQueryDto, SendResetPasswordEmailDto } from './dto/auth-requests.dto';
import { AcceptedDto, PasswordResetDoneDto, ResetTokenCheckDto, TokenPairDto } from './dto/auth-responses.dto';
import { PasswordResetService } from './password-reset.service';
import { clientIp, clientMeta } from './principal';

/** Session/* paths sit at the root, outside the /api prefix, exactly as the spec's client calls them. */
@ApiTags('session')
@Controller('Session')
export class SessionController {
  constructor(
    private readonly auth: AuthService,
    private readonly passwordReset: PasswordResetService,
  ) {}

  @Get('RefreshToken')
  @Public()
  @ApiOperation({
    summary: `Rotates the refresh token (sent in ${REFRESH_TOKEN_HEADER} or the JSON body as refreshToken); a reused token revokes its whole family`,
  })
  @ApiHeader({ name: REFRESH_TOKEN_HEADER, required: false })
  @ApiEnvelope(TokenPairDto)
  @ApiErrors(400, 401)
  refreshGet(
    @Query() query: RefreshQueryDto,
    @Body() body: RefreshBodyDto,
    @Headers(REFRESH_TOKEN_HEADER.toLowerCase()) header: string | undefined,
    @Req() request: Request,
  ): Promise<TokenPair> {
    return this.auth.refresh(header ?? body.refreshToken, clientMeta(request), query.userId);
  }

  @Post('RefreshToken')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Same as GET, for clients that cannot send a body with GET' })
  @ApiHeader({ name: REFRESH_TOKEN_HEADER, required: false })
  @ApiEnvelope(TokenPairDto)
  @ApiErrors(400, 401)
  refreshPost(
    @Query() query: RefreshQueryDto,
    @Body() body: RefreshBodyDto,
    @Headers(REFRESH_TOKEN_HEADER.toLowerCase()) header: string | undefined,
    @Req() request: Request,
  ): Promise<TokenPair> {
    return this.auth.refresh(header ?? body.refreshToken, clientMeta(request), query.userId);
  }

  @Post('SendResetPasswordEmail')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Mails a single-use reset link (30 min) when the account exists; the answer is the same either way' })
  @ApiEnvelope(AcceptedDto)
  @ApiErrors(400, 429)
  async sendResetPasswordEmail(@Body() body: SendResetPasswordEmailDto, @Req() request: Request): Promise<{ accepted: true }> {
    await this.passwordReset.request(body.email, clientIp(request));
    return { accepted: true };
  }

  @Get('ValidateUrlToResetPassword')
  @Public()
  @ApiOperation({ summary: 'Tells whether a reset token can still be used' })
  @ApiEnvelope(ResetTokenCheckDto)
  @ApiErrors(400)
  validateUrlToResetPassword(@Query() query: ResetTokenQueryDto): Promise<ResetTokenCheck> {
    return this.passwordReset.check(query.token);
  }

  @Post('ResetPassword')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: "Sets a new password with a reset token and ends all the user's sessions" })
  @ApiEnvelope(PasswordResetDoneDto)
  @ApiErrors(400)
  async resetPassword(@Body() body: ResetPasswordDto): Promise<{ passwordReset: true }> {
    await this.passwordReset.reset(body.token, body.password);
    return { passwordReset: true };
  }
}
