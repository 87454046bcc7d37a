import type { TemplateView } from '@centralita/contracts';

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

/** Every parameter the template has is filled (providers refuse a template with a blank one). */
export function templateReady(template: Pick<TemplateView, 'parameterCount'>, values: readonly string[]): boolean {
  for (let index = 0; index < template.parameterCount; index += 1) if (!values[index]?.trim()) return false;
  return true;
}

/** The values to send: exactly parameterCount, trimmed. */
export function templateParameters(template: Pick<TemplateView, 'parameterCount'>, values: readonly string[]): string[] {
  return Array.from({ length: template.parameterCount }, (_, index) => (values[index] ?? '').trim());
}

/** One template of an account: name and language together (the same name exists per language). */
export function templateKey(template: Pick<TemplateView, 'name' | 'language'>): string {
  return `${template.name}|${template.language}`;
}
