import { randomBytes, randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PHONE_IMPORT_LIMITS, type PhoneImportState } from '@centralita/contracts';
import { eventually } from '../../../../test/support/eventually';
import { failPhoneListImport } from '../../../worker/src/phone-lists/phone-list-import';
import { officeEncrypted, xlsx, zip } from '../../../worker/src/phone-lists/testing/xlsx-fixture';
import { twoTenants } from '../support/factories';
import { spawnChild, type ChildWorker } from '../support/processes';
import { bearer, startTestApp, type TestApp } from '../support/test-app';

jest.setTimeout(240_000);

/** Heap of the worker process under test: far below what the old reader needed for one 231-byte file. */
const WORKER_HEAP_MB = 192;
/** Peak resident memory of the worker over the whole corpus: about 170 MB idle here (Node, Nest, swc-compiled sources), about 225 MB after it. */
const WORKER_PEAK_RSS_MB = 350;

const SHEET = 'xl/worksheets/sheet1.xml';
const sheet = (rows: string) =>
  zip([
    {
      name: SHEET,
      data: Buffer.from(
        `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rows}</sheetData></worksheet>`,
      ),
    },
  ]);
const header = '<row r="1"><c r="A1" t="inlineStr"><is><t>phone</t></is></c></row>';
/** Random digits: they compress about 2.4:1, so a large part stays under the compression-ratio limit. */
const digits = (count: number) => {
  const bytes = randomBytes(count);
  for (let i = 0; i < count; i++) bytes[i] = 0x30 + (bytes[i] % 10);
  return bytes.toString('latin1');
};

/**
 * Each file, the refusal it must end in. Together they are the class "a file makes the import
 * reader exhaust memory, hang, crash or store something it should not"; the reader must refuse
 * each one with a reason while the worker process lives on.
 */
