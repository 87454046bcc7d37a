/**
 * Named parameters and media headers of WhatsApp templates (issue 21), shared by the API, the
 * worker and the console.
 *
 * Meta's templates take either positional parameters ({{1}}, {{2}}…, `parameter_format`
 * POSITIONAL, examples in `body_text`) or named ones ({{first_name}}, `parameter_format` NAMED,
 * examples in `body_text_named_params` as `{param_name, example}`, sent with `parameter_name` in
 * each parameter). A template is one or the other: the format is read back from its components, so
 * a stored template needs no extra column.
 */

export const PARAMETER_FORMATS = ['POSITIONAL', 'NAMED'] as const;
export type ParameterFormat = (typeof PARAMETER_FORMATS)[number];

/** A named parameter: a lowercase letter, then lowercase letters, digits or underscores (Meta's rule), at most 60. */
export const NAMED_PARAMETER_PATTERN = /^[a-z][a-z0-9_]{0,59}$/;

export const TEMPLATE_MEDIA_FORMATS = ['IMAGE', 'VIDEO', 'DOCUMENT'] as const;
export type TemplateMediaFormat = (typeof TEMPLATE_MEDIA_FORMATS)[number];
export type TemplateHeaderFormat = 'TEXT' | TemplateMediaFormat;

const MB = 1024 * 1024;

/**
 * What a media header takes, from Meta's supported media types: images JPEG/PNG up to 5 MB, video
 * MP4/3GPP up to 16 MB, documents (a template header document is a PDF) up to 100 MB. The sample
 * sent for review goes through the Resumable Upload API, which takes PDF, JPEG, PNG and MP4 only.
 */
export const TEMPLATE_MEDIA_LIMITS: Record<TemplateMediaFormat, { maxBytes: number; mimeTypes: string[]; extensions: string[] }> = {
  IMAGE: { maxBytes: 5 * MB, mimeTypes: ['image/jpeg', 'image/png'], extensions: ['jpg', 'jpeg', 'png'] },
  VIDEO: { maxBytes: 16 * MB, mimeTypes: ['video/mp4', 'video/3gpp'], extensions: ['mp4', '3gp', '3gpp'] },
  DOCUMENT: { maxBytes: 100 * MB, mimeTypes: ['application/pdf'], extensions: ['pdf'] },
};
/** Types the Resumable Upload API takes for a template's sample. */
export const TEMPLATE_SAMPLE_TYPES = ['image/jpeg', 'image/png', 'video/mp4', 'application/pdf'] as const;

/** The distinct {{name}} of a text, in order of first use; `bad` names the first placeholder that is not a valid name. */
export function namedPlaceholders(text: string): { names: string[]; bad: string | null } {
  const all = [...text.matchAll(/\{\{\s*([^}]*?)\s*\}\}/g)].map((match) => match[1]);
  const invalid = all.find((value) => !NAMED_PARAMETER_PATTERN.test(value));
  if (invalid !== undefined) {
    return {
      names: [],
      bad: `{{${invalid}}} is not a named parameter (a lowercase letter, then lowercase letters, digits or _, at most 60)`,
    };
  }
  return { names: [...new Set(all)], bad: null };
}

type Component = Record<string, unknown>;

/** NAMED when the template's body or header carries named examples or a non-numeric placeholder. */
export function parameterFormatOf(components: Component[]): ParameterFormat {
  for (const component of components) {
    const example = component.example as Record<string, unknown> | undefined;
    if (example?.body_text_named_params || example?.header_text_named_params) return 'NAMED';
    if (typeof component.text === 'string' && (component.type === 'BODY' || component.type === 'HEADER')) {
      const placeholders = [...component.text.matchAll(/\{\{\s*([^}]*?)\s*\}\}/g)].map((match) => match[1]);
      if (placeholders.some((value) => !/^\d+$/.test(value))) return 'NAMED';
    }
  }
  return 'POSITIONAL';
}

/** The header's format (null when the template has no header). */
export function headerFormatOf(components: Component[]): TemplateHeaderFormat | null {
  const header = components.find((one) => one.type === 'HEADER');
  if (!header) return null;
  return (String(header.format ?? 'TEXT').toUpperCase() as TemplateHeaderFormat) ?? 'TEXT';
}

