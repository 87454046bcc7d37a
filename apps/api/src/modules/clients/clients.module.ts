import { Module } from '@nestjs/common';
import { InvitationsModule } from '../invitations/invitations.module';
import { ClientsController } from './clients.controller';
import { ClientsService } from './clients.service';

@Module({ imports: [InvitationsModule], controllers: [ClientsController], providers: [ClientsService] })
export class ClientsModule {}
