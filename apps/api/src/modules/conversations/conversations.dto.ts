import { LIMITS } from '@centralita/contracts';
import { CONVERSATION_STATUSES } from '@centralita/domain';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsEmail,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { ToInt, Trim } from '../../common/transforms';

/** Message sequences are PostgreSQL integers. */
const MAX_SEQUENCE = 2_147_483_647;

const TrimOrUndefined = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() || undefined : value));

export class StartChatDto {
  @ApiProperty({ format: 'uuid', description: 'The attention line the widget serves; the tenant is the line’s' })
  @IsUUID()
  attentionLineId!: string;

  @ApiProperty({ maxLength: 120 })
  @Trim()
  @Length(1, 120, { message: 'name must be between 1 and 120 characters' })
  @IsString()
  name!: string;

  @ApiPropertyOptional({ format: 'email' })
  @IsOptional()
  @TrimOrUndefined()
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be an email' })
  email?: string;
}

export class MenuChoiceDto {
  @ApiProperty({ description: 'Query type chosen in the menu' })
  @Trim()
  @Length(1, 64, { message: 'queryTypeId is required' })
  @IsString()
  queryTypeId!: string;

  @ApiProperty({ description: 'Submenu chosen in the menu' })
  @Trim()
  @Length(1, 64, { message: 'submenuId is required' })
  @IsString()
  submenuId!: string;
}

export class SendMessageDto {
  @ApiProperty({ maxLength: LIMITS.maxMessageLength, description: 'Trimmed; empty answers 400 and stores nothing' })
  @Trim()
  @MaxLength(LIMITS.maxMessageLength, { message: `text must be at most ${LIMITS.maxMessageLength} characters` })
  @IsNotEmpty({ message: 'text must not be empty' })
  @IsString()
  text!: string;

  @ApiPropertyOptional({ description: 'Client-chosen id: the same message sent twice is stored once' })
  @IsOptional()
  @Matches(/^[A-Za-z0-9_.-]{1,64}$/, { message: 'clientMessageId must be 1 to 64 letters, digits, "_", "." or "-"' })
  @IsString()
  clientMessageId?: string;
}

export class TypingDto {
  @ApiProperty()
  @IsBoolean()
  typing!: boolean;
}

export class ReadMarkDto {
  @ApiProperty({ minimum: 1, maximum: MAX_SEQUENCE })
  @Max(MAX_SEQUENCE)
  @Min(1)
  @IsInt()
  upToSequence!: number;
}

export class MessagesQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_SEQUENCE, description: 'Only messages after this sequence' })
  @IsOptional()
  @ToInt()
  @Max(MAX_SEQUENCE)
  @Min(0)
  @IsInt()
  after?: number;
}

export class SurveyAnswerDto {
  @ApiProperty()
  @Trim()
  @Length(1, 64, { message: 'questionId is required' })
  @IsString()
  questionId!: string;

  @ApiProperty({ maxLength: 500 })
  @Trim()
  @Length(1, 500, { message: 'answer must be between 1 and 500 characters' })
  @IsString()
  answer!: string;

  @ApiProperty({ description: 'true on the last question: the conversation closes' })
  @IsBoolean()
  last!: boolean;
}

export class AgentLoginDto {
  @ApiPropertyOptional({ format: 'uuid', description: "Campaign to log into; its allowed chats per agent is the agent's capacity" })
  @IsOptional()
  @IsUUID()
  campaignId?: string;
}

export class PauseDto {
  @ApiProperty({ description: 'A pause reason code of the tenant (GET /api/agent/pause-reasons)' })
  @Trim()
  @Length(1, 40, { message: 'reasonId is required' })
  @IsString()
  reasonId!: string;
}

export class TransferDto {
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  attentionLineId?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  agentId?: string;
}

export class CloseDto {
  @ApiProperty({ maxLength: 60 })
  @Trim()
  @Length(1, 60, { message: 'disposition is required' })
  @IsString()
  disposition!: string;

  @ApiPropertyOptional({ maxLength: 40, default: 'resolved' })
  @IsOptional()
  @Trim()
  @Length(1, 40)
  @IsString()
  reason?: string;
}

/** Same limit as the console's input (LIMITS.maxMessageLength), so what the console accepts the server keeps. */
export class NoteDto {
  @ApiProperty({ maxLength: LIMITS.maxMessageLength })
  @Trim()
  @MaxLength(LIMITS.maxMessageLength, { message: `text must be at most ${LIMITS.maxMessageLength} characters` })
  @IsNotEmpty({ message: 'text must not be empty' })
  @IsString()
  text!: string;
}

export class SupervisorConversationsQueryDto {
  @ApiPropertyOptional({ enum: CONVERSATION_STATUSES })
  @IsOptional()
  @IsIn(CONVERSATION_STATUSES)
  status?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  attentionLineId?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  agentId?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @Length(1, 40)
  @IsString()
  channel?: string;

  @ApiPropertyOptional({ description: "'true' includes closed conversations (default: open ones only)" })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  showAll?: boolean;
}

/** POST /api/conversations/:id/template-messages (TemplateMessageInput). */
export class TemplateMessageDto {
  @ApiProperty({ maxLength: 512, description: "The approved template's name, as GET /api/channel-accounts/:id/templates lists it" })
  @Trim()
  @Length(1, 512, { message: 'name must have 1 to 512 characters' })
  @IsString()
  name!: string;

  @ApiProperty({ example: 'es', description: "The template's language code" })
  @Trim()
  @Matches(/^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})?$/, { message: 'language must be a language code such as es or en_US' })
  @IsString()
  language!: string;

  @ApiProperty({ type: [String], description: 'Body parameters in order ({{1}}, {{2}}, …); as many as the template has' })
  @IsString({ each: true })
  @MaxLength(1024, { each: true, message: 'each body parameter must be at most 1024 characters' })
  @IsNotEmpty({ each: true, message: 'body parameters must not be empty' })
  bodyParameters!: string[];

  @ApiPropertyOptional({ type: [String], description: "The text header's parameters in order; as many as the template's header has" })
  @IsOptional()
  @IsString({ each: true })
  @MaxLength(60, { each: true, message: 'each header parameter must be at most 60 characters' })
  @IsNotEmpty({ each: true, message: 'header parameters must not be empty' })
  headerParameters?: string[];

  @ApiPropertyOptional({
    description: "A media header's file as a public https link ({link, fileName?}); POST …/template-messages/media uploads one instead",
  })
  @IsOptional()
  @IsObject({ message: 'headerMedia must be an object {link, fileName?}' })
  headerMedia?: { link: string; fileName?: string };

  @ApiPropertyOptional({ description: 'Client-chosen id: the same message sent twice is stored once' })
  @IsOptional()
  @Matches(/^[A-Za-z0-9_.-]{1,64}$/, { message: 'clientMessageId must be 1 to 64 letters, digits, "_", "." or "-"' })
  @IsString()
  clientMessageId?: string;
}
