/**
 * Checks of a channel (WhatsApp) template and of a message campaign, as Meta states them for
 * templates (name, language, category, header, body with positional {{n}} and their examples,
 * footer, buttons). Each problem is named, so the API answers a 400 that says what to fix.
 */

import {
  namedPlaceholders,
  parameterFormatOf,
  renderNamed,
  templateParameterNames,
  type HeaderMediaInput,
  type ParameterFormat,
  type TemplateHeaderFormat,
} from './channel-template-parameters';

import type { CallingWindowsInput } from './outbound';

export const CHANNEL_TEMPLATE_CATEGORIES = ['MARKETING', 'UTILITY', 'AUTHENTICATION'] as const;
export type ChannelTemplateCategory = (typeof CHANNEL_TEMPLATE_CATEGORIES)[number];
export const PARAMETER_SOURCES = ['name', 'phone', 'fixed'] as const;

export interface TemplateButtonInput {
  type: 'QUICK_REPLY' | 'URL' | 'PHONE_NUMBER';
  text: string;
  url?: string;
  phoneNumber?: string;
}

export interface ChannelTemplateInput {
  accountId: string;
  name: string;
  language: string;
  category: ChannelTemplateCategory;
  /** POSITIONAL ({{1}}, {{2}}…, the default) or NAMED ({{first_name}}): examples are in the order the parameters first appear. */
  parameterFormat?: ParameterFormat;
  header?: { format: 'TEXT'; text: string; example?: string } | { format: 'IMAGE' | 'VIDEO' | 'DOCUMENT'; handle: string } | null;
  body: { text: string; examples: string[] };
  footer?: string | null;
  buttons?: TemplateButtonInput[];
}

const LIMITS = { nameMax: 512, bodyMax: 1024, headerMax: 60, footerMax: 60, buttonsMax: 10, buttonTextMax: 25, exampleMax: 200 };

/** The distinct {{n}} of a text, in order; `bad` when a placeholder is not a positive number or they are not 1..n. */
export function positionalPlaceholders(text: string): { count: number; bad: string | null } {
  const all = [...text.matchAll(/\{\{\s*([^}]*?)\s*\}\}/g)].map((match) => match[1]);
  const invalid = all.find((value) => !/^[1-9]\d*$/.test(value));
  if (invalid !== undefined) return { count: 0, bad: `{{${invalid}}} is not a positional parameter ({{1}}, {{2}}…)` };
  const numbers = [...new Set(all.map(Number))].sort((a, b) => a - b);
  if (numbers.some((value, index) => value !== index + 1))
    return { count: 0, bad: 'Parameters must be numbered {{1}}, {{2}}… without gaps' };
  return { count: numbers.length, bad: null };
}

