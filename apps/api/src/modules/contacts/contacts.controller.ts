import { PERMISSIONS, type ContactPersonView, type ContactSummary, type Page } from '@centralita/contracts';
import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsOptional, IsString, IsUUID, Length } from 'class-validator';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { Trim } from '../../common/transforms';
import { PageNumber, PageSize } from '../admin/paged-query.dto';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { ContactsService } from './contacts.service';

export class ContactSearchQueryDto {
  @ApiPropertyOptional({ description: "Part of the name, email or the provider's id" })
  @IsOptional()
  @Trim()
  @Length(0, 100)
  @IsString()
  q?: string;

  @PageNumber() page?: number;
  @PageSize(50, 20) pageSize?: number;
}

export class ContactMergeDto {
  @ApiProperty({ format: 'uuid', description: 'The contact that is the same person' })
  @IsUUID()
  contactId!: string;
}

const HANDLE = [PERMISSIONS.conversationsHandle, PERMISSIONS.conversationsSupervise] as const;

/**
 * Contacts as people (issue 20 item 6), for agents and supervisors of the tenant: search, the
 * person of a contact (identities, timeline of conversations and cases, merge history), merge and
 * unmerge. Another tenant's contact answers 404.
 */
@ApiTags('contacts')
@ApiBearerAuth()
@Controller('contacts')
export class ContactsController {
  constructor(private readonly contacts: ContactsService) {}

  @Get()
  @RequirePermission(...HANDLE)
  @ApiOperation({ summary: "Contacts of the caller's organisation by name, email or provider id, most recently seen first" })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403)
  search(@Query() query: ContactSearchQueryDto, @CurrentPrincipal() principal: Principal): Promise<Page<ContactSummary>> {
    return this.contacts.search(principal.clientId, query);
  }

  @Get('by-conversation/:conversationId')
  @RequirePermission(...HANDLE)
  @ApiOperation({ summary: "The person of a conversation's contact (null for a conversation without one, e.g. from before the intake)" })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  byConversation(
    @Param('conversationId', ParseUuidPipe) conversationId: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ContactPersonView | null> {
    return this.contacts.byConversation(principal.clientId, conversationId);
  }

  @Get(':id/person')
  @RequirePermission(...HANDLE)
  @ApiOperation({ summary: 'Identities, timeline (conversations of every identity and their cases) and merge history' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  person(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<ContactPersonView> {
    return this.contacts.person(principal.clientId, id);
  }

  @Post(':id/merge')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(...HANDLE)
  @ApiOperation({ summary: 'The two contacts (and whatever each was merged with) become one person; 409 when they already are' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 409)
  merge(
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: ContactMergeDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ContactPersonView> {
    return this.contacts.merge(principal, id, body.contactId);
  }

  @Post(':id/unmerge')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(...HANDLE)
  @ApiOperation({ summary: 'Takes this identity out of its person; 409 when it is not merged' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 409)
  unmerge(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<ContactPersonView> {
    return this.contacts.unmerge(principal, id);
  }
}
