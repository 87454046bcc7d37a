import { ADMIN_PAGE_SIZES } from '@centralita/contracts';
import type { DataTablePageEvent } from 'primereact/datatable';

export interface PageWindow {
  first: number;
  rows: number;
}

/**
 * DataTable props of every server-paged admin table: the server pages, the same page sizes and
 * look everywhere. Spread them, then add the table's own value, sorting and empty message.
 */
export function lazyPaging(page: PageWindow, onPage: (page: PageWindow) => void, totalRecords: number, loading: boolean) {
  return {
    lazy: true,
    dataKey: 'id',
    paginator: true,
    first: page.first,
    rows: page.rows,
    totalRecords,
    rowsPerPageOptions: [...ADMIN_PAGE_SIZES],
    onPage: (event: DataTablePageEvent) => onPage({ first: event.first, rows: event.rows }),
    loading,
    size: 'small' as const,
    stripedRows: true,
  };
}