/** The first problem of a template, or null. */
export function templateProblem(input: Partial<ChannelTemplateInput>): string | null {
  if (typeof input.name !== 'string' || !/^[a-z0-9_]{1,512}$/.test(input.name)) {
    return `name must be 1 to ${LIMITS.nameMax} lowercase letters, digits or underscores`;
  }
  if (typeof input.language !== 'string' || !/^[a-z]{2,3}(_[A-Z]{2})?$/.test(input.language)) {
    return 'language must be a WhatsApp language code such as es, en_US or pt_BR';
  }
  if (!CHANNEL_TEMPLATE_CATEGORIES.includes(input.category as ChannelTemplateCategory))
    return `category must be one of ${CHANNEL_TEMPLATE_CATEGORIES.join(', ')}`;
  const body = input.body;
  if (!body || typeof body.text !== 'string' || !body.text.trim()) return 'body.text is required';
  if (body.text.length > LIMITS.bodyMax) return `body.text is longer than ${LIMITS.bodyMax} characters`;
  const named = input.parameterFormat === 'NAMED';
  if (input.parameterFormat !== undefined && input.parameterFormat !== 'NAMED' && input.parameterFormat !== 'POSITIONAL')
    return 'parameterFormat must be POSITIONAL or NAMED';
  const bodyParameters = named ? namedCount(body.text) : positionalPlaceholders(body.text);
  if (bodyParameters.bad) return `body.text: ${bodyParameters.bad}`;
  const examples = Array.isArray(body.examples) ? body.examples : [];
  if (examples.length !== bodyParameters.count || examples.some((example) => typeof example !== 'string' || !example.trim())) {
    return `body.examples must give one example for each of the ${bodyParameters.count} parameters`;
  }
  if (examples.some((example) => example.length > LIMITS.exampleMax)) return `an example is longer than ${LIMITS.exampleMax} characters`;
  const header = input.header;
  if (header) {
    if (header.format === 'TEXT') {
      if (typeof header.text !== 'string' || !header.text.trim() || header.text.length > LIMITS.headerMax) {
        return `header.text must be 1 to ${LIMITS.headerMax} characters`;
      }
      const headerParameters = named ? namedCount(header.text) : positionalPlaceholders(header.text);
      if (headerParameters.bad) return `header.text: ${headerParameters.bad}`;
      if (headerParameters.count > 1) return `header.text takes at most one parameter (${named ? '{{name}}' : '{{1}}'})`;
      if (headerParameters.count === 1 && (typeof header.example !== 'string' || !header.example.trim())) {
        return 'header.example is required for the header parameter';
      }
    } else if (['IMAGE', 'VIDEO', 'DOCUMENT'].includes(header.format)) {
      if (typeof header.handle !== 'string' || !header.handle.trim()) return 'header.handle (the sample media handle) is required';
    } else {
      return 'header.format must be TEXT, IMAGE, VIDEO or DOCUMENT';
    }
  }
  if (input.footer !== undefined && input.footer !== null) {
    if (typeof input.footer !== 'string' || input.footer.length > LIMITS.footerMax)
      return `footer is longer than ${LIMITS.footerMax} characters`;
  }
  const buttons = input.buttons ?? [];
  if (!Array.isArray(buttons) || buttons.length > LIMITS.buttonsMax) return `buttons: at most ${LIMITS.buttonsMax}`;
  for (const [index, button] of buttons.entries()) {
    if (!button || typeof button.text !== 'string' || !button.text.trim() || button.text.length > LIMITS.buttonTextMax) {
      return `buttons[${index}].text must be 1 to ${LIMITS.buttonTextMax} characters`;
    }
    if (button.type === 'URL' && (typeof button.url !== 'string' || !/^https:\/\/[^\s]+$/.test(button.url))) {
      return `buttons[${index}].url must be an https URL`;
    }
    if (button.type === 'PHONE_NUMBER' && (typeof button.phoneNumber !== 'string' || !/^\+[1-9]\d{6,14}$/.test(button.phoneNumber))) {
      return `buttons[${index}].phoneNumber must be an international number (+…)`;
    }
    if (!['QUICK_REPLY', 'URL', 'PHONE_NUMBER'].includes(button.type))
      return `buttons[${index}].type must be QUICK_REPLY, URL or PHONE_NUMBER`;
  }
  return null;
}

function namedCount(text: string): { count: number; bad: string | null } {
  const found = namedPlaceholders(text);
  return { count: found.names.length, bad: found.bad };
}

