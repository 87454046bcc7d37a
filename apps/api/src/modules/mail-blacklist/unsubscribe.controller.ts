import type { UnsubscribeResult, UnsubscribeView } from '@centralita/contracts';
import { Controller, Get, HttpCode, HttpStatus, Inject, Param, Post, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';
import type { Request } from 'express';
import { ApiErrors } from '../../common/api-envelope.decorator';
import { AppException } from '../../common/app.exception';
import { readBodyWithin } from '../../common/raw-upload';
import type { RateLimitRule } from '../../config/app-config';
import { Public } from '../auth/access.decorator';
import { clientIp } from '../auth/principal';
import { RateLimiterService } from '../rate-limit/rate-limiter.service';
import { MailBlacklistService } from './mail-blacklist.service';

export class UnsubscribeQueryDto {
  @ApiPropertyOptional({ description: 'The signed token of the link (u1.<tenant>.<mac>)' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  token?: string;

  @ApiPropertyOptional({ description: "The public page's language (the link may carry it; the API ignores it)" })
  @IsOptional()
  @IsString()
  @Length(0, 10)
  lang?: string;
}

/** Public unsubscribe calls per IP and minute (GET and POST together): enough for people, not for a scan. */
export const UNSUBSCRIBE_RATE_LIMIT = Symbol('UNSUBSCRIBE_RATE_LIMIT');
export const DEFAULT_UNSUBSCRIBE_RATE_LIMIT: RateLimitRule = { limit: 30, windowSeconds: 60 };

/** The most a one-click body may be: `List-Unsubscribe=One-Click`, or the same as a small multipart form. */
const ONE_CLICK_BODY_LIMIT = 4096;

/**
 * The recipient's side of the mail blacklist, without a session: the token in the link is the only
 * authority (it names the tenant and is valid for one address), so a bare address is never enough.
 */
@ApiTags('unsubscribe')
@Controller('public/unsubscribe')
export class UnsubscribeController {
  constructor(
    private readonly blacklist: MailBlacklistService,
    private readonly limiter: RateLimiterService,
    @Inject(UNSUBSCRIBE_RATE_LIMIT) private readonly rule: RateLimitRule,
  ) {}

  @Get(':email')
  @Public()
  @ApiOperation({
    summary: "What the public page shows for a signed link: the masked address, the sender's name and logo; 400 for a bad token",
  })
  @ApiErrors(400, 429)
  async view(@Param('email') email: string, @Query() query: UnsubscribeQueryDto, @Req() request: Request): Promise<UnsubscribeView> {
    await this.limiter.consume('unsubscribe', clientIp(request), this.rule);
    return this.blacklist.unsubscribeView(email, query.token ?? '');
  }

  @Post(':email')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: "Confirms: the address joins the sender's mail blacklist (reason unsubscribe); idempotent; 400 for a bad token",
  })
  @ApiErrors(400, 429)
  async confirm(@Param('email') email: string, @Query() query: UnsubscribeQueryDto, @Req() request: Request): Promise<UnsubscribeResult> {
    await this.limiter.consume('unsubscribe', clientIp(request), this.rule);
    return this.blacklist.unsubscribe(email, query.token ?? '', 'link');
  }
}

/**
 * RFC 8058 one-click: mail providers POST `List-Unsubscribe=One-Click` (form-encoded, or as a
 * multipart field) to the https URL of the List-Unsubscribe header, which is the public page's own
 * address, /session/Unsubscribe/{email}?token=… . A browser GET of it is the console page; this is
 * the POST, outside the /api prefix like the other Session/* routes (paths match case-insensitively,
 * so /session/… reaches it). No session, no CSRF token: the signed token is the authority.
 */
@ApiTags('unsubscribe')
@Controller('Session')
export class UnsubscribeOneClickController {
  constructor(
    private readonly blacklist: MailBlacklistService,
    private readonly limiter: RateLimiterService,
    @Inject(UNSUBSCRIBE_RATE_LIMIT) private readonly rule: RateLimitRule,
  ) {}

  @Post('Unsubscribe/:email')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'RFC 8058 one-click unsubscribe: body List-Unsubscribe=One-Click, token in the query; answers 200' })
  @ApiErrors(400, 413, 429)
  async oneClick(@Param('email') email: string, @Query() query: UnsubscribeQueryDto, @Req() request: Request): Promise<UnsubscribeResult> {
    await this.limiter.consume('unsubscribe', clientIp(request), this.rule);
    if (!isOneClick(await oneClickBody(request)))
      throw new AppException('validation', {
        message: 'A one-click unsubscribe must send the body List-Unsubscribe=One-Click (RFC 8058)',
        data: { fields: { 'List-Unsubscribe': ['must be One-Click'] } },
      });
    return this.blacklist.unsubscribe(email, query.token ?? '', 'one-click');
  }
}

/** The body as text: JSON already parsed by the API's parser, anything else read here (capped). */
async function oneClickBody(request: Request): Promise<string> {
  const parsed: unknown = request.body;
  if (parsed && typeof parsed === 'object') {
    const value = (parsed as Record<string, unknown>)['List-Unsubscribe'];
    return typeof value === 'string' ? `List-Unsubscribe=${encodeURIComponent(value)}` : '';
  }
  const raw = await readBodyWithin(
    request,
    ONE_CLICK_BODY_LIMIT,
    () => new AppException('payload_too_large', { message: 'A one-click unsubscribe body is a few bytes: List-Unsubscribe=One-Click' }),
  );
  return raw.toString('utf8');
}

function isOneClick(body: string): boolean {
  const form = new URLSearchParams(body.trim());
  if (form.get('List-Unsubscribe') === 'One-Click') return true;
  // multipart/form-data: a part named List-Unsubscribe whose value is One-Click.
  return /name="List-Unsubscribe"\r?\n(?:[^\r\n]+\r?\n)*\r?\nOne-Click\r?\n/i.test(body);
}
