import { TEMPLATE_CATEGORIES, type TemplateView } from '@centralita/contracts';

/** A piece of a template body: literal text, or the n-th (1-based) parameter with what the agent typed. */
export type TemplateSegment = { text: string } | { parameter: number; value: string | null };

const PLACEHOLDER = /\{\{\s*(\d+)\s*\}\}/g;

/**
 * The body split around its {{n}} placeholders, each filled with the agent's n-th value (null while
 * still blank), so the preview shows the message as the customer will read it and marks the gaps.
 */
export function templateSegments(body: string, values: readonly string[]): TemplateSegment[] {
  const segments: TemplateSegment[] = [];
  let last = 0;
  for (const match of body.matchAll(PLACEHOLDER)) {
    if (match.index > last) segments.push({ text: body.slice(last, match.index) });
    const parameter = Number(match[1]);
    const value = values[parameter - 1]?.trim();
    segments.push({ parameter, value: value ? value : null });
    last = match.index + match[0].length;
  }
  if (last < body.length) segments.push({ text: body.slice(last) });
  return segments;
}

/** The body with every filled placeholder replaced; blank ones stay as {{n}}. */
export function renderTemplate(body: string, values: readonly string[]): string {
  return templateSegments(body, values)
    .map((segment) => ('text' in segment ? segment.text : (segment.value ?? `{{${segment.parameter}}}`)))
    .join('');
}

/** What the agent typed: the text header's parameters and the body's, each in {{n}} order. */
export interface TemplateValues {
  header: readonly string[];
  body: readonly string[];
}

const filled = (count: number, values: readonly string[]) =>
  Array.from({ length: count }, (_, index) => values[index]?.trim()).every(Boolean);
const exactly = (count: number, values: readonly string[]) => Array.from({ length: count }, (_, index) => (values[index] ?? '').trim());

/** Every parameter the template has, header and body, is filled (providers refuse a template with a blank one). */
export function templateReady(template: Pick<TemplateView, 'parameterCount' | 'headerParameterCount'>, values: TemplateValues): boolean {
  return filled(template.headerParameterCount, values.header) && filled(template.parameterCount, values.body);
}

/** The values to send: exactly as many as the header and the body take, trimmed (no header parameters when it takes none). */
export function templateParameters(
  template: Pick<TemplateView, 'parameterCount' | 'headerParameterCount'>,
  values: TemplateValues,
): { bodyParameters: string[]; headerParameters?: string[] } {
  const bodyParameters = exactly(template.parameterCount, values.body);
  return template.headerParameterCount
    ? { bodyParameters, headerParameters: exactly(template.headerParameterCount, values.header) }
    : { bodyParameters };
}

/** Meta's category word as a translation key when the console names it (TEMPLATE_CATEGORIES), else null (shown as sent). */
export function templateCategoryKey(category: string): string | null {
  return (TEMPLATE_CATEGORIES as readonly string[]).includes(category) ? `desk.templates.category.${category}` : null;
}

/** One template of an account: name and language together (the same name exists per language). */
export function templateKey(template: Pick<TemplateView, 'name' | 'language'>): string {
  return `${template.name}|${template.language}`;
}
