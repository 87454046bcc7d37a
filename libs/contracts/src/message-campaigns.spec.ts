import {
  mappingProblem,
  metaComponents,
  positionalPlaceholders,
  renderPositional,
  templateProblem,
  type ChannelTemplateInput,
} from './message-campaigns';

const valid: ChannelTemplateInput = {
  accountId: '00000000-0000-4000-8000-000000000000',
  name: 'cita_recordatorio',
  language: 'es',
  category: 'UTILITY',
  header: { format: 'TEXT', text: 'Cita {{1}}', example: 'mañana' },
  body: { text: 'Hola {{1}}, tu cita es el {{2}}.', examples: ['Ana', '12 de mayo'] },
  footer: 'Centralita',
  buttons: [
    { type: 'QUICK_REPLY', text: 'Confirmar' },
    { type: 'URL', text: 'Ver', url: 'https://example.com/c' },
  ],
};

describe('message campaign rules', () => {
  it('accepts a template as Meta takes it', () => {
    expect(templateProblem(valid)).toBeNull();
  });

  it.each([
    [{ name: 'Cita' }, 'lowercase letters'],
    [{ language: 'spanish' }, 'language'],
    [{ category: 'PROMO' }, 'category'],
    [{ body: { text: '', examples: [] } }, 'body.text is required'],
    [{ body: { text: 'Hola {{1}} {{3}}', examples: ['a', 'b'] } }, 'without gaps'],
    [{ body: { text: 'Hola {{nombre}}', examples: ['a'] } }, 'not a positional parameter'],
    [{ body: { text: 'Hola {{1}}', examples: [] } }, 'one example for each of the 1 parameters'],
    [{ header: { format: 'TEXT', text: 'Cita {{1}} {{2}}', example: 'x' } }, 'at most one parameter'],
    [{ footer: 'x'.repeat(61) }, 'footer'],
    [{ buttons: [{ type: 'URL', text: 'Ver', url: 'http://insecure' }] }, 'https URL'],
    [{ buttons: [{ type: 'PHONE_NUMBER', text: 'Llamar', phoneNumber: '555' }] }, 'international number'],
  ] as [Partial<ChannelTemplateInput>, string][])('names what is wrong: %j', (change, expected) => {
    expect(templateProblem({ ...valid, ...change })).toContain(expected);
  });

  it("builds Meta's components with the examples", () => {
    expect(metaComponents(valid)).toEqual([
      { type: 'HEADER', format: 'TEXT', text: 'Cita {{1}}', example: { header_text: ['mañana'] } },
      { type: 'BODY', text: 'Hola {{1}}, tu cita es el {{2}}.', example: { body_text: [['Ana', '12 de mayo']] } },
      { type: 'FOOTER', text: 'Centralita' },
      {
        type: 'BUTTONS',
        buttons: [
          { type: 'QUICK_REPLY', text: 'Confirmar' },
          { type: 'URL', text: 'Ver', url: 'https://example.com/c' },
        ],
      },
    ]);
  });

  it('counts positional parameters once each and renders them, leaving missing ones visible', () => {
    expect(positionalPlaceholders('{{1}} {{2}} {{1}}')).toEqual({ count: 2, bad: null });
    expect(renderPositional('Hola {{1}}, {{2}}', ['Ana'])).toBe('Hola Ana, {{2}}');
  });

  it("checks a campaign's mapping against the template's parameters", () => {
    expect(mappingProblem({ body: [{ source: 'name' }] }, { header: 0, body: 1 })).toBeNull();
    expect(mappingProblem({ body: [] }, { header: 0, body: 1 })).toContain("template's 1 body parameters");
    expect(mappingProblem({ body: [{ source: 'fixed' }] }, { header: 0, body: 1 })).toContain('value is required');
    expect(mappingProblem({ body: [{ source: 'email' as 'name' }] }, { header: 0, body: 1 })).toContain('source must be one of');
  });
});
