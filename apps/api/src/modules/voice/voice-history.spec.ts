import { LANGUAGES } from '@centralita/contracts';
import { callerNumber } from './voice-events.service';
import { connectFailureKey, VOICE_HISTORY, voiceHistoryLine } from './voice-history';

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

  it('names why a connect failed: busy, no answer and not connected in words, other codes as they came', () => {
    expect(voiceHistoryLine(connectFailureKey('busy'), 'en', { agent: 'Ana' })).toBe(
      'Ana’s phone was busy: the call goes back to the queue',
    );
    expect(voiceHistoryLine(connectFailureKey('noAnswer'), 'es', { agent: 'Ana' })).toBe('Ana no contestó la llamada: vuelve a la cola');
    expect(connectFailureKey('unavailable')).toBe('connectUnavailable');
    expect(voiceHistoryLine(connectFailureKey('sip503'), 'en', { agent: 'Ana', reason: 'sip503' })).toBe(
      'The call could not be put through to Ana (sip503): it goes back to the queue',
    );
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
