/**
 * Outbound campaign templates (/OutboundCampaign/CreateTemplates, /OutboundCampaign/SubmitTemplates):
 * the script an agent reads on an outbound call, with `{{parameter}}` placeholders filled from the
 * contact's phone-list row (or a fixed value), and the rules shared by the API and the console.
 */
import type { RuleKey } from './admin';

export const OUTBOUND_TEMPLATE_LIMITS = {
  nameMax: 120,
  descriptionMax: 500,
  /** The script the agent reads: a few paragraphs, not a document. */
  scriptMax: 4000,
  parametersMax: 30,
  keyMax: 40,
  labelMax: 80,
  valueMax: 500,
} as const;

/**
 * What a phone-list row holds about a contact (phone_list_entries: phone, name; the import keeps
 * nothing else), and so what a parameter can be filled from.
 */
export const TEMPLATE_CONTACT_FIELDS = ['name', 'phone'] as const;
export type TemplateContactField = (typeof TEMPLATE_CONTACT_FIELDS)[number];

/** A contact field, or 'fixed': the same text for every contact (a product name, a price). */
export const TEMPLATE_PARAMETER_SOURCES = [...TEMPLATE_CONTACT_FIELDS, 'fixed'] as const;
export type TemplateParameterSource = (typeof TEMPLATE_PARAMETER_SOURCES)[number];

/** A parameter key: a letter, then letters, digits or underscores (`{{firstName}}`, `{{plan_2}}`). */
export const TEMPLATE_KEY_PATTERN = /^[A-Za-z][A-Za-z0-9_]*$/;

/** `{{ key }}`: spaces inside the braces are allowed; anything between the braces is captured. */
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

export interface TemplateParameter {
  key: string;
  label: string;
  source: TemplateParameterSource;
  /** The text of a 'fixed' parameter (ignored for contact fields). */
  value: string;
  /** Used when the contact lacks the value; empty = the value is reported missing. */
  defaultValue: string;
}

export interface OutboundTemplateInput {
  name: string;
  description: string;
  script: string;
  parameters: TemplateParameter[];
}

export interface OutboundTemplateView extends OutboundTemplateInput {
  id: string;
  /** Campaigns (not deleted) that use the template. */
  campaignCount: number;
  createdAt: string;
  updatedAt: string;
}

/** The contact a script is rendered for: the phone-list row's fields. */
export type TemplateContact = Partial<Record<TemplateContactField, string | null>>;

/** A script rendered for one contact: shown in the agent's screen pop and answered by "test send". */
export interface RenderedScript {
  templateId: string;
  templateName: string;
  text: string;
  /** Keys of parameters with no value and no default (their placeholder stays in the text). */
  missing: string[];
}

/** POST /api/outbound/templates/:id/test: a contact (outbound contact or phone-list row) and/or sample values per key. */
export interface TemplateTestInput {
  contactId?: string | null;
  values?: Record<string, string>;
}

export interface TemplateTestResult extends RenderedScript {
  contact: { name: string | null; phone: string | null } | null;
}

/** Template-specific problems; the console translates them under outboundTemplates.issues. */
export type TemplateRuleKey = 'placeholderUndeclared' | 'placeholderPattern' | 'parameterUnused' | 'tooMany';

export interface TemplateIssue {
  /** 'script', 'parameters', or one parameter's field: 'parameters.2.key'. */
  field: string;
  key: RuleKey | TemplateRuleKey;
  values?: Record<string, string | number>;
}

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

/** The placeholders of a script in order of first use (as written between the braces, trimmed). */
export function templatePlaceholders(script: string): string[] {
  const seen: string[] = [];
  for (const match of script.matchAll(PLACEHOLDER)) if (!seen.includes(match[1])) seen.push(match[1]);
  return seen;
}

