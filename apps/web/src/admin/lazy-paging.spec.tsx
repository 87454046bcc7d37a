import { describe, expect, it } from '@jest/globals';
import { renderToStaticMarkup } from 'react-dom/server';
import { Column } from 'primereact/column';
import { DataTable } from 'primereact/datatable';
import { applyPrimeLocale } from '../i18n/primereact-locale';
import { lazyPaging, PAGINATOR_TEMPLATE } from './lazy-paging';

/** The ARIA labels a server-paged admin table renders with 30 rows, 10 a page. */
function labels(language: string): string[] {
  applyPrimeLocale(language);
  const html = renderToStaticMarkup(
    <DataTable value={[{ id: '1', name: 'x' }]} {...lazyPaging({ first: 0, rows: 10 }, () => undefined, 30, false)}>
      <Column field="name" header="name" />
    </DataTable>,
  );
  return [...html.matchAll(/aria-label="([^"]*)"/g)].map((match) => match[1]!);
}

describe('PAGINATOR_TEMPLATE', () => {
  it('names the page-size list in the console language (PrimeReact names it from a private English copy)', () => {
    expect(labels('ru')).toContain('Строк на странице');
    expect(labels('el')).toContain('Γραμμές ανά σελίδα');
    for (const language of ['ru', 'el', 'es']) expect(labels(language).join(' ')).not.toMatch(/Jump to Page|Rows per page/);
    expect(labels('en')).toContain('Rows per page');
  });

  it('keeps the default layout: page links and the page sizes', () => {
    expect(typeof PAGINATOR_TEMPLATE === 'object' && PAGINATOR_TEMPLATE?.layout).toBe(
      'FirstPageLink PrevPageLink PageLinks NextPageLink LastPageLink RowsPerPageDropdown',
    );
    expect(labels('ru')).toEqual(expect.arrayContaining(['Первая страница', 'Страница 3', 'Последняя страница']));
  });
});
