import {
  IVR_DESTINATION_TYPES,
  IVR_DIGITS,
  IVR_LIMITS,
  IVR_PROMPT_UPLOAD,
  LANGUAGES,
  PERMISSIONS,
  type IvrDestinationOptions,
  type IvrDetail,
  type IvrInput,
  type IvrSummary,
  type OptionItem,
  type Page,
} from '@centralita/contracts';
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  Param,
  Post,
  Put,
  Query,
  Res,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsInt, IsOptional, IsString, ValidateNested } from 'class-validator';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { PagedQueryDto } from '../admin/paged-query.dto';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import type { UploadedAudio } from './ivr-prompts.service';
import { IvrsService } from './ivrs.service';

/** The multipart parser stops one byte over the limit, so the service still names the limit. */
const PROMPT_UPLOAD = FileInterceptor('file', { limits: { fileSize: IVR_PROMPT_UPLOAD.maxBytes + 1, files: 1, fields: 2, parts: 3 } });

/** Types only; validateIvr() / validateIvrTree() (shared with the console) hold the rules. */
export class IvrInputDto implements Partial<IvrInput> {
  @ApiProperty({ maxLength: IVR_LIMITS.nameMax }) @IsOptional() @IsString() name?: string;
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: IVR_LIMITS.descriptionMax }) @IsOptional() @IsString() description?:
    string | null;
  @ApiPropertyOptional({ default: true }) @IsOptional() @IsBoolean() active?: boolean;
  @ApiPropertyOptional({ enum: LANGUAGES, description: "Language of the spoken prompts; default the tenant's" })
  @IsOptional()
  @IsString()
  language?: (typeof LANGUAGES)[number];
}

class IvrDestinationDto {
  @ApiProperty({ enum: IVR_DESTINATION_TYPES }) @IsOptional() @IsString() type?: (typeof IVR_DESTINATION_TYPES)[number];
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'Attention line id (line), user id (agent), IVR id (ivr), node id of this tree (node); null for hangup',
  })
  @IsOptional()
  @IsString()
  targetId?: string | null;
}

class IvrOptionDto {
  @ApiProperty({ enum: IVR_DIGITS }) @IsOptional() @IsString() digit?: string;
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: IVR_LIMITS.labelMax }) @IsOptional() @IsString() label?: string | null;
  @ApiProperty({ type: IvrDestinationDto }) @IsOptional() @ValidateNested() @Type(() => IvrDestinationDto) destination?: IvrDestinationDto;
}

class IvrNodeDto {
  @ApiProperty({ description: 'Key of the node inside the tree (letters, digits, - and _)' }) @IsOptional() @IsString() id?: string;
  @ApiProperty() @IsOptional() @IsString() name?: string;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'Prompt text (text-to-speech) and/or an audio URL' })
  @IsOptional()
  @IsString()
  promptText?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) @IsOptional() @IsString() promptAudioUrl?: string | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'A recorded prompt uploaded with POST /api/ivrs/{id}/prompt-audio (played instead of the text)',
  })
  @IsOptional()
  @IsString()
  promptAudioFileId?: string | null;
  @ApiPropertyOptional({ minimum: IVR_LIMITS.timeoutMin, maximum: IVR_LIMITS.timeoutMax, default: 5 })
  @IsOptional()
  @IsInt()
  timeoutSeconds?: number;
  @ApiPropertyOptional({ minimum: 0, maximum: IVR_LIMITS.retriesMax, default: 2 }) @IsOptional() @IsInt() maxRetries?: number;
  @ApiPropertyOptional({ type: IvrDestinationDto, description: 'Where the call goes after the retries (default hangup)' })
  @IsOptional()
  @ValidateNested()
  @Type(() => IvrDestinationDto)
  fallback?: IvrDestinationDto;
  @ApiProperty({ type: [IvrOptionDto] })
  @IsOptional()
  @ArrayMaxSize(IVR_DIGITS.length * 2)
  @ValidateNested({ each: true })
  @Type(() => IvrOptionDto)
  @IsArray()
  options?: IvrOptionDto[];
}

