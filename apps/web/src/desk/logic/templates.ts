import { TEMPLATE_MEDIA_LIMITS, type TemplateMediaFormat, TEMPLATE_CATEGORIES, type TemplateView } from '@centralita/contracts';

/** A piece of a template body: literal text, or the n-th (1-based) parameter (`key`: its number or name) with what the agent typed. */
export type TemplateSegment = { text: string } | { parameter: number; key: string; value: string | null };

const PLACEHOLDER = /\{\{\s*([a-z0-9_]+)\s*\}\}/g;

/**
 * The body split around its placeholders, each filled with the agent's value (null while still
 * blank), so the preview shows the message as the customer will read it and marks the gaps.
 * Positional {{n}} take the n-th value; a NAMED template's {{first_name}} the value at its name's
 * place in `names`.
 */
export function templateSegments(body: string, values: readonly string[], names?: readonly string[]): TemplateSegment[] {
  const segments: TemplateSegment[] = [];
  let last = 0;
  for (const match of body.matchAll(PLACEHOLDER)) {
    const key = match[1];
    const index = names?.length ? names.indexOf(key) : /^\d+$/.test(key) ? Number(key) - 1 : -1;
    if (index < 0) continue;
    if (match.index > last) segments.push({ text: body.slice(last, match.index) });
    const value = values[index]?.trim();
    segments.push({ parameter: index + 1, key, value: value ? value : null });
    last = match.index + match[0].length;
  }
  if (last < body.length) segments.push({ text: body.slice(last) });
  return segments;
}

/** The body with every filled placeholder replaced; blank ones stay as written ({{n}} or {{name}}). */
export function renderTemplate(body: string, values: readonly string[], names?: readonly string[]): string {
  return templateSegments(body, values, names)
    .map((segment) => ('text' in segment ? segment.text : (segment.value ?? `{{${segment.key}}}`)))
    .join('');
}

/**
 * What the agent typed: the text header's parameters and the body's, each in {{n}} order (a NAMED
 * template's in the order of its parameter names), and a media header's link or picked file.
 */
export interface TemplateValues {
  header: readonly string[];
  body: readonly string[];
  mediaLink?: string;
  mediaFile?: { name: string; type: string; size: number } | null;
}

/** IMAGE, VIDEO or DOCUMENT when the template's header is a medium the agent must give, else null. */
export function templateMediaFormat(template: Pick<TemplateView, 'headerFormat'>): TemplateMediaFormat | null {
  const format = template.headerFormat;
  return format && format !== 'TEXT' ? format : null;
}

/**
 * Why a picked file cannot be a media header of this format (the translation key and its values),
 * or null: the types and sizes WhatsApp takes (TEMPLATE_MEDIA_LIMITS, as the API checks them).
 */
export function templateFileProblem(
  format: TemplateMediaFormat,
  file: { type: string; size: number },
): {
  key: 'desk.templates.mediaType' | 'desk.templates.mediaTooLarge' | 'desk.templates.mediaEmpty';
  types: string;
  megabytes: number;
} | null {
  const limits = TEMPLATE_MEDIA_LIMITS[format];
  const details = { types: limits.extensions.join(', '), megabytes: limits.maxBytes / 1024 / 1024 };
  if (!limits.mimeTypes.includes(file.type.toLowerCase())) return { key: 'desk.templates.mediaType', ...details };
  if (file.size <= 0) return { key: 'desk.templates.mediaEmpty', ...details };
  if (file.size > limits.maxBytes) return { key: 'desk.templates.mediaTooLarge', ...details };
  return null;
}

/** A link the API takes for a media header: https, naming a file of the header's kind. */
export function templateLinkOk(format: TemplateMediaFormat, link: string): boolean {
  try {
    const url = new URL(link.trim());
    const extension = url.pathname.split('.').pop()?.toLowerCase() ?? '';
    return url.protocol === 'https:' && TEMPLATE_MEDIA_LIMITS[format].extensions.includes(extension);
  } catch {
    return false;
  }
}

const filled = (count: number, values: readonly string[]) =>
  Array.from({ length: count }, (_, index) => values[index]?.trim()).every(Boolean);
const exactly = (count: number, values: readonly string[]) => Array.from({ length: count }, (_, index) => (values[index] ?? '').trim());

/**
 * Every parameter the template has, header and body, is filled (providers refuse a template with a
 * blank one), and a media header has a usable link or an acceptable file.
 */
export function templateReady(
  template: Pick<TemplateView, 'parameterCount' | 'headerParameterCount' | 'headerFormat'>,
  values: TemplateValues,
): boolean {
  const format = templateMediaFormat(template);
  const media = !format
    ? true
    : values.mediaFile
      ? templateFileProblem(format, values.mediaFile) === null
      : templateLinkOk(format, values.mediaLink ?? '');
  return media && filled(template.headerParameterCount, values.header) && filled(template.parameterCount, values.body);
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
