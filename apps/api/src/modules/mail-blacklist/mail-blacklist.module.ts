import { UnsubscribeSigner } from '@centralita/contracts/server';
import { Module } from '@nestjs/common';
import { MailBlacklistController } from './mail-blacklist.controller';
import { MailBlacklistService } from './mail-blacklist.service';
import {
  DEFAULT_UNSUBSCRIBE_RATE_LIMIT,
  UNSUBSCRIBE_RATE_LIMIT,
  UnsubscribeController,
  UnsubscribeOneClickController,
} from './unsubscribe.controller';

/**
 * Issue 20 item 5: the mail blacklist (admin CRUD and import), the public unsubscribe page's API
 * and the RFC 8058 one-click POST. Senders check the list with isMailBlocked
 * (@centralita/contracts/server) right before each send; MailBlacklistService is exported for
 * senders inside the API.
 */
@Module({
  controllers: [MailBlacklistController, UnsubscribeController, UnsubscribeOneClickController],
  providers: [
    MailBlacklistService,
    // Links are signed with a key derived from CONFIG_ENCRYPTION_KEY, the one the worker shares (list-unsubscribe.ts).
    { provide: UnsubscribeSigner, useFactory: () => new UnsubscribeSigner(process.env) },
    { provide: UNSUBSCRIBE_RATE_LIMIT, useValue: DEFAULT_UNSUBSCRIBE_RATE_LIMIT },
  ],
  exports: [MailBlacklistService, UnsubscribeSigner],
})
export class MailBlacklistModule {}
