import {
  PERMISSIONS,
  POLL_RESPONSE_TYPES,
  type AnswerGroupSummary,
  type OptionItem,
  type Page,
  type PollAnswer,
  type PollQuestionStats,
  type PollSummary,
} from '@centralita/contracts';
import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  ValidateNested,
} from 'class-validator';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { PagedQueryDto } from '../admin/paged-query.dto';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { OptionItemDto } from '../campaigns/dto/campaigns.dto';
import { PollsService } from './polls.service';

class PollQuestionDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'Keep an existing question (its answers stay attached)' })
  @IsOptional()
  @IsUUID()
  id?: string;
  @ApiProperty() @IsOptional() @IsString() text?: string;
  @ApiProperty({ enum: POLL_RESPONSE_TYPES }) @IsOptional() @IsString() responseType?: (typeof POLL_RESPONSE_TYPES)[number];
  @ApiPropertyOptional({ type: [String] }) @IsOptional() @ArrayMaxSize(50) @IsString({ each: true }) @IsArray() options?: string[];
  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true }) @IsOptional() @IsUUID() answerGroupId?: string | null;
}

/** Types only; validatePoll() (shared with the console) holds the rules (ranks sum to 100…). */
export class PollInputDto {
  @ApiProperty() @IsOptional() @IsString() name?: string;
  @ApiPropertyOptional({ type: String, nullable: true }) @IsOptional() @IsString() description?: string | null;
  @ApiPropertyOptional({ default: true }) @IsOptional() @IsBoolean() active?: boolean;
  @ApiProperty({ minimum: 0, maximum: 100, description: 'lowerRank + upperRank = 100' }) @IsOptional() @IsInt() lowerRank?: number;
  @ApiProperty({ minimum: 0, maximum: 100 }) @IsOptional() @IsInt() upperRank?: number;
  @ApiProperty({ type: [PollQuestionDto] })
  @IsOptional()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => PollQuestionDto)
  @IsArray()
  questions?: PollQuestionDto[];
}

export class AnswerGroupInputDto {
  @ApiProperty() @IsOptional() @IsString() name?: string;
  @ApiProperty({ type: [String] }) @IsOptional() @ArrayMaxSize(50) @IsString({ each: true }) @IsArray() options?: string[];
}

export class PollAnswersQueryDto extends PagedQueryDto {
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUUID() questionId?: string;
}

class ResponseItemDto {
  @ApiProperty({ format: 'uuid' }) @IsUUID() questionId!: string;
  @ApiProperty() @Length(1, 1000) @IsString() value!: string;
}

export class PollResponsesDto {
  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true }) @IsOptional() @IsUUID() conversationId?: string | null;
  @ApiProperty({ type: [ResponseItemDto] })
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => ResponseItemDto)
  @IsArray()
  @IsNotEmpty()
  answers!: ResponseItemDto[];
}

class PollSummaryDto extends PollInputDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() questionCount!: number;
}
class PollPageDto {
  @ApiProperty({ type: [PollSummaryDto] }) items!: PollSummaryDto[];
  @ApiProperty() total!: number;
  @ApiProperty() page!: number;
  @ApiProperty() pageSize!: number;
}

@ApiTags('polls')
@ApiBearerAuth()
@Controller('polls')
export class PollsController {
  constructor(private readonly polls: PollsService) {}

  @Get()
  @RequirePermission(PERMISSIONS.pollsManage)
  @ApiOperation({ summary: 'Polls with their questions, paged; sortField: name, active, updatedAt' })
  @ApiEnvelope(PollPageDto)
  @ApiErrors(400, 401, 403)
  list(@Query() query: PagedQueryDto, @CurrentPrincipal() principal: Principal): Promise<Page<PollSummary>> {
    return this.polls.list(principal.clientId, query);
  }

  @Get('options')
  @RequirePermission(PERMISSIONS.pollsManage, PERMISSIONS.attentionLinesManage)
  @ApiOperation({ summary: 'Id and name of every active poll, for pickers (the attention line form)' })
  @ApiEnvelope([OptionItemDto])
  @ApiErrors(401, 403)
  options(@CurrentPrincipal() principal: Principal): Promise<OptionItem[]> {
    return this.polls.options(principal.clientId);
  }

