import { describe, expect, it } from '@jest/globals';
import { renderTemplate, templateKey, templateParameters, templateReady, templateSegments } from './templates';

const BODY = 'Hello {{1}}, your order {{2}} ships {{ 3 }}. Thanks, {{1}}!';

describe('template preview', () => {
  it('fills each {{n}} with the n-th value and marks the blank ones', () => {
    expect(templateSegments('Hi {{1}}, order {{2}}', ['Ada', ' '])).toEqual([
      { text: 'Hi ' },
      { parameter: 1, value: 'Ada' },
      { text: ', order ' },
      { parameter: 2, value: null },
    ]);
  });

  it('renders the text the customer will read, repeated placeholders included', () => {
    expect(renderTemplate(BODY, ['Ada', 'A-17', 'today'])).toBe('Hello Ada, your order A-17 ships today. Thanks, Ada!');
    expect(renderTemplate(BODY, ['Ada'])).toBe('Hello Ada, your order {{2}} ships {{3}}. Thanks, Ada!');
    expect(renderTemplate('No parameters', [])).toBe('No parameters');
  });

  it('keeps what the agent typed as text, never as markup or another placeholder', () => {
    expect(renderTemplate('Hi {{1}}', ['<b>{{2}}</b>'])).toBe('Hi <b>{{2}}</b>');
  });

  it('is ready only when every parameter is filled, and sends exactly that many', () => {
    expect(templateReady({ parameterCount: 2 }, ['Ada', ''])).toBe(false);
    expect(templateReady({ parameterCount: 2 }, ['Ada', 'A-17'])).toBe(true);
    expect(templateReady({ parameterCount: 0 }, [])).toBe(true);
    expect(templateParameters({ parameterCount: 2 }, [' Ada ', 'A-17', 'extra'])).toEqual(['Ada', 'A-17']);
  });

  it('tells templates apart by name and language', () => {
    expect(templateKey({ name: 'order_update', language: 'es' })).not.toBe(templateKey({ name: 'order_update', language: 'en' }));
  });
});
