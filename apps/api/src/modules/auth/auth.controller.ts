import type { AuthResult, Profile, SessionUser } from '@centralita/contracts';
import { Body, Controller, Get, HttpCode, HttpStatus, Post, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { Authenticated, Public } from './access.decorator';
import { AuthService } from './auth.service';
import { LoginDto, LogoutDto, RegisterDto, UserInfoQueryDto } from './dto/auth-requests.dto';
import { AuthResultDto, LogoutResultDto, ProfileDto, SessionUserDto } from './dto/auth-responses.dto';
import { clientMeta, CurrentPrincipal, type Principal } from './principal';

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Post('login')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Sign in; rate-limited per account and per IP' })
  @ApiEnvelope(AuthResultDto)
  @ApiErrors(400, 401, 429)
  login(@Body() body: LoginDto, @Req() request: Request): Promise<AuthResult> {
    return this.auth.login(body.email, body.password, clientMeta(request));
  }

  @Post('register')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Self-registration as AGENT of the registration tenant (REGISTRATION_CLIENT_ID); signs the user in' })
  @ApiEnvelope(AuthResultDto)
  @ApiErrors(400, 403, 409, 429)
  register(@Body() body: RegisterDto, @Req() request: Request): Promise<AuthResult> {
    return this.auth.register(body, clientMeta(request));
  }

  @Post('logout')
  @Authenticated()
  @HttpCode(HttpStatus.OK)
  @ApiBearerAuth()
  @ApiOperation({ summary: "Ends the caller's session: its refresh family and access tokens stop working" })
  @ApiEnvelope(LogoutResultDto)
  @ApiErrors(400, 401, 403)
  async logout(@Body() body: LogoutDto, @CurrentPrincipal() principal: Principal): Promise<{ loggedOut: true }> {
    await this.auth.logout(principal, body.userId);
    return { loggedOut: true };
  }

  @Get('user-info')
  @Authenticated()
  @ApiBearerAuth()
  @ApiOperation({ summary: 'The session user of UserId (default: the caller); others of the tenant need users.manage' })
  @ApiEnvelope(SessionUserDto)
  @ApiErrors(400, 401, 403, 404)
  userInfo(@Query() query: UserInfoQueryDto, @CurrentPrincipal() principal: Principal): Promise<SessionUser> {
    return this.auth.userInfo(principal, query.UserId);
  }

  @Get('profile')
  @Authenticated()
  @ApiBearerAuth()
  @ApiOperation({ summary: "The caller's profile" })
  @ApiEnvelope(ProfileDto)
  @ApiErrors(401)
  profile(@CurrentPrincipal() principal: Principal): Promise<Profile> {
    return this.auth.profile(principal);
  }
}
