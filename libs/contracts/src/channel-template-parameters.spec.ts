import {
  headerMediaProblem,
  namedPlaceholders,
  parameterFormatOf,
  templateParameterNames,
  templateSampleProblem,
} from './channel-template-parameters';
import { metaComponents, renderTemplate, templateProblem, type ChannelTemplateInput } from './message-campaigns';

const named: ChannelTemplateInput = {
  accountId: 'a',
  name: 'pedido',
  language: 'es',
  category: 'UTILITY',
  parameterFormat: 'NAMED',
  header: { format: 'TEXT', text: 'Pedido {{order_id}}', example: 'A-1' },
  body: { text: 'Hola {{first_name}}, el pedido {{order_id}} sale hoy. {{first_name}}, gracias.', examples: ['Ana', 'A-1'] },
};

describe('channel template parameters', () => {
  it('reads named placeholders in order of first use and names the first invalid one', () => {
    expect(namedPlaceholders('{{b_2}} {{a}} {{b_2}}')).toEqual({ names: ['b_2', 'a'], bad: null });
    expect(namedPlaceholders('{{first_name}} {{Last}}').bad).toContain('{{Last}} is not a named parameter');
    expect(namedPlaceholders('{{1}}').bad).toContain('{{1}}');
  });

  it('checks a NAMED template: valid names, one example per name, a positional template refuses names', () => {
    expect(templateProblem(named)).toBeNull();
    expect(templateProblem({ ...named, body: { ...named.body, examples: ['Ana'] } })).toContain('body.examples');
    expect(templateProblem({ ...named, body: { text: 'Hola {{FirstName}}', examples: ['Ana'] } })).toContain('{{FirstName}}');
    expect(templateProblem({ ...named, parameterFormat: 'POSITIONAL' })).toContain('is not a positional parameter');
    expect(templateProblem({ ...named, parameterFormat: 'BOTH' as never })).toContain('parameterFormat');
  });

  it("writes Meta's named examples and reads the format and names back from the components", () => {
    const components = metaComponents(named);
    expect(components[0]).toMatchObject({ example: { header_text_named_params: [{ param_name: 'order_id', example: 'A-1' }] } });
    expect(components[1]).toMatchObject({
      example: {
        body_text_named_params: [
          { param_name: 'first_name', example: 'Ana' },
          { param_name: 'order_id', example: 'A-1' },
        ],
      },
    });
    expect(parameterFormatOf(components)).toBe('NAMED');
    expect(templateParameterNames(components)).toEqual({
      format: 'NAMED',
      headerFormat: 'TEXT',
      header: ['order_id'],
      body: ['first_name', 'order_id'],
    });
    expect(templateParameterNames([{ type: 'BODY', text: '{{2}} y {{1}}' }])).toMatchObject({ format: 'POSITIONAL', body: ['1', '2'] });
  });

  it('renders a named template with its examples, or with values given in the order of the names', () => {
    const components = metaComponents(named);
    expect(renderTemplate(components, {})).toMatchObject({
      header: 'Pedido A-1',
      body: 'Hola Ana, el pedido A-1 sale hoy. Ana, gracias.',
    });
    expect(renderTemplate(components, { header: ['B-2'], body: ['Luis', 'B-2'] }).body).toBe(
      'Hola Luis, el pedido B-2 sale hoy. Luis, gracias.',
    );
  });

  it('checks a media header: its sample type and size, and the link or id of a send', () => {
    expect(templateSampleProblem('IMAGE', 'image/png', 1000)).toBeNull();
    expect(templateSampleProblem('IMAGE', 'application/pdf', 1000)).toContain('image/jpeg or image/png');
    expect(templateSampleProblem('IMAGE', 'image/png', 5 * 1024 * 1024 + 1)).toContain('at most 5 MB');
    expect(templateSampleProblem('DOCUMENT', 'application/pdf', 0)).toContain('empty');
    expect(headerMediaProblem('IMAGE', { link: 'https://x.example/a.JPG' })).toBeNull();
    expect(headerMediaProblem('IMAGE', null)).toContain('headerMedia is required');
    expect(headerMediaProblem('IMAGE', { link: 'http://x.example/a.png' })).toContain('https');
    expect(headerMediaProblem('VIDEO', { link: 'https://x.example/a.png' })).toContain('mp4');
    expect(headerMediaProblem('DOCUMENT', { id: '123456', link: 'https://x.example/a.pdf' })).toContain('exactly one');
    expect(headerMediaProblem('TEXT', { link: 'https://x.example/a.png' })).toContain('only for templates');
    expect(headerMediaProblem(null, undefined)).toBeNull();
  });
});
