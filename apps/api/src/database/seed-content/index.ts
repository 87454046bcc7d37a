import { LANGUAGES, type Language } from '@centralita/contracts';
import { DEMO_LINES, DEMO_PAUSE_REASONS } from './lines';
import { DEMO_PREDEFINED_MESSAGES, DEMO_QNA } from './messages';
import { DEMO_OUTBOUND } from './outbound';
import { DEMO_POLL } from './poll';
import { DEMO_TELEPHONY } from './telephony';

export { DEMO_LINES, DEMO_PAUSE_REASONS, DEMO_PREDEFINED_MESSAGES, DEMO_QNA, DEMO_OUTBOUND, DEMO_POLL, DEMO_TELEPHONY };

/**
 * Every text the demo seed writes, in one language: one table per content item, each keyed by the
 * seven console languages, so a tenant's demo content reads in the tenant's own language.
 */
export function demoContent(language: Language) {
  return {
    lines: DEMO_LINES[language],
    pauseReasons: DEMO_PAUSE_REASONS[language],
    poll: DEMO_POLL[language],
    predefinedMessages: DEMO_PREDEFINED_MESSAGES[language],
    qna: DEMO_QNA[language],
    telephony: DEMO_TELEPHONY[language],
    outbound: DEMO_OUTBOUND[language],
  };
}
export type DemoContent = ReturnType<typeof demoContent>;

/** SEED_LANGUAGE as a console language; unset is Spanish (the platform's default), anything else is refused. */
export function seedLanguage(value: string | undefined): Language {
  const wanted = (value ?? '').trim().toLowerCase() || 'es';
  if (!(LANGUAGES as readonly string[]).includes(wanted)) {
    throw new Error(`SEED_LANGUAGE must be one of ${LANGUAGES.join(', ')} (got "${value}")`);
  }
  return wanted as Language;
}