const corpus: [string, () => Buffer, PhoneImportState['failureCode']][] = [
  // The report's 300-byte file: the old reader padded the row up to column 2^37 and died of heap exhaustion.
  [
    'a cell reference like AAAAAAAA1',
    () => sheet(`${header}<row r="2"><c r="AAAAAAAA1" t="inlineStr"><is><t>x</t></is></c></row>`),
    'bad_cell_reference',
  ],
  [
    'a row number beyond the sheet',
    () => sheet(`${header}<row r="99999999999"><c r="A99999999999" t="inlineStr"><is><t>+50688887777</t></is></c></row>`),
    'bad_cell_reference',
  ],
  // Unclosed tags sent the old regular expressions quadratic: each <row> scanned to the end for its </row>.
  [
    '200,000 unclosed <row> tags',
    () => sheet(Array.from({ length: 200_000 }, () => `<row r="${randomInt(1, 1_000_000)}">`).join('')),
    'invalid_xlsx',
  ],
  [
    '200,000 unclosed <si> tags',
    () =>
      zip([
        {
          name: 'xl/sharedStrings.xml',
          data: Buffer.from(`<sst>${Array.from({ length: 200_000 }, () => `<si><t>${randomInt(1e6)}</t>`).join('')}`),
        },
        { name: SHEET, data: Buffer.from('<worksheet><sheetData/></worksheet>') },
      ]),
    'invalid_xlsx',
  ],
  ['a zip bomb (20 MB of blanks)', () => zip([{ name: SHEET, data: Buffer.alloc(20 * 1024 * 1024, 0x20) }]), 'zip_bomb'],
  ['an entry that inflates beyond its declared size', liar, 'zip_bomb'],
  [
    'a zip of 5,000 entries',
    () => zip(Array.from({ length: 5000 }, (_, i) => ({ name: `xl/media/${i}.bin`, data: Buffer.from([i % 256]) }))),
    'too_many_parts',
  ],
  [
    'an XML entity expansion (billion laughs)',
    () =>
      zip([
        {
          name: SHEET,
          data: Buffer.from(
            '<?xml version="1.0"?><!DOCTYPE worksheet [<!ENTITY a "+5068888"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">' +
              '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>' +
              `<worksheet><sheetData>${header}<row r="2"><c r="A2" t="inlineStr"><is><t>&d;</t></is></c></row></sheetData></worksheet>`,
          ),
        },
      ]),
    'invalid_xlsx',
  ],
  [
    'a cell of 10 MB',
    () => sheet(`${header}<row r="2"><c r="A2" t="inlineStr"><is><t>${digits(10_000_000)}</t></is></c></row>`),
    'cell_too_large',
  ],
  [
    '100,000 columns in a row',
    () => sheet(`<row>${Array.from({ length: 100_000 }, () => `<c><v>${randomInt(1e6)}</v></c>`).join('')}</row>`),
    'too_many_columns',
  ],
  [
    'PNG bytes named .xlsx',
    () => Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), randomBytes(2000)]),
    'not_spreadsheet',
  ],
  ['a truncated zip', () => xlsx([['phone'], ['+50688887777']]).subarray(0, 120), 'invalid_xlsx'],
  [
    'a shared-string index out of range',
    () =>
      zip([
        { name: 'xl/sharedStrings.xml', data: Buffer.from('<sst><si><t>phone</t></si></sst>') },
        {
          name: SHEET,
          data: Buffer.from(
            '<worksheet><sheetData><row><c t="s"><v>0</v></c></row><row><c t="s"><v>4096</v></c></row></sheetData></worksheet>',
          ),
        },
      ]),
    'invalid_xlsx',
  ],
  ['a password-protected workbook', officeEncrypted, 'encrypted'],
  ['formula cells', () => xlsx([['phone'], ['=HYPERLINK("http://attacker.test","+50688887777")']]), 'formulas'],
  [
    'formula cells under a namespace prefix',
    () =>
      zip([
        {
          name: SHEET,
          data: Buffer.from(
            '<x:worksheet xmlns:x="urn:x"><x:sheetData><x:row><x:c><x:f>1+1</x:f><x:v>2</x:v></x:c></x:row></x:sheetData></x:worksheet>',
          ),
        },
      ]),
    'formulas',
  ],
  // PostgreSQL refuses U+0000 in text and lone surrogates in jsonb: the old import threw on insert and retried forever.
  [
    'a NUL byte deep in a csv',
    () =>
      Buffer.from(`phone,name\n${Array.from({ length: 1000 }, (_, i) => `+506${60_000_000 + i},Ana\n`).join('')}+50688887777,B\u0000b\n`),
    'not_spreadsheet',
  ],
  [
    'a lone surrogate in a cell',
    () => sheet(`${header}<row r="2"><c r="A2" t="inlineStr"><is><t>&#xD800;</t></is></c></row>`),
    'invalid_xlsx',
  ],
];

/** A sheet whose zip header declares 30 KB for 2 MB of data (under the ratio limit, over its word). */
function liar(): Buffer {
  return zip([
    {
      name: SHEET,
      data: Buffer.from(`<worksheet><sheetData><row><c><v>${digits(2_000_000)}</v></c></row></sheetData></worksheet>`),
      forgeSize: 30_000,
    },
  ]);
}

