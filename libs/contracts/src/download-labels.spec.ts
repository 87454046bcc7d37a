import { LANGUAGES } from './constants';
import { DOWNLOAD_LABELS, type DownloadLabels } from './download-labels';

const FILES = Object.keys(DOWNLOAD_LABELS.en) as (keyof DownloadLabels)[];
const others = LANGUAGES.filter((language) => language !== 'en');

describe('DOWNLOAD_LABELS', () => {
  it.each(LANGUAGES)('labels every file in %s with the keys of the English table, none blank', (language) => {
    for (const file of FILES) {
      const labels = DOWNLOAD_LABELS[language][file] as Record<string, string>;
      expect(Object.keys(labels).sort()).toEqual(Object.keys(DOWNLOAD_LABELS.en[file]).sort());
      expect(Object.values(labels).filter((label) => typeof label !== 'string' || label.trim() === '')).toEqual([]);
    }
  });

  it.each(LANGUAGES)('names no two CSV columns alike in %s', (language) => {
    const { detailCsv, outboundResults } = DOWNLOAD_LABELS[language];
    const detailHeaders = [detailCsv.time, detailCsv.kind, detailCsv.who, detailCsv.text];
    expect(new Set(detailHeaders).size).toBe(detailHeaders.length);
    expect(new Set(Object.values(outboundResults)).size).toBe(Object.keys(outboundResults).length);
  });

  it.each(others)('is really translated in %s (not a copy of the English)', (language) => {
    const pairs = FILES.flatMap((file) =>
      Object.keys(DOWNLOAD_LABELS.en[file]).map((key) => [
        (DOWNLOAD_LABELS.en[file] as Record<string, string>)[key],
        (DOWNLOAD_LABELS[language][file] as Record<string, string>)[key],
      ]),
    );
    // A few words are the same in both (Status, Agent…), never most of them.
    expect(pairs.filter(([english, translated]) => english === translated).length).toBeLessThan(pairs.length / 4);
  });
});
