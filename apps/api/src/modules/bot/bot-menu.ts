import type { BotLanguage } from '@centralita/contracts';

/**
 * The line's menu as the bot offers it on messaging channels (issue 23): "talk to a person" and
 * the query types, then a topic's submenus, as reply buttons where the channel has them. The same
 * query types and submenus as the web-chat widget's menu (apps/web widget-logic QUERY_TYPES), so a
 * choice queues the conversation exactly as the widget's menu form would. Labels are the widget's
 * Spanish and English ones, short enough for every provider (WhatsApp and Messenger: 20 characters).
 */
export const BOT_MENU: readonly {
  id: string;
  label: Record<BotLanguage, string>;
  submenus: readonly { id: string; label: Record<BotLanguage, string> }[];
}[] = [
  {
    id: 'sales',
    label: { es: 'Ventas', en: 'Sales' },
    submenus: [
      { id: 'newProduct', label: { es: 'Nuevo producto', en: 'New product' } },
      { id: 'pricing', label: { es: 'Precios', en: 'Pricing' } },
      { id: 'promotions', label: { es: 'Promociones', en: 'Promotions' } },
    ],
  },
  {
    id: 'support',
    label: { es: 'Soporte', en: 'Support' },
    submenus: [
      { id: 'technical', label: { es: 'Problema técnico', en: 'Technical problem' } },
      { id: 'account', label: { es: 'Mi cuenta', en: 'My account' } },
      { id: 'order', label: { es: 'Mi pedido', en: 'My order' } },
    ],
  },
  {
    id: 'billing',
    label: { es: 'Facturación', en: 'Billing' },
    submenus: [
      { id: 'invoice', label: { es: 'Factura', en: 'Invoice' } },
      { id: 'payment', label: { es: 'Pago', en: 'Payment' } },
      { id: 'refund', label: { es: 'Reembolso', en: 'Refund' } },
    ],
  },
];

/** The payload of the "talk to a person" button. */
export const PERSON_PAYLOAD = 'bot:person';
const TOPIC_PREFIX = 'bot:topic:';
const CHOICE_PREFIX = 'bot:menu:';

export const PERSON_LABEL: Record<BotLanguage, string> = { es: 'Hablar con persona', en: 'Talk to a person' };
/** What the bot says with a topic's submenus. */
export const SUBMENU_PROMPT: Record<BotLanguage, (topic: string) => string> = {
  es: (topic) => `${topic}: ¿sobre qué es tu consulta?`,
  en: (topic) => `${topic}: what is your question about?`,
};

export interface MenuButton {
  payload: string;
  title: string;
}

/** What a tap asks for: a person, a topic's submenus, or a menu choice (queued as the widget's menu would). */
export type MenuTap = { kind: 'person' } | { kind: 'topic'; topicId: string } | { kind: 'choice'; topicId: string; submenuId: string };

/** The buttons of the greeting: a person first, then the topics. */
export function greetingButtons(language: BotLanguage): MenuButton[] {
  return [
    { payload: PERSON_PAYLOAD, title: PERSON_LABEL[language] },
    ...BOT_MENU.map((topic) => ({ payload: `${TOPIC_PREFIX}${topic.id}`, title: topic.label[language] })),
  ];
}

/** A topic's submenus as buttons, then a person. */
export function submenuButtons(topicId: string, language: BotLanguage): MenuButton[] {
  const topic = BOT_MENU.find((one) => one.id === topicId);
  return [
    ...(topic?.submenus ?? []).map((submenu) => ({ payload: `${CHOICE_PREFIX}${topicId}:${submenu.id}`, title: submenu.label[language] })),
    { payload: PERSON_PAYLOAD, title: PERSON_LABEL[language] },
  ];
}

export function topicLabel(topicId: string, language: BotLanguage): string {
  return BOT_MENU.find((one) => one.id === topicId)?.label[language] ?? topicId;
}

/** The tap a payload stands for; null for anything else (a payload of another sender, or forged: then it is only its text). */
export function parseTap(payload: string | undefined): MenuTap | null {
  if (!payload) return null;
  if (payload === PERSON_PAYLOAD) return { kind: 'person' };
  if (payload.startsWith(TOPIC_PREFIX)) {
    const topicId = payload.slice(TOPIC_PREFIX.length);
    return BOT_MENU.some((topic) => topic.id === topicId) ? { kind: 'topic', topicId } : null;
  }
  if (payload.startsWith(CHOICE_PREFIX)) {
    const [topicId, submenuId] = payload.slice(CHOICE_PREFIX.length).split(':');
    const topic = BOT_MENU.find((one) => one.id === topicId);
    return topic?.submenus.some((submenu) => submenu.id === submenuId)
      ? { kind: 'choice', topicId: topicId!, submenuId: submenuId! }
      : null;
  }
  return null;
}
