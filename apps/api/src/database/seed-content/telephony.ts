import type { Language } from '@centralita/contracts';

/** The demo IVR (what the caller hears and the options' labels) and the demo trunk's name. */
export interface DemoTelephonyContent {
  ivrName: string;
  ivrDescription: string;
  prompt: string;
  customerService: string;
  helpDesk: string;
  hangUp: string;
  trunkName: string;
}

export const DEMO_TELEPHONY: Record<Language, DemoTelephonyContent> = {
  es: {
    ivrName: 'Menú principal',
    ivrDescription: 'Atiende el número de teléfono de demostración',
    prompt: 'Bienvenido. Pulse 1 para atención al cliente, 2 para soporte interno o 0 para finalizar la llamada.',
    customerService: 'Atención al cliente',
    helpDesk: 'Soporte interno',
    hangUp: 'Colgar',
    trunkName: 'Operador de demostración',
  },
  en: {
    ivrName: 'Main menu',
    ivrDescription: 'Answers the demo phone number',
    prompt: 'Welcome. Press 1 for customer service, 2 for the help desk, or 0 to end the call.',
    customerService: 'Customer service',
    helpDesk: 'Help desk',
    hangUp: 'Hang up',
    trunkName: 'Demo carrier',
  },
  el: {
    ivrName: 'Κύριο μενού',
    ivrDescription: 'Απαντά στον αριθμό τηλεφώνου επίδειξης',
    prompt: 'Καλώς ορίσατε. Πατήστε 1 για εξυπηρέτηση πελατών, 2 για εσωτερική υποστήριξη ή 0 για να τερματίσετε την κλήση.',
    customerService: 'Εξυπηρέτηση πελατών',
    helpDesk: 'Εσωτερική υποστήριξη',
    hangUp: 'Τερματισμός',
    trunkName: 'Πάροχος επίδειξης',
  },
  it: {
    ivrName: 'Menu principale',
    ivrDescription: 'Risponde al numero di telefono dimostrativo',
    prompt: 'Benvenuto. Prema 1 per il servizio clienti, 2 per il supporto interno o 0 per terminare la chiamata.',
    customerService: 'Servizio clienti',
    helpDesk: 'Supporto interno',
    hangUp: 'Riaggancia',
    trunkName: 'Operatore dimostrativo',
  },
  sr: {
    ivrName: 'Glavni meni',
    ivrDescription: 'Odgovara na demo broj telefona',
    prompt: 'Dobro došli. Pritisnite 1 za korisničku podršku, 2 za internu podršku ili 0 da završite poziv.',
    customerService: 'Korisnička podrška',
    helpDesk: 'Interna podrška',
    hangUp: 'Prekini poziv',
    trunkName: 'Demo operater',
  },
  de: {
    ivrName: 'Hauptmenü',
    ivrDescription: 'Nimmt Anrufe auf der Demo-Telefonnummer an',
    prompt: 'Willkommen. Drücken Sie 1 für den Kundenservice, 2 für den internen Helpdesk oder 0, um den Anruf zu beenden.',
    customerService: 'Kundenservice',
    helpDesk: 'Interner Helpdesk',
    hangUp: 'Auflegen',
    trunkName: 'Demo-Carrier',
  },
  ru: {
    ivrName: 'Главное меню',
    ivrDescription: 'Отвечает на демонстрационный номер телефона',
    prompt: 'Добро пожаловать. Нажмите 1 для обслуживания клиентов, 2 для внутренней поддержки или 0, чтобы завершить звонок.',
    customerService: 'Обслуживание клиентов',
    helpDesk: 'Внутренняя поддержка',
    hangUp: 'Завершить звонок',
    trunkName: 'Демонстрационный оператор',
  },
};