  @Get(':id')
  @RequirePermission(PERMISSIONS.pollsManage)
  @ApiOperation({ summary: "One poll with its questions; another tenant's id answers 404" })
  @ApiEnvelope(PollSummaryDto)
  @ApiErrors(400, 401, 403, 404)
  get(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<PollSummary> {
    return this.polls.get(principal.clientId, id);
  }

  @Post()
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.pollsManage)
  @ApiOperation({ summary: 'Creates a poll with its questions (lowerRank + upperRank = 100)' })
  @ApiEnvelope(PollSummaryDto)
  @ApiErrors(400, 401, 403, 404)
  create(@Body() body: PollInputDto, @CurrentPrincipal() principal: Principal): Promise<PollSummary> {
    return this.polls.create(principal, body);
  }

  @Put(':id')
  @RequirePermission(PERMISSIONS.pollsManage)
  @ApiOperation({ summary: 'Replaces a poll; questions keep their answers by id, removed answered ones are retired' })
  @ApiEnvelope(PollSummaryDto)
  @ApiErrors(400, 401, 403, 404)
  update(
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: PollInputDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<PollSummary> {
    return this.polls.update(principal, id, body);
  }

  @Delete(':id')
  @RequirePermission(PERMISSIONS.pollsManage)
  @ApiOperation({ summary: 'Soft-deletes a poll (answers stay for reports)' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  remove(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<{ deleted: true }> {
    return this.polls.remove(principal, id);
  }

  @Get(':id/answers')
  @RequirePermission(PERMISSIONS.pollsManage)
  @ApiOperation({ summary: 'Answers of a poll, paged, optionally of one question; sortField: createdAt, value, question' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  answers(
    @Param('id', ParseUuidPipe) id: string,
    @Query() query: PollAnswersQueryDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<Page<PollAnswer>> {
    return this.polls.answers(principal.clientId, id, query);
  }

  @Get(':id/questions/:questionId/stats')
  @RequirePermission(PERMISSIONS.pollsManage)
  @ApiOperation({ summary: 'Answer counts of one question, for its chart' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  stats(
    @Param('id', ParseUuidPipe) id: string,
    @Param('questionId', ParseUuidPipe) questionId: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<PollQuestionStats> {
    return this.polls.stats(principal.clientId, id, questionId);
  }

  @Post(':id/responses')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.conversationsHandle, PERMISSIONS.pollsManage)
  @ApiOperation({ summary: "Records a customer's answers to a poll (post-conversation flow)" })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  respond(
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: PollResponsesDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<{ recorded: number }> {
    return this.polls.respond(principal.clientId, id, body);
  }
}

@ApiTags('polls')
@ApiBearerAuth()
@Controller('poll-answer-groups')
export class PollAnswerGroupsController {
  constructor(private readonly polls: PollsService) {}

  @Get()
  @RequirePermission(PERMISSIONS.pollsManage)
  @ApiOperation({ summary: 'Answer groups (catalogs of options), paged' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403)
  list(@Query() query: PagedQueryDto, @CurrentPrincipal() principal: Principal): Promise<Page<AnswerGroupSummary>> {
    return this.polls.listGroups(principal.clientId, query);
  }

  @Post()
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.pollsManage)
  @ApiOperation({ summary: 'Creates an answer group (at least two options)' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403)
  create(@Body() body: AnswerGroupInputDto, @CurrentPrincipal() principal: Principal): Promise<AnswerGroupSummary> {
    return this.polls.saveGroup(principal, null, body);
  }

  @Put(':id')
  @RequirePermission(PERMISSIONS.pollsManage)
  @ApiOperation({ summary: 'Replaces an answer group' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  update(
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: AnswerGroupInputDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<AnswerGroupSummary> {
    return this.polls.saveGroup(principal, id, body);
  }

  @Delete(':id')
  @RequirePermission(PERMISSIONS.pollsManage)
  @ApiOperation({ summary: 'Deletes an answer group (questions using it keep their own options)' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  remove(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<{ deleted: true }> {
    return this.polls.removeGroup(principal, id);
  }
}
