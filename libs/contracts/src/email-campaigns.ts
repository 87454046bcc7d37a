import { positionalPlaceholders, renderPositional, type ParameterSourceInput } from './message-campaigns';

/**
 * Email templates and email campaigns (issue 21, "or email, through the email channel"), shared by
 * the API, the worker and the console.
 *
 * An email template is a channel template (channel_templates) of an email account with category
 * EMAIL: a subject and a body (HTML, plain text or both) with the renderer's positional parameters
 * ({{1}}, {{2}}… shared by subject and body) and one example per parameter for the preview. No
 * provider reviews it: it is usable (status APPROVED) once saved.
 */
export const EMAIL_TEMPLATE_CATEGORY = 'EMAIL';
export const EMAIL_TEMPLATE_LIMITS = { subjectMax: 200, bodyMax: 100_000, exampleMax: 200 } as const;
/** The pace of an account's campaign mail when its setting `campaignPerMinute` is empty. */
export const EMAIL_CAMPAIGN_DEFAULT_PER_MINUTE = 60;
export const EMAIL_CAMPAIGN_MAX_PER_MINUTE = 6000;
/** Why an email recipient was skipped. */
export const EMAIL_SKIP_REASONS = ['invalid_address', 'duplicate', 'mail_blacklisted', 'unsubscribed', 'opted_out'] as const;
/** A list column name as imported (its header, lower-cased). */
export const LIST_COLUMN_PATTERN = /^[^\u0000-\u001f]{1,60}$/;

export interface EmailTemplateInput {
  accountId: string;
  name: string;
  language: string;
  subject: string;
  html?: string | null;
  text?: string | null;
  examples: string[];
}

/** The parameters of subject + text + html together: how many, or what is wrong. */
export function emailPlaceholders(input: { subject?: unknown; text?: unknown; html?: unknown }): { count: number; bad: string | null } {
  const all = [input.subject, input.text, input.html].filter((part): part is string => typeof part === 'string').join('\n');
  return positionalPlaceholders(all);
}

/** The first problem of an email template, or null (each names its field). */
export function emailTemplateProblem(input: Partial<EmailTemplateInput>): string | null {
  if (typeof input.name !== 'string' || !/^[a-z0-9_]{1,512}$/.test(input.name)) {
    return 'name must be 1 to 512 lowercase letters, digits or underscores';
  }
  if (typeof input.language !== 'string' || !/^[a-z]{2,3}(_[A-Z]{2})?$/.test(input.language)) {
    return 'language must be a language code such as es, en or pt_BR';
  }
  if (typeof input.subject !== 'string' || !input.subject.trim()) return 'subject is required';
  if (input.subject.length > EMAIL_TEMPLATE_LIMITS.subjectMax)
    return `subject is longer than ${EMAIL_TEMPLATE_LIMITS.subjectMax} characters`;
  if (/[\r\n]/.test(input.subject)) return 'subject must be one line';
  for (const part of ['html', 'text'] as const) {
    const value = input[part];
    if (value !== undefined && value !== null && typeof value !== 'string') return `${part} must be text`;
    if (typeof value === 'string' && value.length > EMAIL_TEMPLATE_LIMITS.bodyMax) {
      return `${part} is longer than ${EMAIL_TEMPLATE_LIMITS.bodyMax} characters`;
    }
  }
  if (!(input.html ?? '').trim() && !(input.text ?? '').trim()) return 'body is required (html or text)';
  const parameters = emailPlaceholders(input);
  if (parameters.bad) return `body: ${parameters.bad}`;
  const examples = Array.isArray(input.examples) ? input.examples : [];
  if (examples.length !== parameters.count || examples.some((example) => typeof example !== 'string' || !example.trim())) {
    return `examples must give one example for each of the ${parameters.count} parameters`;
  }
  if (examples.some((example) => example.length > EMAIL_TEMPLATE_LIMITS.exampleMax)) {
    return `an example is longer than ${EMAIL_TEMPLATE_LIMITS.exampleMax} characters`;
  }
  return null;
}

/** The components an email template is stored as (SUBJECT, BODY with the text and the examples, HTML). */
export function emailComponents(input: EmailTemplateInput): Record<string, unknown>[] {
  return [
    { type: 'SUBJECT', text: input.subject.trim() },
    {
      type: 'BODY',
      format: 'TEXT',
      text: input.text ?? '',
      ...(input.examples.length ? { example: { body_text: [input.examples] } } : {}),
    },
    ...((input.html ?? '').trim() ? [{ type: 'HTML', text: input.html }] : []),
  ];
}

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string | null;
}

