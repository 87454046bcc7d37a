import { LANGUAGES } from '@centralita/contracts';
import { monitorNote } from './voice-monitoring.service';

describe('monitorNote', () => {
  it('words every monitoring step in every language with its placeholders filled', () => {
    for (const language of LANGUAGES)
      for (const state of ['started', 'changed', 'ended', 'failed'] as const) {
        const text = monitorNote(state, language, { name: 'Ana', mode: 'M', reason: 'noAnswer' });
        expect(text).toContain('Ana');
        expect(text).not.toMatch(/\{\w+\}/);
      }
    expect(monitorNote('started', 'en', { name: 'Ana', mode: 'listen' })).toBe('Ana started monitoring the call (listen)');
    // An unknown language reads as Spanish, the default.
    expect(monitorNote('ended', 'xx', { name: 'Ana' })).toBe('Ana dejó de supervisar la llamada');
  });
});
