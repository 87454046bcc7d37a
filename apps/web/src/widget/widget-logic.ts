import {
  LANGUAGES,
  SURVEY_MULTIPLE_SEPARATOR,
  surveyAnswerProblem,
  type BusinessHoursWindow,
  type Language,
  type LineOpening,
  type SurveyQuestionView,
} from '@centralita/contracts';

/** The visitor token and the ids it belongs to, kept so a reload restores the conversation. */
export interface StoredVisitor {
  token: string;
  conversationId: string;
  line: string;
}

export const visitorStorageKey = (line: string) => `centralita.webchat.${line}`;

export function readVisitor(storage: Pick<Storage, 'getItem'>, line: string): StoredVisitor | null {
  try {
    const raw = storage.getItem(visitorStorageKey(line));
    if (!raw) return null;
    const parsed = JSON.parse(raw) as Partial<StoredVisitor>;
    return typeof parsed.token === 'string' && typeof parsed.conversationId === 'string'
      ? { token: parsed.token, conversationId: parsed.conversationId, line }
      : null;
  } catch {
    return null;
  }
}

/** ?lang= first, then the browser's languages, then Spanish (spec §9). 'sp' is the legacy code for Spanish. */
export function pickLanguage(search: string, browserLanguages: readonly string[]): Language {
  const candidates = [new URLSearchParams(search).get('lang') ?? '', ...browserLanguages];
  for (const candidate of candidates) {
    const code = candidate.trim().toLowerCase().split(/[-_]/)[0];
    const normalised = code === 'sp' ? 'es' : code;
    if ((LANGUAGES as readonly string[]).includes(normalised)) return normalised as Language;
  }
  return 'es';
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface PrechatErrors {
  name?: 'required' | 'tooLong';
  email?: 'invalid';
}

/** Name required (1–120 after trimming), email optional but valid when given: as the API checks. */
export function validatePrechat(name: string, email: string): PrechatErrors {
  const errors: PrechatErrors = {};
  const trimmed = name.trim();
  if (!trimmed) errors.name = 'required';
  else if (trimmed.length > 120) errors.name = 'tooLong';
  const mail = email.trim();
  if (mail && (!EMAIL.test(mail) || mail.length > 254)) errors.email = 'invalid';
  return errors;
}

/**
 * Query types and their submenus. The API takes free ids (1–64 characters) and has no catalogue
 * endpoint yet, so the widget offers this one; labels are translated (desk.widget.queryTypes.*).
 */
export const QUERY_TYPES: { id: string; submenus: string[] }[] = [
  { id: 'sales', submenus: ['newProduct', 'pricing', 'promotions'] },
  { id: 'support', submenus: ['technical', 'account', 'order'] },
  { id: 'billing', submenus: ['invoice', 'payment', 'refund'] },
];

export function submenusOf(queryTypeId: string): string[] {
  return QUERY_TYPES.find((type) => type.id === queryTypeId)?.submenus ?? [];
}

/**
 * The answers to send for the line's poll, in question order: every choice question must be
 * answered (null when one is not), free text only when written; the last answer sent closes it.
 */
export function surveyAnswers(
  questions: Pick<SurveyQuestionView, 'id' | 'responseType' | 'options'>[],
  values: Record<string, string>,
): { questionId: string; answer: string; last: boolean }[] | null {
  const answers: { questionId: string; answer: string }[] = [];
  for (const question of questions) {
    const value = (values[question.id] ?? '').trim();
    if (!value && question.responseType === 'text') continue;
    if (surveyAnswerProblem(question, value)) return null;
    answers.push({ questionId: question.id, answer: value });
  }
  if (answers.length === 0) return null;
  return answers.map((answer, index) => ({ ...answer, last: index === answers.length - 1 }));
}

/** A multiple-choice answer with `option` switched on or off. */
export function toggleChoice(current: string, option: string): string {
  const chosen = current ? current.split(SURVEY_MULTIPLE_SEPARATOR) : [];
  const next = chosen.includes(option) ? chosen.filter((item) => item !== option) : [...chosen, option];
  return next.join(SURVEY_MULTIPLE_SEPARATOR);
}

/** Like the agent desk: a lost "stopped typing" turns the indicator off after this long. */
export const TYPING_SAFETY_MS = 8000;

/**
 * The agent's typing indicator: on with "typing: true", off with "typing: false" or, when that is
 * lost, by itself after `safetyMs`. `dispose` stops the pending timer.
 */
export function typingIndicator(
  onChange: (typing: boolean) => void,
  safetyMs = TYPING_SAFETY_MS,
  timers: Pick<typeof globalThis, 'setTimeout' | 'clearTimeout'> = globalThis,
): { set: (typing: boolean) => void; dispose: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const dispose = () => {
    if (timer !== undefined) timers.clearTimeout(timer);
    timer = undefined;
  };
  return {
    set: (typing) => {
      dispose();
      onChange(typing);
      if (typing) timer = timers.setTimeout(() => onChange(false), safetyMs);
    },
    dispose,
  };
}

/**
 * What the customer sees instead of a conversation, from the line's answer: its welcome (or the
 * widget's own translated intro when the tenant saved none), or the off-hours notice and no form.
 */
export function prechatScreen(
  info: { open: boolean; welcomeMessage: string; offHoursMessage: string } | null,
): { kind: 'loading' } | { kind: 'open'; welcome: string | null } | { kind: 'closed'; message: string | null } {
  if (!info) return { kind: 'loading' };
  if (!info.open) return { kind: 'closed', message: info.offHoursMessage.trim() || null };
  return { kind: 'open', welcome: info.welcomeMessage.trim() || null };
}

/** The header's title: the WebChat channel card's widget title, else the translated default. */
export function widgetTitle(info: { widgetTitle: string } | null, fallback: string): string {
  return info?.widgetTitle.trim() || fallback;
}

/** The BCP 47 tag Intl formats a widget language with (Serbian is written in Latin script here). */
export const intlLocale = (language: string) => (language === 'sr' ? 'sr-Latn' : language);

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;
// 2023-01-01 was a Sunday: weekday n is January 1 + n (in UTC, so no zone shifts the day).
const weekdayDate = (day: number) => new Date(Date.UTC(2023, 0, 1 + day));

/** A weekday (0 = Sunday) by name in `language`. */
export function weekdayName(day: number, language: string): string {
  return new Intl.DateTimeFormat(intlLocale(language), { weekday: 'long', timeZone: 'UTC' }).format(weekdayDate(day));
}

/** A wall-clock 'HH:MM' as `language` writes times (09:00, 09:00 AM…); '24:00' (end of day) as is. */
export function clockTime(hhmm: string, language: string): string {
  const match = HHMM.exec(hhmm);
  if (!match) return hhmm;
  return new Intl.DateTimeFormat(intlLocale(language), { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' }).format(
    new Date(Date.UTC(2023, 0, 1, Number(match[1]), Number(match[2]))),
  );
}

/**
 * The off-hours sentence's key and values for when a closed line opens again (the line's wall
 * clock, as the API computed it in the line's zone): later today, tomorrow, or on a weekday.
 */
export function reopening(
  opening: LineOpening,
  language: string,
): { key: 'reopensToday' | 'reopensTomorrow' | 'reopensOn'; day: string; time: string } {
  const key = opening.daysAhead === 0 ? 'reopensToday' : opening.daysAhead === 1 ? 'reopensTomorrow' : 'reopensOn';
  return { key, day: weekdayName(opening.day, language), time: clockTime(opening.time, language) };
}

/** One row of the widget's opening hours: consecutive days (Monday first) sharing the same windows. */
export interface ScheduleRow {
  firstDay: number;
  lastDay: number;
  windows: { from: string; to: string }[];
}

const WEEK_FROM_MONDAY = [1, 2, 3, 4, 5, 6, 0];

/**
 * The week's opening windows as the widget lists them: Monday to Sunday, consecutive days with the
 * same windows on one row ("Monday – Friday 09:00–18:00"), closed days left out, malformed windows
 * (which never open) ignored.
 */
export function scheduleRows(hours: readonly BusinessHoursWindow[]): ScheduleRow[] {
  const byDay = new Map<number, { from: string; to: string }[]>();
  for (const window of hours) {
    if (!Number.isInteger(window?.day) || window.day < 0 || window.day > 6) continue;
    const to = window.to === '24:00' ? '24:00' : HHMM.test(window.to) ? window.to : null;
    if (!HHMM.test(window.from) || !to || window.from >= to) continue;
    byDay.set(window.day, [...(byDay.get(window.day) ?? []), { from: window.from, to }]);
  }
  const rows: ScheduleRow[] = [];
  let previous: number | null = null;
  for (const day of WEEK_FROM_MONDAY) {
    const windows = (byDay.get(day) ?? []).sort((a, b) => a.from.localeCompare(b.from));
    const last = rows.at(-1);
    if (windows.length && last && previous === last.lastDay && sameWindows(last.windows, windows)) last.lastDay = day;
    else if (windows.length) rows.push({ firstDay: day, lastDay: day, windows });
    previous = windows.length ? day : null;
  }
  return rows;
}

function sameWindows(a: { from: string; to: string }[], b: { from: string; to: string }[]): boolean {
  return a.length === b.length && a.every((window, index) => window.from === b[index].from && window.to === b[index].to);
}

/**
 * Whether the visitor's clock differs from the line's at `at` (ISO): then the widget names the zone
 * its times are in.
 */
export function differentClock(at: string, lineZone: string, visitorZone: string | undefined): boolean {
  if (!visitorZone || visitorZone === lineZone) return false;
  const time = (timeZone: string) =>
    new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(
      new Date(at),
    );
  try {
    return time(lineZone) !== time(visitorZone);
  } catch {
    return false;
  }
}
