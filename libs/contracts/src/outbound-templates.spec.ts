import {
  describeTemplateIssue,
  normaliseOutboundTemplate,
  OUTBOUND_TEMPLATE_LIMITS,
  renderOutboundTemplate,
  templatePlaceholders,
  validateOutboundTemplate,
  validateTemplateSamples,
  type TemplateParameter,
} from './outbound-templates';

const param = (key: string, patch: Partial<TemplateParameter> = {}): TemplateParameter => ({
  key,
  label: key,
  source: 'name',
  value: '',
  defaultValue: '',
  ...patch,
});

const valid = {
  name: 'Renewal',
  description: '',
  script: 'Hello {{name}}, your {{ plan }} plan ends soon.',
  parameters: [param('name'), param('plan', { source: 'fixed', value: 'Fibre 600' })],
};

describe('templatePlaceholders', () => {
  it('lists each placeholder once, in order, trimming the spaces inside the braces', () => {
    expect(templatePlaceholders('{{a}} {{ b }} {{a}} {{c}}')).toEqual(['a', 'b', 'c']);
    expect(templatePlaceholders('no placeholders, { single } braces')).toEqual([]);
  });
});

describe('validateOutboundTemplate', () => {
  it('accepts a template whose placeholders and parameters match', () => {
    expect(validateOutboundTemplate(valid)).toEqual([]);
  });

  it('requires name and script and checks their lengths', () => {
    expect(validateOutboundTemplate({ name: ' ', script: '' }).map((issue) => `${issue.field}:${issue.key}`)).toEqual([
      'name:required',
      'script:required',
    ]);
    const long = validateOutboundTemplate({ ...valid, name: 'x'.repeat(121), script: 'y'.repeat(OUTBOUND_TEMPLATE_LIMITS.scriptMax + 1) });
    expect(long.map((issue) => `${issue.field}:${issue.key}`)).toEqual(expect.arrayContaining(['name:maxLength', 'script:maxLength']));
  });

  it('names a placeholder that is not a declared parameter', () => {
    const issues = validateOutboundTemplate({ ...valid, script: `${valid.script} Call {{agent}}.` });
    expect(issues).toEqual([{ field: 'script', key: 'placeholderUndeclared', values: { key: 'agent' } }]);
    expect(describeTemplateIssue(issues[0])).toBe('script uses {{agent}}, which is not a declared parameter');
  });

  it('names a placeholder that cannot be a key', () => {
    const issues = validateOutboundTemplate({ ...valid, script: `${valid.script} {{2 bad}}` });
    expect(issues).toEqual([{ field: 'script', key: 'placeholderPattern', values: { key: '2 bad' } }]);
  });

  it('names a parameter the script never uses', () => {
    const issues = validateOutboundTemplate({ ...valid, parameters: [...valid.parameters, param('city')] });
    expect(issues).toEqual([{ field: 'parameters.2.key', key: 'parameterUnused', values: { key: 'city' } }]);
    expect(describeTemplateIssue(issues[0])).toBe("parameters.2.key 'city' is not used in the script");
  });

  it('refuses repeated, empty and malformed keys, unknown sources and a fixed parameter without text', () => {
    const issues = validateOutboundTemplate({
      ...valid,
      script: 'Hello {{name}}',
      parameters: [
        param('name'),
        param('name'),
        param(''),
        param('1st'),
        param('x', { source: 'email' as never }),
        { ...param('y'), source: 'fixed' },
      ],
    });
    expect(issues.map((issue) => `${issue.field}:${issue.key}`)).toEqual([
      'parameters.1.key:duplicate',
      'parameters.2.key:required',
      'parameters.3.key:pattern',
      'parameters.4.key:parameterUnused',
      'parameters.4.source:oneOf',
      'parameters.5.key:parameterUnused',
      'parameters.5.value:required',
    ]);
  });

  it('caps the number of parameters and refuses a parameters value that is not a list', () => {
    const many = Array.from({ length: OUTBOUND_TEMPLATE_LIMITS.parametersMax + 1 }, (_, i) => param(`p${i}`));
    const script = many.map((p) => `{{${p.key}}}`).join(' ');
    expect(validateOutboundTemplate({ name: 'Many', script, parameters: many })).toEqual([
      { field: 'parameters', key: 'tooMany', values: { max: OUTBOUND_TEMPLATE_LIMITS.parametersMax } },
    ]);
    expect(validateOutboundTemplate({ ...valid, parameters: 'name' })).toContainEqual({ field: 'parameters', key: 'pattern' });
  });
});

describe('renderOutboundTemplate', () => {
  it('fills contact fields and fixed values', () => {
    expect(renderOutboundTemplate(valid, { name: 'Lucía', phone: '+34600100101' })).toEqual({
      text: 'Hello Lucía, your Fibre 600 plan ends soon.',
      missing: [],
    });
  });

  it('uses the default when the contact lacks the value, and lists what has neither', () => {
    const template = {
      script: 'Hello {{name}}, we will call {{phone}} about {{offer}} ({{offer}}).',
      parameters: [param('name', { defaultValue: 'customer' }), param('phone', { source: 'phone' }), param('offer')],
    };
    expect(renderOutboundTemplate(template, { name: '  ', phone: null })).toEqual({
      text: 'Hello customer, we will call {{phone}} about {{offer}} ({{offer}}).',
      missing: ['phone', 'offer'],
    });
  });

  it('lets sample values override everything for a test send', () => {
    expect(renderOutboundTemplate(valid, null, { name: 'Test', plan: 'Mobile' }).text).toBe('Hello Test, your Mobile plan ends soon.');
    expect(renderOutboundTemplate(valid, null)).toEqual({ text: 'Hello {{name}}, your Fibre 600 plan ends soon.', missing: ['name'] });
  });
});

describe('normaliseOutboundTemplate and validateTemplateSamples', () => {
  it('trims texts and keeps a value only on fixed parameters', () => {
    const input = normaliseOutboundTemplate({
      name: ' Renewal ',
      script: ' Hi {{name}} ',
      parameters: [{ key: ' name ', label: ' Name ', source: 'name', value: 'ignored', defaultValue: ' there ' }],
    });
    expect(input).toEqual({
      name: 'Renewal',
      description: '',
      script: 'Hi {{name}}',
      parameters: [{ key: 'name', label: 'Name', source: 'name', value: '', defaultValue: 'there' }],
    });
  });

  it('names sample keys the template does not declare', () => {
    expect(validateTemplateSamples(valid.parameters, { name: 'A' })).toEqual([]);
    expect(validateTemplateSamples(valid.parameters, { name: 'A', city: 'B' })).toEqual([
      { field: 'values', key: 'unknown', values: { values: 'city' } },
    ]);
    expect(validateTemplateSamples(valid.parameters, ['x'])).toEqual([{ field: 'values', key: 'pattern' }]);
    expect(validateTemplateSamples(valid.parameters, { name: 5 })).toEqual([{ field: 'values', key: 'pattern' }]);
    expect(validateTemplateSamples(valid.parameters, { name: 'x'.repeat(OUTBOUND_TEMPLATE_LIMITS.valueMax + 1) })).toEqual([
      { field: 'values', key: 'maxLength', values: { count: OUTBOUND_TEMPLATE_LIMITS.valueMax } },
    ]);
  });
});