/** Meta's components for POST /{waba-id}/message_templates (named examples as `{param_name, example}`). */
export function metaComponents(input: ChannelTemplateInput): Record<string, unknown>[] {
  const components: Record<string, unknown>[] = [];
  const header = input.header;
  const named = input.parameterFormat === 'NAMED';
  const namedExamples = (text: string, examples: string[]) =>
    namedPlaceholders(text).names.map((name, index) => ({ param_name: name, example: examples[index] ?? '' }));
  if (header?.format === 'TEXT') {
    components.push({
      type: 'HEADER',
      format: 'TEXT',
      text: header.text,
      ...(header.example
        ? {
            example: named ? { header_text_named_params: namedExamples(header.text, [header.example]) } : { header_text: [header.example] },
          }
        : {}),
    });
  } else if (header) {
    components.push({ type: 'HEADER', format: header.format, example: { header_handle: [header.handle] } });
  }
  components.push({
    type: 'BODY',
    text: input.body.text,
    ...(input.body.examples.length
      ? {
          example: named
            ? { body_text_named_params: namedExamples(input.body.text, input.body.examples) }
            : { body_text: [input.body.examples] },
        }
      : {}),
  });
  if (input.footer) components.push({ type: 'FOOTER', text: input.footer });
  if (input.buttons?.length) {
    components.push({
      type: 'BUTTONS',
      buttons: input.buttons.map((button) =>
        button.type === 'URL'
          ? { type: 'URL', text: button.text, url: button.url }
          : button.type === 'PHONE_NUMBER'
            ? { type: 'PHONE_NUMBER', text: button.text, phone_number: button.phoneNumber }
            : { type: 'QUICK_REPLY', text: button.text },
      ),
    });
  }
  return components;
}

/** A template rendered with sample values ({{n}} → values[n-1]; a missing value stays as {{n}}). */
export function renderPositional(text: string, values: string[]): string {
  return text.replace(/\{\{\s*([1-9]\d*)\s*\}\}/g, (whole, index: string) => values[Number(index) - 1] ?? whole);
}

export interface ParameterSourceInput {
  /** 'column' (a list column named by `value`) is for email campaigns only (email-campaigns.ts). */
  source: (typeof PARAMETER_SOURCES)[number] | 'column';
  value?: string;
  fallback?: string;
}

/** The first problem of a campaign's parameter mapping against its template's counts, or null. */
export function mappingProblem(
  mapping: { header?: ParameterSourceInput[]; body?: ParameterSourceInput[] } | undefined,
  counts: { header: number; body: number },
): string | null {
  for (const part of ['header', 'body'] as const) {
    const sources = mapping?.[part] ?? [];
    if (!Array.isArray(sources)) return `parameterMapping.${part} must be a list`;
    if (sources.length !== counts[part]) return `parameterMapping.${part} must map the template's ${counts[part]} ${part} parameters`;
    for (const [index, source] of sources.entries()) {
      if (!source || !PARAMETER_SOURCES.includes(source.source as (typeof PARAMETER_SOURCES)[number])) {
        return `parameterMapping.${part}[${index}].source must be one of ${PARAMETER_SOURCES.join(', ')}`;
      }
      if (source.source === 'fixed' && (typeof source.value !== 'string' || !source.value.trim())) {
        return `parameterMapping.${part}[${index}].value is required for a fixed parameter`;
      }
      if (source.value !== undefined && (typeof source.value !== 'string' || source.value.length > 200)) {
        return `parameterMapping.${part}[${index}].value must be text of at most 200 characters`;
      }
      if (source.fallback !== undefined && (typeof source.fallback !== 'string' || source.fallback.length > 200)) {
        return `parameterMapping.${part}[${index}].fallback must be text of at most 200 characters`;
      }
    }
  }
  return null;
}

export interface ChannelTemplateView {
  id: string;
  accountId: string;
  name: string;
  language: string;
  category: string;
  components: Record<string, unknown>[];
  status: string;
  reason: string | null;
  providerTemplateId: string | null;
  headerParameterCount: number;
  bodyParameterCount: number;
  parameterFormat: ParameterFormat;
  /** TEXT, IMAGE, VIDEO or DOCUMENT; null without a header. */
  headerFormat: TemplateHeaderFormat | null;
  /** The parameters the send fills, in order: names ({{first_name}}) or numbers ('1', '2'…). */
  headerParameters: string[];
  bodyParameters: string[];
  submittedAt: string | null;
  updatedAt: string;
}

