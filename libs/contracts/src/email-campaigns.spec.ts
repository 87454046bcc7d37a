import { describe, expect, it } from '@jest/globals';
import {
  emailComponents,
  emailMappingProblem,
  emailParameterValues,
  emailTemplateProblem,
  htmlToPlainText,
  renderEmailTemplate,
  type EmailTemplateInput,
} from './email-campaigns';

const base: EmailTemplateInput = {
  accountId: 'a',
  name: 'novedades',
  language: 'es',
  subject: 'Hola {{1}}',
  html: '<p>Hola <b>{{1}}</b>, tienda en {{2}}</p>',
  text: null,
  examples: ['Ana', 'Sevilla'],
};

describe('email templates', () => {
  it('names the first problem: subject, one line, body, well-formed parameters, one example each', () => {
    expect(emailTemplateProblem(base)).toBeNull();
    expect(emailTemplateProblem({ ...base, subject: ' ' })).toBe('subject is required');
    expect(emailTemplateProblem({ ...base, subject: 'a\r\nBcc: x@y.z' })).toBe('subject must be one line');
    expect(emailTemplateProblem({ ...base, html: '', text: ' ' })).toBe('body is required (html or text)');
    expect(emailTemplateProblem({ ...base, html: 'Hola {{1}} {{3}}' })).toMatch(/^body: .*without gaps/);
    expect(emailTemplateProblem({ ...base, html: 'Hola {{nombre}}' })).toMatch(/is not a positional parameter/);
    expect(emailTemplateProblem({ ...base, examples: ['Ana'] })).toBe('examples must give one example for each of the 2 parameters');
    expect(emailTemplateProblem({ ...base, name: 'Con Espacios' })).toMatch(/^name must be/);
  });

  it('renders values escaped in the HTML, on one line in the subject, and a text part from the HTML when none is given', () => {
    const components = emailComponents(base);
    expect(renderEmailTemplate(components, ['<i>Luis</i>\r\nBcc: x', 'A&B'])).toEqual({
      subject: 'Hola <i>Luis</i> Bcc: x',
      html: '<p>Hola <b>&lt;i&gt;Luis&lt;/i&gt;\r\nBcc: x</b>, tienda en A&amp;B</p>',
      text: 'Hola <i>Luis</i>\r\nBcc: x, tienda en A&B',
    });
    expect(renderEmailTemplate(components).subject).toBe('Hola Ana');
    expect(renderEmailTemplate(emailComponents({ ...base, text: 'Texto {{2}}' })).text).toBe('Texto Sevilla');
    expect(htmlToPlainText('<p>a</p><script>x()</script><p>b &amp; c</p>')).toBe('a\nb & c');
  });
});

describe('email campaign mapping', () => {
  const columns = ['ciudad', 'email'];
  it('needs an existing address column and one source per parameter, columns among the list`s', () => {
    const body = [{ source: 'name' as const }, { source: 'column' as const, value: 'ciudad' }];
    expect(emailMappingProblem('email', { body }, 2, columns)).toBeNull();
    expect(emailMappingProblem(undefined, { body }, 2, columns)).toMatch(/^addressColumn is required/);
    expect(emailMappingProblem('correo', { body }, 2, columns)).toMatch(/the list has no column "correo"/);
    expect(emailMappingProblem('email', { body: body.slice(0, 1) }, 2, columns)).toMatch(/must map the template's 2 parameters/);
    expect(emailMappingProblem('email', { body: [body[0]!, { source: 'column', value: 'pais' }] }, 2, columns)).toMatch(
      /body\[1\]\.value must be one of the list's columns/,
    );
    expect(emailMappingProblem('email', { header: [{ source: 'name' }], body }, 2, columns)).toMatch(/header must be empty/);
  });

  it('takes values from the row (name, phone, a column, a fixed text), the fallback when empty', () => {
    const row = { phone: '+34600000001', name: null, fields: { ciudad: 'Bilbao' } };
    expect(
      emailParameterValues(
        [
          { source: 'name', fallback: 'cliente' },
          { source: 'column', value: 'CIUDAD' },
          { source: 'phone' },
          { source: 'fixed', value: 'hoy' },
        ],
        row,
      ),
    ).toEqual(['cliente', 'Bilbao', '+34600000001', 'hoy']);
  });
});
