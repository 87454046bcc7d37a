import { PERMISSIONS, QNA_LIMITS, type Page, type QnaHit, type QnaInput, type QnaSummary } from '@centralita/contracts';
import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsBoolean, IsNotEmpty, IsOptional, IsString, Length } from 'class-validator';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { Trim } from '../../common/transforms';
import { PagedQueryDto } from '../admin/paged-query.dto';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { QnaService } from './qna.service';

/** Types only; validateQna() (shared with the console) holds the rules. */
export class QnaInputDto implements Partial<QnaInput> {
  @ApiProperty({ maxLength: QNA_LIMITS.questionMax }) @IsOptional() @IsString() question?: string;
  @ApiProperty({ maxLength: QNA_LIMITS.answerMax }) @IsOptional() @IsString() answer?: string;
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: QNA_LIMITS.categoryMax }) @IsOptional() @IsString() category?:
    string | null;
  @ApiPropertyOptional({ default: true }) @IsOptional() @IsBoolean() active?: boolean;
}

export class QnaSearchQueryDto {
  @ApiProperty({ description: 'Words to look for in questions and answers' })
  @Trim()
  @Length(1, 200)
  @IsNotEmpty()
  @IsString()
  q!: string;
}

export class QnaSummaryDto extends QnaInputDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class QnaHitDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() question!: string;
  @ApiProperty() answer!: string;
  @ApiProperty({ type: String, nullable: true }) category!: string | null;
  @ApiProperty() rank!: number;
}

export class QnaPageDto {
  @ApiProperty({ type: [QnaSummaryDto] }) items!: QnaSummaryDto[];
  @ApiProperty() total!: number;
  @ApiProperty() page!: number;
  @ApiProperty() pageSize!: number;
}

@ApiTags('qna')
@ApiBearerAuth()
@Controller('qna')
export class QnaController {
  constructor(private readonly qna: QnaService) {}

  @Get()
  @RequirePermission(PERMISSIONS.qnaManage)
  @ApiOperation({ summary: 'Knowledge entries, paged; sortField: question, category, active, updatedAt' })
  @ApiEnvelope(QnaPageDto)
  @ApiErrors(400, 401, 403)
  list(@Query() query: PagedQueryDto, @CurrentPrincipal() principal: Principal): Promise<Page<QnaSummary>> {
    return this.qna.list(principal.clientId, query);
  }

  @Get('search')
  @RequirePermission(PERMISSIONS.qnaManage, PERMISSIONS.conversationsHandle)
  @ApiOperation({ summary: 'Full-text search of active entries, best first (agents use it while serving)' })
  @ApiEnvelope([QnaHitDto])
  @ApiErrors(400, 401, 403)
  search(@Query() query: QnaSearchQueryDto, @CurrentPrincipal() principal: Principal): Promise<QnaHit[]> {
    return this.qna.search(principal.clientId, query.q);
  }

  @Get(':id')
  @RequirePermission(PERMISSIONS.qnaManage)
  @ApiOperation({ summary: "One entry; another tenant's id answers 404" })
  @ApiEnvelope(QnaSummaryDto)
  @ApiErrors(400, 401, 403, 404)
  get(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<QnaSummary> {
    return this.qna.get(principal.clientId, id);
  }

  @Post()
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.qnaManage)
  @ApiOperation({ summary: 'Creates an entry (question ≤ 300, answer ≤ 4000 characters)' })
  @ApiEnvelope(QnaSummaryDto)
  @ApiErrors(400, 401, 403)
  create(@Body() body: QnaInputDto, @CurrentPrincipal() principal: Principal): Promise<QnaSummary> {
    return this.qna.create(principal, body);
  }

  @Put(':id')
  @RequirePermission(PERMISSIONS.qnaManage)
  @ApiOperation({ summary: 'Replaces an entry' })
  @ApiEnvelope(QnaSummaryDto)
  @ApiErrors(400, 401, 403, 404)
  update(@Param('id', ParseUuidPipe) id: string, @Body() body: QnaInputDto, @CurrentPrincipal() principal: Principal): Promise<QnaSummary> {
    return this.qna.update(principal, id, body);
  }

  @Delete(':id')
  @RequirePermission(PERMISSIONS.qnaManage)
  @ApiOperation({ summary: 'Soft-deletes an entry' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  remove(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<{ deleted: true }> {
    return this.qna.remove(principal, id);
  }
}