class IvrTreeDto {
  @ApiProperty() @IsOptional() @IsString() rootNodeId?: string;
  @ApiProperty({ type: [IvrNodeDto] })
  @IsOptional()
  @ArrayMaxSize(IVR_LIMITS.nodesMax * 2)
  @ValidateNested({ each: true })
  @Type(() => IvrNodeDto)
  @IsArray()
  nodes?: IvrNodeDto[];
}

export class IvrTreeBodyDto {
  @ApiProperty({ type: IvrTreeDto }) @ValidateNested() @Type(() => IvrTreeDto) tree!: IvrTreeDto;
}

export class IvrCopyDto {
  @ApiProperty({ description: 'Name of the copy' }) @IsOptional() @IsString() name?: string;
}

class IvrSummaryDto extends IvrInputDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ description: '0 until the first apply' }) publishedVersion!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) publishedAt!: string | null;
  @ApiProperty() hasUnpublishedChanges!: boolean;
  @ApiProperty({
    type: Boolean,
    nullable: true,
    description: 'false: the last publish could not render the text prompts (espeak-ng or sox missing)',
  })
  promptsRendered!: boolean | null;
  @ApiProperty() nodeCount!: number;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}
class IvrDetailDto extends IvrSummaryDto {
  @ApiProperty({ type: IvrTreeDto }) draftTree!: IvrTreeDto;
  @ApiProperty({ type: IvrTreeDto, nullable: true }) publishedTree!: IvrTreeDto | null;
}
class IvrPageDto {
  @ApiProperty({ type: [IvrSummaryDto] }) items!: IvrSummaryDto[];
  @ApiProperty() total!: number;
  @ApiProperty() page!: number;
  @ApiProperty() pageSize!: number;
}

@ApiTags('ivrs')
@ApiBearerAuth()
@Controller('ivrs')
export class IvrsController {
  constructor(private readonly ivrs: IvrsService) {}

  @Get()
  @RequirePermission(PERMISSIONS.ivrsManage)
  @ApiOperation({
    summary: 'IVRs (main list), paged; sortField: name, active, publishedVersion, updatedAt; q matches name and description',
  })
  @ApiEnvelope(IvrPageDto)
  @ApiErrors(400, 401, 403)
  list(@Query() query: PagedQueryDto, @CurrentPrincipal() principal: Principal): Promise<Page<IvrSummary>> {
    return this.ivrs.list(principal.clientId, query);
  }

  @Get('options')
  @RequirePermission(PERMISSIONS.ivrsManage)
  @ApiOperation({ summary: "The tenant's IVRs as id + name" })
  @ApiEnvelope(null)
  @ApiErrors(401, 403)
  options(@CurrentPrincipal() principal: Principal): Promise<OptionItem[]> {
    return this.ivrs.options(principal.clientId);
  }

  @Get('destination-options')
  @RequirePermission(PERMISSIONS.ivrsManage)
  @ApiOperation({ summary: 'Pickers of the tree editor: attention lines, active users (agents) and IVRs of the tenant' })
  @ApiEnvelope(null)
  @ApiErrors(401, 403)
  destinationOptions(@CurrentPrincipal() principal: Principal): Promise<IvrDestinationOptions> {
    return this.ivrs.destinationOptions(principal.clientId);
  }

  @Get(':id')
  @RequirePermission(PERMISSIONS.ivrsManage)
  @ApiOperation({ summary: "One IVR with its draft and published trees; another tenant's id answers 404" })
  @ApiEnvelope(IvrDetailDto)
  @ApiErrors(400, 401, 403, 404)
  get(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<IvrDetail> {
    return this.ivrs.get(principal.clientId, id);
  }

  @Post()
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.ivrsManage)
  @ApiOperation({ summary: 'Creates an IVR (name unique in the tenant, 409 otherwise) with a one-node starter draft' })
  @ApiEnvelope(IvrDetailDto)
  @ApiErrors(400, 401, 403, 409)
  create(@Body() body: IvrInputDto, @CurrentPrincipal() principal: Principal): Promise<IvrDetail> {
    return this.ivrs.create(principal, body);
  }

