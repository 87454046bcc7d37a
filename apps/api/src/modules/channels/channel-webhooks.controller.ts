import type { WebhookRequest } from '@centralita/channels';
import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../auth/access.decorator';
import { clientIp } from '../auth/principal';
import { ChannelWebhooksService, readRawBody, WEBHOOK_BODY_LIMIT } from './channel-webhooks.service';

/**
 * GET (handshakes: Meta's hub.challenge, X's CRC) and POST (events) from providers. Public, rate
 * limited per IP; the body is never parsed by the JSON middleware (RAW_BODY_PATH in http-setup) and
 * the answer is the provider's, not the API envelope: a challenge is echoed as the provider expects.
 * Errors still go through the envelope filter (401/403/404/413/429).
 */
@ApiExcludeController()
@Controller('channels/:kind/:accountId/webhook')
export class ChannelWebhooksController {
  constructor(private readonly webhooks: ChannelWebhooksService) {}

  @Get()
  @Public()
  handshake(@Param('kind') kind: string, @Param('accountId') accountId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.answer(kind, accountId, req, res, 'GET');
  }

  @Post()
  @Public()
  receive(@Param('kind') kind: string, @Param('accountId') accountId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.answer(kind, accountId, req, res, 'POST');
  }

  private async answer(kind: string, accountId: string, req: Request, res: Response, method: 'GET' | 'POST'): Promise<void> {
    await this.webhooks.limit(clientIp(req));
    const account = await this.webhooks.account(kind, accountId, method);
    const rawBody = method === 'POST' ? await readRawBody(req, WEBHOOK_BODY_LIMIT) : Buffer.alloc(0);
    const request: WebhookRequest = { method, query: queryOf(req), headers: headersOf(req), rawBody };
    const answer = await this.webhooks.handle(account, request);
    res.status(answer.status).type(answer.contentType).send(answer.body);
  }
}

/** Query values as single texts (a repeated parameter keeps its first value). */
function queryOf(req: Request): Record<string, string | undefined> {
  const query: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.query)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') query[name] = first;
  }
  return query;
}

/** Header names lower-case (node already does), repeated headers joined as node joins them. */
function headersOf(req: Request): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return headers;
}
