import type { Page, PagedQuery } from '@centralita/contracts';
import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { AppException } from '../../common/app.exception';

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

/** The column to sort by, or a validation error naming the allowed sort fields. */
function sortColumn(query: PagedQuery, spec: Pick<ListSpec, 'sortable' | 'defaultSort'>): string {
  const column = spec.sortable[query.sortField ?? spec.defaultSort.field];
  if (!column) {
    throw new AppException('validation', {
      message: `sortField must be one of ${Object.keys(spec.sortable).join(', ')}`,
      data: { fields: { sortField: ['unknown sort field'] } },
    });
  }
  return column;
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
  const page = query.page ?? 1;
  const pageSize = query.pageSize ?? spec.defaultPageSize ?? 25;
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
  const page = query.page ?? 1;
  const pageSize = query.pageSize ?? spec.defaultPageSize ?? 25;
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
