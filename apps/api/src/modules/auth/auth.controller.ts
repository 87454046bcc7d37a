import type { AuthResult, Profile, RegistrationConfirmed, RegistrationOptions, SessionUser } from '@centralita/contracts';
import { Body, Controller, Get, HttpCode, HttpStatus, Post, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { Authenticated, Public } from './access.decorator';
import { AuthService } from './auth.service';
import { LoginDto, LogoutDto, RegisterDto, RegistrationTokenDto, UserInfoQueryDto } from './dto/auth-requests.dto';
import {
  AcceptedDto,
  AuthResultDto,
  LogoutResultDto,
  ProfileDto,
  RegistrationConfirmedDto,
  RegistrationOptionsDto,
  SessionUserDto,
} from './dto/auth-responses.dto';
import { clientIp, clientMeta, CurrentPrincipal, type Principal } from './principal';
import { RegistrationService } from './registration.service';

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly registration: RegistrationService,
  ) {}

  @Post('login')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Sign in; rate-limited per account and per IP' })
  @ApiEnvelope(AuthResultDto)
  @ApiErrors(400, 401, 429)
  login(@Body() body: LoginDto, @Req() request: Request): Promise<AuthResult> {
    return this.auth.login(body.email, body.password, clientMeta(request));
  }

  @Get('registration')
  @Public()
  @ApiOperation({ summary: 'Whether self-registration is open (SELF_REGISTRATION; off by default), for the sign-up page' })
  @ApiEnvelope(RegistrationOptionsDto)
  registrationOptions(): RegistrationOptions {
    return { enabled: this.registration.enabled };
  }

  @Post('register')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary:
      'Self-registration (SELF_REGISTRATION=on): always answers "check your email"; the mailed link creates a new tenant with the user as its ADMIN',
  })
  @ApiEnvelope(AcceptedDto)
  @ApiErrors(400, 403, 429)
  async register(@Body() body: RegisterDto, @Req() request: Request): Promise<{ accepted: true }> {
    await this.registration.register(body, clientIp(request));
    return { accepted: true };
  }

  @Post('register/confirm')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Spends a registration link: creates the new tenant and its first ADMIN, who then signs in' })
  @ApiEnvelope(RegistrationConfirmedDto)
  @ApiErrors(400, 403, 429)
  async confirmRegistration(@Body() body: RegistrationTokenDto, @Req() request: Request): Promise<RegistrationConfirmed> {
    const { email } = await this.registration.confirm(body.token, clientIp(request));
    return { activated: true, email };
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
