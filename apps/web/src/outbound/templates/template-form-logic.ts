import {
  TEMPLATE_KEY_PATTERN,
  templatePlaceholders,
  type OutboundTemplateInput,
  type TemplateIssue,
  type TemplateParameter,
} from '@centralita/contracts';

type Translate = (key: string, options?: Record<string, unknown>) => string;

const TEMPLATE_KEYS = new Set(['placeholderUndeclared', 'placeholderPattern', 'parameterUnused', 'tooMany']);

/** An issue of the template rules (local or answered by the API) in the user's language. */
export function issueText(issue: TemplateIssue, t: Translate): string {
  if (TEMPLATE_KEYS.has(issue.key)) return t(`outboundTemplates.issues.${issue.key}`, issue.values);
  if (issue.key === 'duplicate')
    return issue.field === 'name' ? t('outboundTemplates.issues.nameTaken') : t('outboundTemplates.issues.keyRepeated', issue.values);
  if (issue.key === 'pattern' && issue.field.endsWith('.key')) return t('outboundTemplates.issues.keyPattern');
  return t(`validation.${issue.key}`, issue.values);
}

/** Every field's messages joined (the script may break several rules at once: one per placeholder). */
export function fieldErrors(issues: TemplateIssue[], t: Translate): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of issues) {
    const text = issueText(issue, t);
    out[issue.field] = out[issue.field] ? `${out[issue.field]} ${text}` : text;
  }
  return out;
}

/** Inserts `{{key}}` at the caret (replacing a selection); answers the new text and caret position. */
export function insertPlaceholder(script: string, key: string, start: number, end: number): { script: string; caret: number } {
  const from = Math.max(0, Math.min(start, script.length));
  const to = Math.max(from, Math.min(end, script.length));
  const token = `{{${key}}}`;
  return { script: script.slice(0, from) + token + script.slice(to), caret: from + token.length };
}

export const newParameter = (key = ''): TemplateParameter => ({
  key,
  label: key,
  source: key.toLowerCase().includes('phone') ? 'phone' : key.toLowerCase().includes('name') ? 'name' : 'fixed',
  value: '',
  defaultValue: '',
});

/** Placeholders of the script that are valid keys but not declared yet ("declare the placeholders"). */
export function undeclaredPlaceholders(script: string, parameters: TemplateParameter[]): string[] {
  return templatePlaceholders(script).filter(
    (key) => TEMPLATE_KEY_PATTERN.test(key) && !parameters.some((parameter) => parameter.key.trim() === key),
  );
}

export const EMPTY_TEMPLATE: OutboundTemplateInput = { name: '', description: '', script: '', parameters: [] };

/** Splits rendered text into plain runs and the placeholders left without a value (highlighted in the preview). */
export function previewParts(text: string, missing: string[]): { text: string; missing: boolean }[] {
  if (missing.length === 0) return [{ text, missing: false }];
  const parts: { text: string; missing: boolean }[] = [];
  let last = 0;
  for (const match of text.matchAll(/\{\{\s*([^{}]*?)\s*\}\}/g)) {
    const at = match.index ?? 0;
    if (!missing.includes(match[1])) continue;
    if (at > last) parts.push({ text: text.slice(last, at), missing: false });
    parts.push({ text: match[0], missing: true });
    last = at + match[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last), missing: false });
  return parts;
}