/** Shared by the API and the console (same fields, same keys). */
export function validateOutboundTemplate(input: Partial<Record<keyof OutboundTemplateInput, unknown>>): TemplateIssue[] {
  const L = OUTBOUND_TEMPLATE_LIMITS;
  const issues: TemplateIssue[] = [];
  const name = text(input.name);
  if (!name) issues.push({ field: 'name', key: 'required' });
  else if (name.length > L.nameMax) issues.push({ field: 'name', key: 'maxLength', values: { count: L.nameMax } });
  if (text(input.description).length > L.descriptionMax)
    issues.push({ field: 'description', key: 'maxLength', values: { count: L.descriptionMax } });
  const script = typeof input.script === 'string' ? input.script : '';
  if (!script.trim()) issues.push({ field: 'script', key: 'required' });
  else if (script.length > L.scriptMax) issues.push({ field: 'script', key: 'maxLength', values: { count: L.scriptMax } });

  if (input.parameters !== undefined && input.parameters !== null && !Array.isArray(input.parameters)) {
    issues.push({ field: 'parameters', key: 'pattern' });
    return issues;
  }
  const parameters = (Array.isArray(input.parameters) ? input.parameters : []) as Partial<Record<keyof TemplateParameter, unknown>>[];
  if (parameters.length > L.parametersMax) issues.push({ field: 'parameters', key: 'tooMany', values: { max: L.parametersMax } });
  const keys = new Set<string>();
  parameters.forEach((parameter, index) => {
    const at = (field: keyof TemplateParameter) => `parameters.${index}.${field}`;
    if (typeof parameter !== 'object' || parameter === null) {
      issues.push({ field: `parameters.${index}`, key: 'pattern' });
      return;
    }
    const key = text(parameter.key);
    if (!key) issues.push({ field: at('key'), key: 'required' });
    else if (key.length > L.keyMax) issues.push({ field: at('key'), key: 'maxLength', values: { count: L.keyMax } });
    else if (!TEMPLATE_KEY_PATTERN.test(key)) issues.push({ field: at('key'), key: 'pattern', values: { key } });
    else if (keys.has(key)) issues.push({ field: at('key'), key: 'duplicate', values: { key } });
    else if (!templatePlaceholders(script).includes(key)) issues.push({ field: at('key'), key: 'parameterUnused', values: { key } });
    if (key) keys.add(key);
    if (text(parameter.label).length > L.labelMax) issues.push({ field: at('label'), key: 'maxLength', values: { count: L.labelMax } });
    if (!TEMPLATE_PARAMETER_SOURCES.includes(parameter.source as TemplateParameterSource))
      issues.push({ field: at('source'), key: 'oneOf', values: { options: TEMPLATE_PARAMETER_SOURCES.join(', ') } });
    else if (parameter.source === 'fixed' && !text(parameter.value)) issues.push({ field: at('value'), key: 'required' });
    if (text(parameter.value).length > L.valueMax) issues.push({ field: at('value'), key: 'maxLength', values: { count: L.valueMax } });
    if (text(parameter.defaultValue).length > L.valueMax)
      issues.push({ field: at('defaultValue'), key: 'maxLength', values: { count: L.valueMax } });
  });
  // Every placeholder of the script must be a declared parameter (one issue per placeholder).
  for (const placeholder of templatePlaceholders(script)) {
    if (!TEMPLATE_KEY_PATTERN.test(placeholder) || placeholder.length > L.keyMax)
      issues.push({ field: 'script', key: 'placeholderPattern', values: { key: placeholder } });
    else if (!keys.has(placeholder)) issues.push({ field: 'script', key: 'placeholderUndeclared', values: { key: placeholder } });
  }
  return issues;
}

