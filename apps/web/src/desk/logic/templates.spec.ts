import { describe, expect, it } from '@jest/globals';
import { renderTemplate, templateCategoryKey, templateKey, templateParameters, templateReady, templateSegments } from './templates';

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
    const body = { parameterCount: 2, headerParameterCount: 0 };
    expect(templateReady(body, { header: [], body: ['Ada', ''] })).toBe(false);
    expect(templateReady(body, { header: [], body: ['Ada', 'A-17'] })).toBe(true);
    expect(templateReady({ parameterCount: 0, headerParameterCount: 0 }, { header: [], body: [] })).toBe(true);
    expect(templateParameters(body, { header: ['ignored'], body: [' Ada ', 'A-17', 'extra'] })).toEqual({
      bodyParameters: ['Ada', 'A-17'],
    });
  });

  it("counts a text header's parameters apart from the body's", () => {
    const withHeader = { parameterCount: 1, headerParameterCount: 1 };
    expect(templateReady(withHeader, { header: [], body: ['Ada'] })).toBe(false);
    expect(templateReady(withHeader, { header: [' '], body: ['Ada'] })).toBe(false);
    expect(templateReady(withHeader, { header: ['A-17'], body: ['Ada'] })).toBe(true);
    expect(templateParameters(withHeader, { header: [' A-17 '], body: ['Ada'] })).toEqual({
      bodyParameters: ['Ada'],
      headerParameters: ['A-17'],
    });
  });

  it("names Meta's categories through translation keys and leaves other words as sent", () => {
    expect(templateCategoryKey('UTILITY')).toBe('desk.templates.category.UTILITY');
    expect(templateCategoryKey('AUTHENTICATION')).toBe('desk.templates.category.AUTHENTICATION');
    expect(templateCategoryKey('SOMETHING_NEW')).toBeNull();
  });

  it('tells templates apart by name and language', () => {
    expect(templateKey({ name: 'order_update', language: 'es' })).not.toBe(templateKey({ name: 'order_update', language: 'en' }));
  });
});