  @Put(':id')
  @RequirePermission(PERMISSIONS.ivrsManage)
  @ApiOperation({ summary: 'Replaces the main fields (name, description, active)' })
  @ApiEnvelope(IvrDetailDto)
  @ApiErrors(400, 401, 403, 404, 409)
  update(@Param('id', ParseUuidPipe) id: string, @Body() body: IvrInputDto, @CurrentPrincipal() principal: Principal): Promise<IvrDetail> {
    return this.ivrs.update(principal, id, body);
  }

  @Put(':id/tree')
  @RequirePermission(PERMISSIONS.ivrsManage)
  @ApiOperation({
    summary:
      'Saves the draft tree: prompt per node, ≥ 1 option, digits 0-9 * # unique per node, destinations of this tenant, every node reachable, no inescapable loop, no loop between IVRs',
  })
  @ApiEnvelope(IvrDetailDto)
  @ApiErrors(400, 401, 403, 404)
  saveTree(
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: IvrTreeBodyDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<IvrDetail> {
    return this.ivrs.saveTree(principal, id, body.tree as never);
  }

  @Post(':id/apply')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.ivrsManage)
  @ApiOperation({ summary: 'Validates the draft again and publishes it as the next version (what telephony reads)' })
  @ApiEnvelope(IvrDetailDto)
  @ApiErrors(400, 401, 403, 404)
  apply(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<IvrDetail> {
    return this.ivrs.apply(principal, id);
  }

  @Post(':id/prompt-audio')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.ivrsManage)
  @UseInterceptors(PROMPT_UPLOAD)
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } } })
  @ApiOperation({
    summary: `Uploads a recorded prompt (wav, mp3 or ogg, at most ${IVR_PROMPT_UPLOAD.maxBytes / (1024 * 1024)} MB), converted to 8 kHz mono 16-bit WAV; answers its fileId for a node's promptAudioFileId`,
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 413)
  uploadPrompt(
    @Param('id', ParseUuidPipe) id: string,
    @UploadedFile() file: UploadedAudio | undefined,
    @CurrentPrincipal() principal: Principal,
  ): Promise<{ fileId: string; seconds: number }> {
    return this.ivrs.uploadPrompt(principal, id, file);
  }

  @Get(':id/prompt-audio/:fileId')
  @RequirePermission(PERMISSIONS.ivrsManage)
  @ApiOperation({ summary: 'Plays a prompt file of the tenant (uploaded or rendered) as audio/wav' })
  @ApiErrors(400, 401, 403, 404)
  async promptAudio(
    @Param('id', ParseUuidPipe) id: string,
    @Param('fileId', ParseUuidPipe) fileId: string,
    @CurrentPrincipal() principal: Principal,
    @Res() res: Response,
  ): Promise<void> {
    const file = await this.ivrs.promptFile(principal, id, fileId);
    res.status(200);
    res.setHeader('Content-Type', 'audio/wav');
    res.setHeader('Content-Length', String(file.byteSize));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'private, max-age=3600');
    await pipeline(file.stream, res);
  }

  @Post(':id/copy')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.ivrsManage)
  @ApiOperation({ summary: 'Copies an IVR with its draft tree under a new name (unpublished)' })
  @ApiEnvelope(IvrDetailDto)
  @ApiErrors(400, 401, 403, 404, 409)
  copy(@Param('id', ParseUuidPipe) id: string, @Body() body: IvrCopyDto, @CurrentPrincipal() principal: Principal): Promise<IvrDetail> {
    return this.ivrs.copy(principal, id, body.name);
  }

  @Delete(':id')
  @RequirePermission(PERMISSIONS.ivrsManage)
  @ApiOperation({ summary: 'Soft-deletes an IVR; 409 while another IVR sends calls to it' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 409)
  remove(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<{ deleted: true }> {
    return this.ivrs.remove(principal, id);
  }
}
