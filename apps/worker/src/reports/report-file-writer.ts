import { csvLine, neutraliseCell, reportCellText, type ReportCell } from '@centralita/contracts';
import ExcelJS from 'exceljs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';

/** A file that takes rows one at a time and writes them out as they come (nothing accumulates). */
export interface ReportFileWriter {
  write(cells: readonly ReportCell[]): Promise<void>;
  close(): Promise<void>;
}

/** Strings are neutralised (no spreadsheet runs `=…`); numbers stay numbers. */
export function exportCell(value: ReportCell): string | number | null {
  if (typeof value === 'number') return value;
  return value == null ? null : neutraliseCell(value);
}

class CsvWriter implements ReportFileWriter {
  constructor(
    private readonly out: Writable,
    headers: readonly string[],
  ) {
    // BOM: spreadsheet programs then read the file as UTF-8.
    this.out.write(`\uFEFF${csvLine(headers)}`);
  }
  async write(cells: readonly ReportCell[]): Promise<void> {
    const line = csvLine(cells.map((cell) => reportCellText(exportCell(cell))));
    if (!this.out.write(line)) await once(this.out, 'drain');
  }
  async close(): Promise<void> {
    this.out.end();
    await once(this.out, 'finish');
  }
}

class XlsxWriter implements ReportFileWriter {
  private readonly workbook: ExcelJS.stream.xlsx.WorkbookWriter;
  private readonly sheet: ExcelJS.Worksheet;
  constructor(
    private readonly out: Writable,
    headers: readonly string[],
    sheetName: string,
  ) {
    // Streaming writer: each committed row is serialised to the zip stream and released.
    this.workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
    this.sheet = this.workbook.addWorksheet(sheetName.slice(0, 31));
    this.sheet.addRow([...headers]).commit();
  }
  async write(cells: readonly ReportCell[]): Promise<void> {
    this.sheet.addRow(cells.map(exportCell)).commit();
    // The zip is piped into `out`: wait while `out` is behind, so the zip's buffer cannot grow.
    if (this.out.writableNeedDrain) await once(this.out, 'drain');
  }
  async close(): Promise<void> {
    this.sheet.commit();
    await this.workbook.commit();
  }
}

/**
 * `out`: where the bytes go (a file store upload); close() resolves once it has finished.
 * `headers`: the header row, already in the requester's language (reportExportHeaders).
 */
export function openReportFile(format: 'csv' | 'xlsx', out: Writable, headers: readonly string[], sheetName: string): ReportFileWriter {
  return format === 'csv' ? new CsvWriter(out, headers) : new XlsxWriter(out, headers, sheetName);
}
