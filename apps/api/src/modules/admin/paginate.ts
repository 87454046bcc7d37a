import { ADMIN_MAX_PAGE_SIZE, type Page, type PagedQuery } from '@centralita/contracts';
import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { MAX_PAGE } from './paged-query.dto';

export interface ListSpec {
  /** API sort name → SQL column of the query's alias ("c.name"). */
  sortable: Record<string, string>;
  /** Columns the free-text filter matches (ILIKE, OR-ed). */
  searchable: string[];
  defaultSort: { field: string; order: 'asc' | 'desc' };
  defaultPageSize?: number;
}

/** A literal for ILIKE: the user's %, _ and backslash match themselves. */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The column to sort by, or a validation error naming the allowed sort fields. Looked up as an own
 * property only: `constructor`, `toString` or `__proto__` would otherwise find Object.prototype's
 * members and reach ORDER BY.
 */
export function sortColumn(query: Pick<PagedQuery, 'sortField'>, spec: Pick<ListSpec, 'sortable' | 'defaultSort'>): string {
  const field = query.sortField ?? spec.defaultSort.field;
  const column = Object.hasOwn(spec.sortable, field) ? spec.sortable[field] : undefined;
  if (typeof column !== 'string') {
    throw new AppException('validation', {
      message: `sortField must be one of ${Object.keys(spec.sortable).join(', ')}`,
      messageKey: 'unknownSortField',
      params: { options: Object.keys(spec.sortable).join(', ') },
      data: { fields: { sortField: ['unknown sort field'] } },
    });
  }
  return column;
}

/**
 * Page and page size as safe whole numbers within bounds. The DTOs (PageNumber, PageSize) already
 * refuse anything else with a 400 naming the field; this holds for callers that build a query in
 * code, so no OFFSET can ever leave PostgreSQL's range.
 */
export function pageOf(
  query: Pick<PagedQuery, 'page' | 'pageSize'>,
  spec: Pick<ListSpec, 'defaultPageSize'>,
): { page: number; pageSize: number } {
  const page = query.page ?? 1;
  const pageSize = query.pageSize ?? spec.defaultPageSize ?? 25;
  const problems: Record<string, string[]> = {};
  if (!Number.isSafeInteger(page) || page < 1 || page > MAX_PAGE) problems.page = [`page must be a whole number from 1 to ${MAX_PAGE}`];
  if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > ADMIN_MAX_PAGE_SIZE) {
    problems.pageSize = [`pageSize must be a whole number from 1 to ${ADMIN_MAX_PAGE_SIZE}`];
  }
  const messages = Object.values(problems).flat();
  if (messages.length) throw new AppException('validation', { message: messages.join('; '), data: { fields: problems } });
  return { page, pageSize };
}

/**
 * The same paging, sort and search rules as `paginate`, for lists read with raw SQL: the ORDER BY
 * (with the id tie-break of `idColumn`), LIMIT/OFFSET, and the ILIKE pattern of the free text (null
 * without one).
 */
export function rawListParts(
  query: PagedQuery,
  spec: Pick<ListSpec, 'sortable' | 'defaultSort' | 'defaultPageSize'>,
  idColumn: string,
): { page: number; pageSize: number; orderBy: string; limit: string; like: string | null } {
  const { page, pageSize } = pageOf(query, spec);
  const column = sortColumn(query, spec);
  const order = (query.sortOrder ?? (query.sortField ? 'asc' : spec.defaultSort.order)).toUpperCase();
  return {
    page,
    pageSize,
    orderBy: `${column} ${order}, ${idColumn}`,
    limit: `LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`,
    like: query.q ? `%${escapeLike(query.q)}%` : null,
  };
}

/**
 * Applies the paged query to a query builder that already has the tenant condition, and runs it.
 * A stable tie-break on the id keeps pages from overlapping when sort values repeat.
 */
export async function paginate<E extends ObjectLiteral, T>(
  qb: SelectQueryBuilder<E>,
  query: PagedQuery,
  spec: ListSpec,
  map: (row: E) => T,
): Promise<Page<T>> {
  const { page, pageSize } = pageOf(query, spec);
  const column = sortColumn(query, spec);
  const order = (query.sortOrder ?? (query.sortField ? 'asc' : spec.defaultSort.order)).toUpperCase() as 'ASC' | 'DESC';
  if (query.q && spec.searchable.length) {
    const clause = spec.searchable.map((col) => `${col} ILIKE :adminQ`).join(' OR ');
    qb.andWhere(`(${clause})`, { adminQ: `%${escapeLike(query.q)}%` });
  }
  qb.orderBy(column, order).addOrderBy(`${qb.alias}.id`, 'ASC');
  qb.skip((page - 1) * pageSize).take(pageSize);
  const [rows, total] = await qb.getManyAndCount();
  return { items: rows.map(map), total, page, pageSize };
}