/**
 * A template's parameters as the send must fill them, in order: names for a NAMED template, '1',
 * '2'… for a positional one (header then body).
 */
export function templateParameterNames(components: Component[]): {
  format: ParameterFormat;
  headerFormat: TemplateHeaderFormat | null;
  header: string[];
  body: string[];
} {
  const format = parameterFormatOf(components);
  const textOf = (type: string) => {
    const component = components.find((one) => one.type === type);
    return component && String(component.format ?? 'TEXT').toUpperCase() === 'TEXT' && typeof component.text === 'string'
      ? component.text
      : '';
  };
  const names = (text: string): string[] =>
    format === 'NAMED'
      ? namedPlaceholders(text).names
      : [...new Set([...text.matchAll(/\{\{\s*([1-9]\d*)\s*\}\}/g)].map((match) => match[1]))].sort((a, b) => Number(a) - Number(b));
  return { format, headerFormat: headerFormatOf(components), header: names(textOf('HEADER')), body: names(textOf('BODY')) };
}

/** `{{name}}` → values[name] (a name without value stays as written). */
export function renderNamed(text: string, values: Record<string, string>): string {
  return text.replace(/\{\{\s*([a-z][a-z0-9_]*)\s*\}\}/g, (whole, name: string) => values[name] || whole);
}

/** A media header's content at send time: a public https link, or a provider media id. */
export interface HeaderMediaInput {
  link?: string;
  id?: string;
  /** A document's file name as the customer sees it. */
  fileName?: string;
}

/**
 * The first problem of a media header given for a template's header format (null when fine). A link
 * must be https and name a file of the header's kind (its extension), since Meta fetches it at send
 * time and refuses other types (its size is checked by Meta then: the limits are in TEMPLATE_MEDIA_LIMITS).
 */
export function headerMediaProblem(
  headerFormat: TemplateHeaderFormat | null,
  media: HeaderMediaInput | null | undefined,
  field = 'headerMedia',
): string | null {
  if (!headerFormat || headerFormat === 'TEXT') {
    return media ? `${field} is only for templates with an image, video or document header` : null;
  }
  if (!media || typeof media !== 'object') return `${field} is required: the template's header is a ${headerFormat.toLowerCase()}`;
  const link = typeof media.link === 'string' ? media.link.trim() : '';
  const id = typeof media.id === 'string' ? media.id.trim() : '';
  if (!link === !id) return `${field} needs exactly one of link (https URL) or id (an uploaded media id)`;
  if (id && !/^\d{1,30}$/.test(id)) return `${field}.id must be a WhatsApp media id (digits)`;
  if (link) {
    let url: URL;
    try {
      url = new URL(link);
    } catch {
      return `${field}.link must be an https URL`;
    }
    if (url.protocol !== 'https:' || link.length > 2000) return `${field}.link must be an https URL`;
    const extension = url.pathname.split('.').pop()?.toLowerCase() ?? '';
    const limits = TEMPLATE_MEDIA_LIMITS[headerFormat];
    if (!limits.extensions.includes(extension)) {
      return `${field}.link must name a ${limits.extensions.join(', ')} file for a ${headerFormat.toLowerCase()} header`;
    }
  }
  if (media.fileName !== undefined && (typeof media.fileName !== 'string' || media.fileName.length > 240)) {
    return `${field}.fileName must be text of at most 240 characters`;
  }
  return null;
}

/** The first problem of a template sample's type and size for a header format, or null. */
export function templateSampleProblem(headerFormat: string, mimeType: string, size: number): string | null {
  const limits = TEMPLATE_MEDIA_LIMITS[headerFormat as TemplateMediaFormat];
  if (!limits) return 'format must be IMAGE, VIDEO or DOCUMENT';
  const type = mimeType.split(';')[0].trim().toLowerCase();
  if (!limits.mimeTypes.includes(type) || !(TEMPLATE_SAMPLE_TYPES as readonly string[]).includes(type)) {
    return `a ${headerFormat.toLowerCase()} sample must be ${limits.mimeTypes.filter((one) => (TEMPLATE_SAMPLE_TYPES as readonly string[]).includes(one)).join(' or ')}`;
  }
  if (size <= 0) return 'the sample file is empty';
  if (size > limits.maxBytes) return `a ${headerFormat.toLowerCase()} sample is at most ${limits.maxBytes / MB} MB`;
  return null;
}
