import { describe, expect, it } from '@jest/globals';
import {
  renderTemplate,
  templateCategoryKey,
  templateFileProblem,
  templateKey,
  templateLinkOk,
  templateParameters,
  templateReady,
  templateSegments,
} from './templates';

const BODY = 'Hello {{1}}, your order {{2}} ships {{ 3 }}. Thanks, {{1}}!';

describe('template preview', () => {
  it('fills each {{n}} with the n-th value and marks the blank ones', () => {
    expect(templateSegments('Hi {{1}}, order {{2}}', ['Ada', ' '])).toEqual([
      { text: 'Hi ' },
      { parameter: 1, key: '1', value: 'Ada' },
      { text: ', order ' },
      { parameter: 2, key: '2', value: null },
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

  it("fills a NAMED template's {{name}} with the value at its name's place and leaves others as written", () => {
    const names = ['first_name', 'order_id'];
    expect(templateSegments('Hi {{first_name}}, order {{ order_id }}', ['Ada'], names)).toEqual([
      { text: 'Hi ' },
      { parameter: 1, key: 'first_name', value: 'Ada' },
      { text: ', order ' },
      { parameter: 2, key: 'order_id', value: null },
    ]);
    expect(renderTemplate('Hi {{first_name}} ({{1}})', ['Ada'], names)).toBe('Hi Ada ({{1}})');
    expect(renderTemplate('Order {{order_id}} for {{first_name}}', ['Ada', 'A-17'], names)).toBe('Order A-17 for Ada');
  });

  it('needs a media header: an https link of its kind, or a file of its types within its size', () => {
    const image = { parameterCount: 1, headerParameterCount: 0, headerFormat: 'IMAGE' as const };
    expect(templateReady(image, { header: [], body: ['Ada'] })).toBe(false);
    expect(templateReady(image, { header: [], body: ['Ada'], mediaLink: 'http://cdn.example.com/a.png' })).toBe(false);
    expect(templateReady(image, { header: [], body: ['Ada'], mediaLink: 'https://cdn.example.com/a.pdf' })).toBe(false);
    expect(templateReady(image, { header: [], body: ['Ada'], mediaLink: 'https://cdn.example.com/a.png' })).toBe(true);
    expect(templateReady(image, { header: [], body: [''], mediaLink: 'https://cdn.example.com/a.png' })).toBe(false);
    const photo = { name: 'a.jpg', type: 'image/jpeg', size: 1000 };
    expect(templateReady(image, { header: [], body: ['Ada'], mediaFile: photo })).toBe(true);
    expect(templateFileProblem('IMAGE', { type: 'image/gif', size: 10 })).toMatchObject({ key: 'desk.templates.mediaType' });
    expect(templateFileProblem('IMAGE', { type: 'image/png', size: 5 * 1024 * 1024 + 1 })).toMatchObject({
      key: 'desk.templates.mediaTooLarge',
      megabytes: 5,
    });
    expect(templateReady(image, { header: [], body: ['Ada'], mediaFile: { ...photo, type: 'image/gif' } })).toBe(false);
    expect(templateLinkOk('DOCUMENT', 'https://cdn.example.com/terms.pdf')).toBe(true);
    expect(templateLinkOk('VIDEO', 'not a link')).toBe(false);
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
