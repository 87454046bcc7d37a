import type { Language } from '@centralita/contracts';

/**
 * The demo outbound campaign: its phone list, its script template (read when the contact answers;
 * {{customerName}}, {{offer}} and {{phone}} are its parameters) and the campaign's name.
 */
export interface DemoOutboundContent {
  listName: string;
  campaignName: string;
  templateName: string;
  templateDescription: string;
  script: string;
  customerNameLabel: string;
  customerNameDefault: string;
  offerLabel: string;
  offer: string;
  phoneLabel: string;
}

export const DEMO_OUTBOUND: Record<Language, DemoOutboundContent> = {
  es: {
    listName: 'Lista de llamadas de demostración',
    campaignName: 'Renovaciones de demostración (progresiva)',
    templateName: 'Guion de llamada de renovación',
    templateDescription: 'Se lee cuando el contacto contesta; la oferta es la misma para todos.',
    script:
      'Hola {{customerName}}, le llamo de Centralita por la renovación de su contrato. ' +
      'Este mes tenemos {{offer}} para clientes como usted. ¿Tiene dos minutos? ' +
      'Si prefiere que le llamemos más tarde, confirmo su número: {{phone}}.',
    customerNameLabel: 'Nombre del cliente',
    customerNameDefault: 'cliente',
    offerLabel: 'Oferta',
    offer: 'un 20 % de descuento durante 12 meses',
    phoneLabel: 'Teléfono',
  },
  en: {
    listName: 'Demo outbound list',
    campaignName: 'Demo renewals (progressive)',
    templateName: 'Renewal call script',
    templateDescription: 'Read when the contact answers; the offer is the same for everyone.',
    script:
      'Hello {{customerName}}, I am calling from Centralita about renewing your contract. ' +
      'This month we have {{offer}} for customers like you. Do you have two minutes? ' +
      'If you would rather we call you later, let me confirm your number: {{phone}}.',
    customerNameLabel: 'Customer name',
    customerNameDefault: 'customer',
    offerLabel: 'Offer',
    offer: '20% off for 12 months',
    phoneLabel: 'Phone',
  },
  el: {
    listName: 'Λίστα κλήσεων επίδειξης',
    campaignName: 'Ανανεώσεις επίδειξης (προοδευτική)',
    templateName: 'Σενάριο κλήσης ανανέωσης',
    templateDescription: 'Διαβάζεται όταν απαντά η επαφή· η προσφορά είναι ίδια για όλους.',
    script:
      'Γεια σας {{customerName}}, σας καλώ από την Centralita για την ανανέωση του συμβολαίου σας. ' +
      'Αυτόν τον μήνα έχουμε {{offer}} για πελάτες σαν εσάς. Έχετε δύο λεπτά; ' +
      'Αν προτιμάτε να σας καλέσουμε αργότερα, επιβεβαιώνω τον αριθμό σας: {{phone}}.',
    customerNameLabel: 'Όνομα πελάτη',
    customerNameDefault: 'πελάτη',
    offerLabel: 'Προσφορά',
    offer: 'έκπτωση 20 % για 12 μήνες',
    phoneLabel: 'Τηλέφωνο',
  },
  it: {
    listName: 'Lista di chiamate dimostrativa',
    campaignName: 'Rinnovi dimostrativi (progressiva)',
    templateName: 'Script della chiamata di rinnovo',
    templateDescription: 'Si legge quando il contatto risponde; l’offerta è uguale per tutti.',
    script:
      'Buongiorno {{customerName}}, la chiamo da Centralita per il rinnovo del suo contratto. ' +
      'Questo mese abbiamo {{offer}} per clienti come lei. Ha due minuti? ' +
      'Se preferisce essere richiamato più tardi, le confermo il numero: {{phone}}.',
    customerNameLabel: 'Nome del cliente',
    customerNameDefault: 'cliente',
    offerLabel: 'Offerta',
    offer: 'uno sconto del 20 % per 12 mesi',
    phoneLabel: 'Telefono',
  },
  sr: {
    listName: 'Demo lista za pozivanje',
    campaignName: 'Demo obnove (progresivna)',
    templateName: 'Skripta poziva za obnovu',
    templateDescription: 'Čita se kada se kontakt javi; ponuda je ista za sve.',
    script:
      'Zdravo {{customerName}}, zovem iz Centralite u vezi sa obnovom vašeg ugovora. ' +
      'Ovog meseca imamo {{offer}} za klijente poput vas. Imate li dva minuta? ' +
      'Ako želite da vas pozovemo kasnije, potvrđujem vaš broj: {{phone}}.',
    customerNameLabel: 'Ime klijenta',
    customerNameDefault: 'klijente',
    offerLabel: 'Ponuda',
    offer: 'popust od 20 % tokom 12 meseci',
    phoneLabel: 'Telefon',
  },
  de: {
    listName: 'Demo-Anrufliste',
    campaignName: 'Demo-Verlängerungen (progressiv)',
    templateName: 'Gesprächsleitfaden Vertragsverlängerung',
    templateDescription: 'Wird vorgelesen, wenn der Kontakt abnimmt; das Angebot ist für alle gleich.',
    script:
      'Hallo {{customerName}}, ich rufe von Centralita wegen der Verlängerung Ihres Vertrags an. ' +
      'Diesen Monat haben wir {{offer}} für Kunden wie Sie. Haben Sie zwei Minuten? ' +
      'Wenn wir Sie lieber später anrufen sollen, bestätige ich Ihre Nummer: {{phone}}.',
    customerNameLabel: 'Kundenname',
    customerNameDefault: 'Kunde',
    offerLabel: 'Angebot',
    offer: '20 % Rabatt für 12 Monate',
    phoneLabel: 'Telefon',
  },
  ru: {
    listName: 'Демонстрационный список обзвона',
    campaignName: 'Демонстрационные продления (прогрессивный)',
    templateName: 'Сценарий звонка о продлении',
    templateDescription: 'Читается, когда контакт отвечает; предложение одинаково для всех.',
    script:
      'Здравствуйте, {{customerName}}! Я звоню из Centralita по поводу продления вашего договора. ' +
      'В этом месяце у нас {{offer}} для таких клиентов, как вы. У вас есть две минуты? ' +
      'Если вам удобнее, чтобы мы перезвонили позже, подтвердите, пожалуйста, ваш номер: {{phone}}.',
    customerNameLabel: 'Имя клиента',
    customerNameDefault: 'уважаемый клиент',
    offerLabel: 'Предложение',
    offer: 'скидка 20 % на 12 месяцев',
    phoneLabel: 'Телефон',
  },
};
