import { ADMIN_MAX_PAGE_SIZE, type PagedQuery, type SortOrder } from '@centralita/contracts';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { Trim } from '../../common/transforms';

/** Query of every admin list: paging, one sort column and a free-text filter. */
export class PagedQueryDto implements PagedQuery {
  @ApiPropertyOptional({ minimum: 1, default: 1 })
  @IsOptional()
  @Type(() => Number)
  @Min(1)
  @IsInt()
  page?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: ADMIN_MAX_PAGE_SIZE, default: 25 })
  @IsOptional()
  @Type(() => Number)
  @Max(ADMIN_MAX_PAGE_SIZE)
  @Min(1)
  @IsInt()
  pageSize?: number;

  @ApiPropertyOptional({ description: 'A sortable column of the area (see its docs); unknown names answer 400' })
  @IsOptional()
  @Matches(/^[A-Za-z]{1,40}$/)
  @IsString()
  sortField?: string;

  @ApiPropertyOptional({ enum: ['asc', 'desc'] })
  @IsOptional()
  @IsIn(['asc', 'desc'])
  sortOrder?: SortOrder;

  @ApiPropertyOptional({ description: 'Case-insensitive text matched against the searchable columns' })
  @IsOptional()
  @Trim()
  @Length(0, 100)
  @IsString()
  q?: string;
}
