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

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

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
  const field = query.sortField ?? spec.defaultSort.field;
  const column = spec.sortable[field];
  if (!column) {
    throw new AppException('validation', { message: `sortField must be one of ${Object.keys(spec.sortable).join(', ')}` });
  }
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