/** English text of an issue (the API's message; the console shows its own translation). */
export function describeTemplateIssue(issue: TemplateIssue): string {
  const v = issue.values ?? {};
  switch (issue.key) {
    case 'placeholderUndeclared':
      return `${issue.field} uses {{${v.key}}}, which is not a declared parameter`;
    case 'placeholderPattern':
      return `${issue.field} has a placeholder {{${v.key}}} that is not a valid parameter key (a letter, then letters, digits or _)`;
    case 'parameterUnused':
      return `${issue.field} '${v.key}' is not used in the script`;
    case 'tooMany':
      return `${issue.field} can hold at most ${v.max} parameters`;
    case 'duplicate':
      return `${issue.field} '${v.key}' is declared twice`;
    case 'pattern':
      return v.key !== undefined
        ? `${issue.field} '${v.key}' must start with a letter and hold only letters, digits or _`
        : `${issue.field} is not in the expected format`;
    case 'required':
      return `${issue.field} is required`;
    case 'maxLength':
      return `${issue.field} must be at most ${v.count} characters`;
    case 'oneOf':
      return `${issue.field} must be one of ${v.options}`;
    case 'unknown':
      return `${issue.field} has unknown values: ${v.values}`;
    default:
      return `${issue.field} is not valid`;
  }
}

/** The input as stored: trimmed texts, parameters in the given order, value only for fixed ones. */
export function normaliseOutboundTemplate(input: Partial<Record<keyof OutboundTemplateInput, unknown>>): OutboundTemplateInput {
  const parameters = (Array.isArray(input.parameters) ? input.parameters : []) as Partial<Record<keyof TemplateParameter, unknown>>[];
  return {
    name: text(input.name),
    description: text(input.description),
    script: typeof input.script === 'string' ? input.script.trim() : '',
    parameters: parameters.map((p) => ({
      key: text(p.key),
      label: text(p.label),
      source: p.source as TemplateParameterSource,
      value: p.source === 'fixed' ? text(p.value) : '',
      defaultValue: text(p.defaultValue),
    })),
  };
}

/**
 * Fills the script's placeholders for one contact. A parameter's value is, in order: the explicit
 * sample value for its key (test send), the fixed text, the contact's field, the default. A
 * parameter with none of them is listed in `missing` and its placeholder stays in the text, so the
 * agent sees what is unknown instead of a silently shortened sentence.
 */
export function renderOutboundTemplate(
  template: Pick<OutboundTemplateInput, 'script' | 'parameters'>,
  contact: TemplateContact | null,
  values: Record<string, string> = {},
): { text: string; missing: string[] } {
  const resolved = new Map<string, string | null>();
  for (const parameter of template.parameters) {
    const sample = text(values[parameter.key]);
    const own = parameter.source === 'fixed' ? text(parameter.value) : text(contact?.[parameter.source]);
    resolved.set(parameter.key, sample || own || text(parameter.defaultValue) || null);
  }
  const missing: string[] = [];
  const out = template.script.replace(PLACEHOLDER, (whole, key: string) => {
    const value = resolved.get(key);
    if (value) return value;
    if (!missing.includes(key)) missing.push(key);
    return whole;
  });
  return { text: out, missing };
}

/** Problems of a test send's sample values: keys the template does not declare. */
export function validateTemplateSamples(parameters: TemplateParameter[], values: unknown): TemplateIssue[] {
  if (values === undefined || values === null) return [];
  if (typeof values !== 'object' || Array.isArray(values)) return [{ field: 'values', key: 'pattern' }];
  const entries = Object.entries(values as Record<string, unknown>);
  const unknown = entries.map(([key]) => key).filter((key) => !parameters.some((parameter) => parameter.key === key));
  if (unknown.length) return [{ field: 'values', key: 'unknown', values: { values: unknown.join(', ') } }];
  if (entries.some(([, value]) => typeof value !== 'string')) return [{ field: 'values', key: 'pattern' }];
  if (entries.some(([, value]) => (value as string).length > OUTBOUND_TEMPLATE_LIMITS.valueMax))
    return [{ field: 'values', key: 'maxLength', values: { count: OUTBOUND_TEMPLATE_LIMITS.valueMax } }];
  return [];
}
