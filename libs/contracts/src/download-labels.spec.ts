import { LANGUAGES } from './constants';
import {
  ACTOR_KIND_CODES,
  CALL_DISPOSITION_CODES,
  CALL_STATUS_CODES,
  PAUSE_REASON_CODES,
  fillLabel,
  CALL_OUTCOME_CODES,
  CONVERSATION_EVENT_CODES,
  CONVERSATION_STATUS_CODES,
  DOWNLOAD_LABELS,
  TRANSLATED_CHANNEL_CODES,
  valueLabel,
  type DownloadLabels,
  type ValueLabelKind,
} from './download-labels';

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

describe(valueLabel.name, () => {
  it.each(LANGUAGES)('names every conversation state, event, actor, outcome and disposition code in %s', (language) => {
    const tables: [ValueLabelKind, readonly string[]][] = [
      ['conversationStatus', CONVERSATION_STATUS_CODES],
      ['conversationEvent', CONVERSATION_EVENT_CODES],
      ['actor', ACTOR_KIND_CODES],
      ['channel', TRANSLATED_CHANNEL_CODES],
      ['callOutcome', CALL_OUTCOME_CODES],
      ['callDisposition', CALL_DISPOSITION_CODES],
    ];
    for (const [kind, codes] of tables) {
      expect(Object.keys(DOWNLOAD_LABELS[language][kind]).sort()).toEqual([...codes].sort());
      for (const code of codes) expect(valueLabel(kind, code, language)).not.toBe('');
    }
    // Camel-case codes and dotted event names must never reach a reader.
    const labels = [...CONVERSATION_STATUS_CODES.map((code) => valueLabel('conversationStatus', code, language))];
    labels.push(...CONVERSATION_EVENT_CODES.map((code) => valueLabel('conversationEvent', code, language)));
    expect(labels.filter((label) => /[a-z][A-Z]|\./.test(label))).toEqual([]);
  });

  it('labels states and events in the reader’s language', () => {
    expect(valueLabel('conversationStatus', 'LiningUp', 'es')).toBe('En cola');
    expect(valueLabel('conversationStatus', 'LiningUp', 'ru')).toBe('В очереди');
    expect(valueLabel('conversationStatus', 'LiningUp', 'el')).toBe('Σε αναμονή');
    expect(valueLabel('conversationEvent', 'conversation.menuCompleted', 'en')).toBe('Menu completed');
    expect(valueLabel('conversationEvent', 'conversation.menuCompleted', 'de')).toBe('Menü abgeschlossen');
    expect(valueLabel('callOutcome', 'noAnswer', 'it')).toBe('Nessuna risposta');
    expect(valueLabel('actor', 'system', 'sr')).toBe('Sistem');
  });

  it('writes the spec §9 brand name of a digital channel in every language, and translates phone, email and video', () => {
    for (const language of LANGUAGES) {
      expect(valueLabel('channel', 'webchat', language)).toBe('WebChat');
      expect(valueLabel('channel', 'directline', language)).toBe('WebChat');
      expect(valueLabel('channel', 'facebook', language)).toBe('FaceBook');
      expect(valueLabel('channel', 'whatsapp', language)).toBe('WhatsApp');
      expect(valueLabel('channel', '17', language)).toBe('Telegram');
    }
    expect(valueLabel('channel', 'Phone', 'es')).toBe('Teléfono');
    expect(valueLabel('channel', 'email', 'ru')).toBe('Электронная почта');
  });

  it('shows a code no table knows as it is, rather than hiding it', () => {
    expect(valueLabel('conversationStatus', 'Archived', 'es')).toBe('Archived');
    expect(valueLabel('callDisposition', 'vip-upgrade', 'de')).toBe('vip-upgrade');
    expect(valueLabel('channel', 'carrier-pigeon', 'el')).toBe('carrier-pigeon');
    // Inherited object keys are not labels.
    expect(valueLabel('actor', 'toString', 'en')).toBe('toString');
  });
});

describe('outbound call states and pause reasons', () => {
  it.each(LANGUAGES)('names every call state and built-in pause reason in %s', (language) => {
    for (const code of CALL_STATUS_CODES) expect(valueLabel('callStatus', code, language)).not.toBe(code);
    for (const code of PAUSE_REASON_CODES) expect(valueLabel('pauseReason', code, language)).not.toBe(code);
    expect(valueLabel('pauseReason', 'tenant_own', language)).toBe('tenant_own');
  });

  it('fills the placeholders of the phone-list errors tables', () => {
    expect(fillLabel(DOWNLOAD_LABELS.es.phoneImportErrors.duplicate, { line: 7 })).toBe('Repite la línea 7');
    expect(fillLabel(DOWNLOAD_LABELS.en.phoneImportFailure.too_many_rows, { rows: 50000 })).toBe('The file has more than 50000 rows.');
  });
});