export interface MessageCampaignInput {
  name?: string;
  accountId?: string;
  templateId?: string;
  phoneListId?: string;
  /** Email campaigns: the list column with the recipient addresses. */
  addressColumn?: string;
  parameterMapping?: { header?: ParameterSourceInput[]; body?: ParameterSourceInput[] };
  /** The image, video or document of a template with a media header. */
  headerMedia?: HeaderMediaInput | null;
  ratePerSecond?: number;
  /** Schedule and sending windows (message-campaign-schedule.ts). */
  startsAt?: string | null;
  endsAt?: string | null;
  callingWindows?: CallingWindowsInput | null;
}

export type RecipientStatus = 'queued' | 'sending' | 'sent' | 'delivered' | 'read' | 'failed' | 'skipped';

export interface MessageCampaignView {
  id: string;
  name: string;
  channel: string;
  accountId: string;
  templateId: string;
  templateName: string;
  phoneListId: string;
  /** Email campaigns: the list column with the recipient addresses (null for WhatsApp). */
  addressColumn: string | null;
  parameterMapping: { header?: ParameterSourceInput[]; body?: ParameterSourceInput[] };
  headerMedia: HeaderMediaInput | null;
  ratePerSecond: number;
  status: 'draft' | 'scheduled' | 'running' | 'paused' | 'stopped' | 'finished';
  pausedReason: string | null;
  pausedDetail: string | null;
  /** Schedule, windows and why a running campaign waits (message-campaign-schedule.ts). */
  startsAt: string | null;
  endsAt: string | null;
  callingWindows: CallingWindowsInput | null;
  idleReason: string | null;
  idleUntil: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  /** The board: recipients per status, skips per reason, replies. */
  counts: Record<RecipientStatus, number> & { total: number; replied: number };
  skipped: Record<string, number>;
}

/** A template component's text (header or body; '' for a media header or none). */
export function componentText(components: Record<string, unknown>[], type: 'HEADER' | 'BODY'): string {
  const component = components.find((one) => one.type === type);
  return component && (component.format ?? 'TEXT') === 'TEXT' && typeof component.text === 'string' ? component.text : '';
}

/** Header, body, footer and button labels with sample values ({{n}} left as is where no value is given). */
export function renderTemplate(
  components: Record<string, unknown>[],
  values: { header?: string[]; body?: string[] },
): { header: string | null; body: string; footer: string | null; buttons: string[] } {
  const exampleOf = (type: 'HEADER' | 'BODY'): string[] => {
    const example = components.find((one) => one.type === type)?.example as
      | {
          header_text?: string[];
          body_text?: string[][];
          header_text_named_params?: { example?: string }[];
          body_text_named_params?: { example?: string }[];
        }
      | undefined;
    const named = type === 'HEADER' ? example?.header_text_named_params : example?.body_text_named_params;
    if (named) return named.map((one) => String(one.example ?? ''));
    return (type === 'HEADER' ? example?.header_text : example?.body_text?.[0]) ?? [];
  };
  // Named templates: values come in the order the names first appear (templateParameterNames).
  const names = parameterFormatOf(components) === 'NAMED' ? templateParameterNames(components) : null;
  const fill = (text: string, type: 'HEADER' | 'BODY', given: string[] | undefined): string => {
    const chosen = given?.length ? given : exampleOf(type);
    if (!names) return renderPositional(text, chosen);
    const keys = type === 'HEADER' ? names.header : names.body;
    return renderNamed(text, Object.fromEntries(keys.map((key, index) => [key, chosen[index] ?? ''])));
  };
  const header = components.find((one) => one.type === 'HEADER');
  const footer = components.find((one) => one.type === 'FOOTER');
  const buttons = components.find((one) => one.type === 'BUTTONS')?.buttons as { text?: string }[] | undefined;
  return {
    header: header
      ? (header.format ?? 'TEXT') === 'TEXT'
        ? fill(String(header.text ?? ''), 'HEADER', values.header)
        : `[${String(header.format)}]`
      : null,
    body: fill(componentText(components, 'BODY'), 'BODY', values.body),
    footer: footer ? String(footer.text ?? '') : null,
    buttons: (buttons ?? []).map((button) => String(button.text ?? '')),
  };
}