describe('Hostile spreadsheet imports (e2e, real worker process)', () => {
  const prefix = `${process.env.QUEUE_PREFIX ?? 'ct'}-imports-${randomBytes(3).toString('hex')}`;
  let t: TestApp;
  let admin: string;
  let worker: ChildWorker;

  beforeAll(async () => {
    t = await startTestApp({ queuePrefix: prefix });
    ({ adminA: admin } = await twoTenants(t));
    worker = spawnChild('phone-import-worker.child.ts', {
      ...process.env,
      NODE_ENV: 'test',
      QUEUE_PREFIX: prefix,
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=${WORKER_HEAP_MB}`,
    });
    await worker.ready;
  });
  afterAll(async () => {
    if (worker?.child.exitCode === null) {
      worker.child.kill('SIGTERM');
      // A worker stuck in a synchronous loop never sees SIGTERM.
      const stuck = setTimeout(() => worker.child.kill('SIGKILL'), 5000);
      await worker.exited;
      clearTimeout(stuck);
    }
    await t?.close();
  });

  const upload = async (name: string, file: Buffer): Promise<string> => {
    const response = await t
      .http()
      .post('/api/phone-lists/imports')
      .query({ name, fileName: 'list.xlsx', defaultCountry: 'CR' })
      .set(bearer(admin))
      .set('Content-Type', 'application/octet-stream')
      .send(file);
    expect(response.status).toBe(200);
    return (response.body as { data: PhoneImportState }).data.id;
  };

  const settled = (id: string): Promise<PhoneImportState> =>
    eventually(
      async () => {
        const state = (await t.http().get(`/api/phone-lists/imports/${id}`).set(bearer(admin)).expect(200)).body.data as PhoneImportState;
        if (state.status !== 'done' && state.status !== 'failed') throw new Error(`import ${id} still ${state.status}\n${worker.output()}`);
        return state;
      },
      { timeoutMs: PHONE_IMPORT_LIMITS.parseTimeoutMs + 15_000, intervalMs: 100 },
    );

  it.each(corpus)('refuses %s with a reason, in time, and the worker lives on', async (name, build, code) => {
    const file = build();
    expect(file.length).toBeLessThanOrEqual(PHONE_IMPORT_LIMITS.maxFileBytes);
    const started = Date.now();
    const id = await upload(`Hostile: ${name}`, file);
    const state = await settled(id);
    expect(state).toMatchObject({ status: 'failed', failureCode: code, importedRows: 0, phoneListId: null });
    expect(state.failure).toEqual(expect.any(String));
    expect(Date.now() - started).toBeLessThan(PHONE_IMPORT_LIMITS.parseTimeoutMs);
    expect(worker.child.exitCode).toBeNull();
    const stored = await t.dataSource.query(`SELECT count(*)::int AS n FROM phone_lists WHERE name = $1`, [`Hostile: ${name}`]);
    expect(stored[0].n).toBe(0);
    const file_ = await t.dataSource.query(`SELECT file IS NULL AS gone FROM phone_list_imports WHERE id = $1`, [id]);
    expect(file_[0].gone).toBe(true);
  });

  it('imports a valid list next, in the same worker process, whose memory stayed bounded', async () => {
    const id = await upload(
      'After the storm',
      xlsx([
        ['Teléfono', 'Nombre'],
        ['8888-7777', 'Ana & Co'],
        ['+506 6000 1234', 'Luis'],
      ]),
    );
    expect(await settled(id)).toMatchObject({ status: 'done', importedRows: 2, errorRows: 0, failureCode: null });
    const state = (await t.http().get(`/api/phone-lists/imports/${id}`).set(bearer(admin)).expect(200)).body.data as PhoneImportState;
    const entries = (await t.http().get(`/api/phone-lists/${state.phoneListId}/entries`).set(bearer(admin)).expect(200)).body.data;
    expect(entries.items.map((e: { phone: string; name: string; line: number }) => [e.line, e.phone, e.name])).toEqual([
      [2, '+50688887777', 'Ana & Co'],
      [3, '+50660001234', 'Luis'],
    ]);
    expect(worker.child.exitCode).toBeNull();
    const peakKb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${worker.child.pid}/status`, 'utf8'))?.[1]);
    process.stdout.write(`hostile-imports: worker peak RSS ${Math.round(peakKb / 1024)} MB\n`);
    expect(peakKb / 1024).toBeLessThan(WORKER_PEAK_RSS_MB);
  });
  it('ends an import whose job failed for good as failed with a reason, and leaves a finished one alone', async () => {
    const id = await upload('Ends either way', xlsx([['phone'], ['+50688880001']]));
    expect(await settled(id)).toMatchObject({ status: 'done' });
    await failPhoneListImport(t.dataSource, id);
    expect((await t.http().get(`/api/phone-lists/imports/${id}`).set(bearer(admin))).body.data).toMatchObject({
      status: 'done',
      failureCode: null,
    });
    // As a worker that died or kept throwing would have left it:
    await t.dataSource.query(`UPDATE phone_list_imports SET status = 'running', finished_at = NULL WHERE id = $1`, [id]);
    await failPhoneListImport(t.dataSource, id);
    expect((await t.http().get(`/api/phone-lists/imports/${id}`).set(bearer(admin))).body.data).toMatchObject({
      status: 'failed',
      failureCode: 'import_failed',
      failure: 'the import could not be completed; try again',
    });
  });
});
