import { createElement } from 'react';
import { ADMIN_PAGE_SIZES } from '@centralita/contracts';
import { ariaLabel, localeOption } from 'primereact/api';
import type { DataTablePageEvent } from 'primereact/datatable';
import { Dropdown } from 'primereact/dropdown';
import type { PaginatorTemplate } from 'primereact/paginator';

/**
 * PrimeReact's default paginator, except the page-size list's name: PrimeReact labels it from a
 * private copy of its English locale ("Jump to Page Dropdown", whatever the console language), so
 * it is named here from the console's PrimeReact locale instead (rowsPerPageLabel, see primereact-locale.ts).
 */
export const PAGINATOR_TEMPLATE: PaginatorTemplate = {
  layout: 'FirstPageLink PrevPageLink PageLinks NextPageLink LastPageLink RowsPerPageDropdown',
  // PrimeReact's own list, as it renders it, with the label of the console's language.
  RowsPerPageDropdown: (options) =>
    options.options.length > 0
      ? createElement(Dropdown, {
          value: options.value,
          options: options.options,
          onChange: options.onChange,
          appendTo: options.appendTo,
          disabled: options.disabled,
          placeholder: localeOption('choose', ''),
          'aria-label': ariaLabel('rowsPerPageLabel', {}),
        })
      : null,
};

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
    paginatorTemplate: PAGINATOR_TEMPLATE,
    onPage: (event: DataTablePageEvent) => onPage({ first: event.first, rows: event.rows }),
    loading,
    size: 'small' as const,
    stripedRows: true,
  };
}
