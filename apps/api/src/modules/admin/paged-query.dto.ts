import { ADMIN_MAX_PAGE_SIZE, type PagedQuery, type SortOrder } from '@centralita/contracts';
import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { ToInt, Trim } from '../../common/transforms';

/**
 * Highest page number any list accepts: with the largest page size the offset stays far inside
 * PostgreSQL's range (page=1e20 used to reach OFFSET and answer 500).
 */
export const MAX_PAGE = 1_000_000;

/** The `page` of every paged route: a whole number in digits, 1..MAX_PAGE, else a 400 naming it. */
export const PageNumber = (): PropertyDecorator =>
  applyDecorators(
    // Applied in this order, as stacked decorators are bottom-up: the type check runs (and is reported) first.
    IsInt(),
    Min(1),
    Max(MAX_PAGE),
    ToInt(),
    IsOptional(),
    ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1 }),
  );

/** The `pageSize` of every paged route: a whole number in digits, 1..max. */
export const PageSize = (max: number, defaultSize = 25): PropertyDecorator =>
  applyDecorators(
    IsInt(),
    Min(1),
    Max(max),
    ToInt(),
    IsOptional(),
    ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: max, default: defaultSize }),
  );

/** A sort column name; paginate() checks it against the area's own list (never Object.prototype). */
export const SortField = (description = 'A sortable column of the area (see its docs); unknown names answer 400'): PropertyDecorator =>
  applyDecorators(IsString(), Matches(/^[A-Za-z]{1,40}$/), IsOptional(), ApiPropertyOptional({ description }));

/** Query of every admin list: paging, one sort column and a free-text filter. */
export class PagedQueryDto implements PagedQuery {
  @PageNumber()
  page?: number;

  @PageSize(ADMIN_MAX_PAGE_SIZE)
  pageSize?: number;

  @SortField()
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