const escapeHtml = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Text of an HTML body for the plain-text part when the template has none (tags dropped, entities of the basic five read). */
export function htmlToPlainText(html: string): string {
  return html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|h[1-6]|li|tr)>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * An email template with values ({{n}} → values[n-1]; the examples when no values are given): the
 * values are escaped in the HTML part and stripped of line breaks in the subject (no header injection).
 */
export function renderEmailTemplate(components: Record<string, unknown>[], values?: string[]): RenderedEmail {
  const textOf = (type: string) => {
    const found = components.find((one) => one.type === type);
    return typeof found?.text === 'string' ? found.text : '';
  };
  const examples =
    ((components.find((one) => one.type === 'BODY')?.example as { body_text?: string[][] } | undefined)?.body_text?.[0] as string[]) ?? [];
  const given = values?.length ? values : examples;
  const html = textOf('HTML');
  const text = textOf('BODY');
  const renderedHtml = html.trim() ? renderPositional(html, given.map(escapeHtml)) : null;
  return {
    subject: renderPositional(
      textOf('SUBJECT'),
      given.map((value) => value.replace(/[\r\n]+/g, ' ')),
    ).trim(),
    text: text.trim() ? renderPositional(text, given) : htmlToPlainText(renderedHtml ?? ''),
    html: renderedHtml,
  };
}

/** The first problem of an email campaign's address column and parameter mapping, or null. */
export function emailMappingProblem(
  addressColumn: unknown,
  mapping: { header?: ParameterSourceInput[]; body?: ParameterSourceInput[] } | undefined,
  parameterCount: number,
  columns: string[],
): string | null {
  if (typeof addressColumn !== 'string' || !LIST_COLUMN_PATTERN.test(addressColumn)) {
    return 'addressColumn is required: the list column with the email addresses';
  }
  if (!columns.includes(addressColumn.toLowerCase())) {
    return `addressColumn: the list has no column "${addressColumn}" (it has ${columns.length ? columns.join(', ') : 'no other columns'})`;
  }
  if ((mapping?.header ?? []).length) return 'parameterMapping.header must be empty for an email template';
  const sources = mapping?.body ?? [];
  if (!Array.isArray(sources) || sources.length !== parameterCount) {
    return `parameterMapping.body must map the template's ${parameterCount} parameters`;
  }
  for (const [index, source] of sources.entries()) {
    const kinds = ['name', 'phone', 'fixed', 'column'];
    if (!source || !kinds.includes(source.source)) return `parameterMapping.body[${index}].source must be one of ${kinds.join(', ')}`;
    if (source.source === 'fixed' && (typeof source.value !== 'string' || !source.value.trim())) {
      return `parameterMapping.body[${index}].value is required for a fixed parameter`;
    }
    if (source.source === 'column' && (typeof source.value !== 'string' || !columns.includes(source.value.toLowerCase()))) {
      return `parameterMapping.body[${index}].value must be one of the list's columns (${columns.join(', ')})`;
    }
    if (source.value !== undefined && (typeof source.value !== 'string' || source.value.length > 200)) {
      return `parameterMapping.body[${index}].value must be text of at most 200 characters`;
    }
    if (source.fallback !== undefined && (typeof source.fallback !== 'string' || source.fallback.length > 200)) {
      return `parameterMapping.body[${index}].fallback must be text of at most 200 characters`;
    }
  }
  return null;
}

/** A recipient's parameter values from its list row (name, phone, a fixed text or a column), the fallback when empty. */
export function emailParameterValues(
  sources: ParameterSourceInput[] | undefined,
  row: { phone: string; name: string | null; fields: Record<string, string> | null },
): string[] {
  return (sources ?? []).map((source) => {
    const kind = source.source as string;
    const raw =
      kind === 'fixed'
        ? (source.value ?? '')
        : kind === 'name'
          ? (row.name ?? '')
          : kind === 'column'
            ? (row.fields?.[(source.value ?? '').toLowerCase()] ?? '')
            : row.phone;
    return raw.trim() ? raw.trim() : (source.fallback ?? '').trim();
  });
}
