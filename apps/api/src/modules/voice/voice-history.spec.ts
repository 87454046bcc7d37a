import { LANGUAGES } from '@centralita/contracts';
import { callerNumber } from './voice-events.service';
import { VOICE_HISTORY, voiceHistoryLine } from './voice-history';

describe(voiceHistoryLine.name, () => {
  it('has every line in the seven languages, each with the same placeholders as the English one', () => {
    for (const [key, texts] of Object.entries(VOICE_HISTORY)) {
      const placeholders = (text: string) => (text.match(/\{\w+\}/g) ?? []).sort();
      for (const language of LANGUAGES) {
        expect({ key, language, text: texts[language].trim().length > 0 }).toEqual({ key, language, text: true });
        expect(placeholders(texts[language])).toEqual(placeholders(texts.en));
      }
    }
  });

  it('fills the placeholders in the tenant’s language, Spanish for an unknown one', () => {
    expect(voiceHistoryLine('incoming', 'en', { from: '+34911', to: '+34910' })).toBe('Incoming call from +34911 to +34910');
    expect(voiceHistoryLine('ivrKey', 'de', { node: 'Vertrieb', digit: '1' })).toBe('IVR: Vertrieb (Taste 1)');
    expect(voiceHistoryLine('incoming', 'xx', { from: 'a', to: 'b' })).toBe('Llamada entrante de a a b');
  });
});

describe(callerNumber.name, () => {
  it('keeps the plus and the digits of a presented number', () => {
    expect(callerNumber('+34 911-222 333')).toBe('+34911222333');
    expect(callerNumber('0034911222333')).toBe('0034911222333');
  });

  it('answers null for a withheld or unreadable number, so each such call gets a contact of its own', () => {
    for (const raw of [null, '', 'anonymous', 'Anonymous <sip:anonymous@anonymous.invalid>', 'restricted', '12']) {
      expect(callerNumber(raw)).toBeNull();
    }
  });
});
