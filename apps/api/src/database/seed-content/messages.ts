import type { Language } from '@centralita/contracts';

/** The demo predefined messages, by shortcut (stored without the slash the desk adds; the same in every language). */
export const DEMO_PREDEFINED_MESSAGES: Record<Language, Record<'hello' | 'wait' | 'else', string>> = {
  es: {
    hello: '¡Hola! Gracias por contactar con nosotros. ¿En qué puedo ayudarle hoy?',
    wait: 'Gracias por esperar. Lo estoy comprobando ahora mismo.',
    else: '¿Hay algo más en lo que pueda ayudarle?',
  },
  en: {
    hello: 'Hello! Thank you for contacting us. How can I help you today?',
    wait: 'Thank you for waiting. I am checking that for you right now.',
    else: 'Is there anything else I can help you with?',
  },
  el: {
    hello: 'Γεια σας! Σας ευχαριστούμε που επικοινωνήσατε μαζί μας. Πώς μπορώ να σας βοηθήσω σήμερα;',
    wait: 'Σας ευχαριστώ για την αναμονή. Το ελέγχω αυτή τη στιγμή.',
    else: 'Μπορώ να σας βοηθήσω με κάτι άλλο;',
  },
  it: {
    hello: 'Salve! Grazie per averci contattato. Come posso aiutarla oggi?',
    wait: 'Grazie per l’attesa. Sto verificando proprio ora.',
    else: 'Posso aiutarla in qualcos’altro?',
  },
  sr: {
    hello: 'Zdravo! Hvala što ste nas kontaktirali. Kako mogu da vam pomognem danas?',
    wait: 'Hvala na strpljenju. Upravo to proveravam.',
    else: 'Da li vam mogu pomoći još nešto?',
  },
  de: {
    hello: 'Hallo! Vielen Dank für Ihre Nachricht. Wie kann ich Ihnen heute helfen?',
    wait: 'Danke für Ihre Geduld. Ich prüfe das gerade für Sie.',
    else: 'Kann ich Ihnen sonst noch helfen?',
  },
  ru: {
    hello: 'Здравствуйте! Спасибо, что обратились к нам. Чем я могу вам помочь?',
    wait: 'Спасибо за ожидание. Я как раз это проверяю.',
    else: 'Могу ли я помочь вам чем-то ещё?',
  },
};

export interface DemoQna {
  question: string;
  answer: string;
  category: string;
}

/** The demo questions and answers: opening hours, password reset, payment methods. */
export const DEMO_QNA: Record<Language, [DemoQna, DemoQna, DemoQna]> = {
  es: [
    {
      question: '¿Cuál es el horario de atención?',
      answer: 'De lunes a viernes de 08:00 a 18:00 y los sábados de 09:00 a 13:00.',
      category: 'General',
    },
    {
      question: '¿Cómo restablezco mi contraseña?',
      answer: 'Use «¿Olvidó su contraseña?» en la página de inicio de sesión; el enlace es válido durante 30 minutos.',
      category: 'Cuentas',
    },
    {
      question: '¿Qué formas de pago aceptan?',
      answer: 'Tarjetas de crédito y débito, transferencia bancaria y efectivo en nuestras oficinas.',
      category: 'Facturación',
    },
  ],
  en: [
    {
      question: 'What are the opening hours?',
      answer: 'Monday to Friday from 08:00 to 18:00, Saturdays from 09:00 to 13:00.',
      category: 'General',
    },
    {
      question: 'How do I reset my password?',
      answer: 'Use "Forgot password" on the sign-in page; the link is valid for 30 minutes.',
      category: 'Accounts',
    },
    {
      question: 'Which payment methods are accepted?',
      answer: 'Credit and debit cards, bank transfer and cash at our branches.',
      category: 'Billing',
    },
  ],
  el: [
    {
      question: 'Ποιες είναι οι ώρες λειτουργίας;',
      answer: 'Δευτέρα έως Παρασκευή 08:00–18:00, Σάββατο 09:00–13:00.',
      category: 'Γενικά',
    },
    {
      question: 'Πώς επαναφέρω τον κωδικό πρόσβασής μου;',
      answer: 'Χρησιμοποιήστε το «Ξέχασα τον κωδικό» στη σελίδα σύνδεσης· ο σύνδεσμος ισχύει για 30 λεπτά.',
      category: 'Λογαριασμοί',
    },
    {
      question: 'Ποιους τρόπους πληρωμής δέχεστε;',
      answer: 'Πιστωτικές και χρεωστικές κάρτες, τραπεζική μεταφορά και μετρητά στα καταστήματά μας.',
      category: 'Χρεώσεις',
    },
  ],
  it: [
    {
      question: 'Quali sono gli orari di apertura?',
      answer: 'Dal lunedì al venerdì dalle 08:00 alle 18:00, il sabato dalle 09:00 alle 13:00.',
      category: 'Generale',
    },
    {
      question: 'Come reimposto la mia password?',
      answer: 'Usi «Password dimenticata» nella pagina di accesso; il link è valido per 30 minuti.',
      category: 'Account',
    },
    {
      question: 'Quali metodi di pagamento accettate?',
      answer: 'Carte di credito e di debito, bonifico bancario e contanti nelle nostre filiali.',
      category: 'Fatturazione',
    },
  ],
  sr: [
    { question: 'Koje je radno vreme?', answer: 'Od ponedeljka do petka od 08:00 do 18:00, subotom od 09:00 do 13:00.', category: 'Opšte' },
    {
      question: 'Kako da resetujem lozinku?',
      answer: 'Koristite „Zaboravljena lozinka” na stranici za prijavu; link važi 30 minuta.',
      category: 'Nalozi',
    },
    {
      question: 'Koje načine plaćanja prihvatate?',
      answer: 'Kreditne i debitne kartice, bankarski prenos i gotovinu u našim poslovnicama.',
      category: 'Naplata',
    },
  ],
  de: [
    {
      question: 'Wann haben Sie geöffnet?',
      answer: 'Montag bis Freitag von 08:00 bis 18:00 Uhr, samstags von 09:00 bis 13:00 Uhr.',
      category: 'Allgemein',
    },
    {
      question: 'Wie setze ich mein Passwort zurück?',
      answer: 'Nutzen Sie „Passwort vergessen“ auf der Anmeldeseite; der Link ist 30 Minuten gültig.',
      category: 'Konten',
    },
    {
      question: 'Welche Zahlungsarten werden akzeptiert?',
      answer: 'Kredit- und Debitkarten, Banküberweisung und Barzahlung in unseren Filialen.',
      category: 'Abrechnung',
    },
  ],
  ru: [
    {
      question: 'Какой у вас график работы?',
      answer: 'С понедельника по пятницу с 08:00 до 18:00, по субботам с 09:00 до 13:00.',
      category: 'Общее',
    },
    {
      question: 'Как сбросить пароль?',
      answer: 'Нажмите «Забыли пароль?» на странице входа; ссылка действительна 30 минут.',
      category: 'Учётные записи',
    },
    {
      question: 'Какие способы оплаты вы принимаете?',
      answer: 'Кредитные и дебетовые карты, банковский перевод и наличные в наших отделениях.',
      category: 'Оплата',
    },
  ],
};
