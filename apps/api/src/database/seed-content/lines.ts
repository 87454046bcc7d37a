import type { Language } from '@centralita/contracts';

/** The demo tenant's two service lines (customers choose the first in the web chat) and its campaign. */
export interface DemoLinesContent {
  customerService: string;
  helpDesk: string;
  campaignName: string;
  campaignDescription: string;
}

export const DEMO_LINES: Record<Language, DemoLinesContent> = {
  es: {
    customerService: 'Atención al cliente',
    helpDesk: 'Soporte interno',
    campaignName: 'Campaña de bienvenida',
    campaignDescription: 'Chat web y WhatsApp entrantes para clientes nuevos',
  },
  en: {
    customerService: 'Customer service',
    helpDesk: 'Internal help desk',
    campaignName: 'Welcome campaign',
    campaignDescription: 'Inbound web chat and WhatsApp for new customers',
  },
  el: {
    customerService: 'Εξυπηρέτηση πελατών',
    helpDesk: 'Εσωτερική υποστήριξη',
    campaignName: 'Καμπάνια καλωσορίσματος',
    campaignDescription: 'Εισερχόμενη διαδικτυακή συνομιλία και WhatsApp για νέους πελάτες',
  },
  it: {
    customerService: 'Servizio clienti',
    helpDesk: 'Supporto interno',
    campaignName: 'Campagna di benvenuto',
    campaignDescription: 'Chat web e WhatsApp in entrata per i nuovi clienti',
  },
  sr: {
    customerService: 'Korisnička podrška',
    helpDesk: 'Interna podrška',
    campaignName: 'Kampanja dobrodošlice',
    campaignDescription: 'Dolazni veb čet i WhatsApp za nove klijente',
  },
  de: {
    customerService: 'Kundenservice',
    helpDesk: 'Interner Helpdesk',
    campaignName: 'Willkommenskampagne',
    campaignDescription: 'Eingehender Webchat und WhatsApp für Neukunden',
  },
  ru: {
    customerService: 'Обслуживание клиентов',
    helpDesk: 'Внутренняя поддержка',
    campaignName: 'Приветственная кампания',
    campaignDescription: 'Входящий веб-чат и WhatsApp для новых клиентов',
  },
};

/** The demo pause reasons' labels, by code (the codes never change). */
export const DEMO_PAUSE_REASONS: Record<Language, Record<'break' | 'lunch' | 'training' | 'meeting', string>> = {
  es: { break: 'Descanso', lunch: 'Comida', training: 'Formación', meeting: 'Reunión' },
  en: { break: 'Break', lunch: 'Lunch', training: 'Training', meeting: 'Meeting' },
  el: { break: 'Διάλειμμα', lunch: 'Γεύμα', training: 'Εκπαίδευση', meeting: 'Σύσκεψη' },
  it: { break: 'Pausa', lunch: 'Pranzo', training: 'Formazione', meeting: 'Riunione' },
  sr: { break: 'Pauza', lunch: 'Ručak', training: 'Obuka', meeting: 'Sastanak' },
  de: { break: 'Pause', lunch: 'Mittagessen', training: 'Schulung', meeting: 'Besprechung' },
  ru: { break: 'Перерыв', lunch: 'Обед', training: 'Обучение', meeting: 'Совещание' },
};
