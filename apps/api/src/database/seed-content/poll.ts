import type { Language } from '@centralita/contracts';

/**
 * The demo satisfaction poll. `options` are the first question's choices, best first; the demo
 * answers are drawn from them (the yes/no question stores the codes Yes/No in every language).
 */
export interface DemoPollContent {
  name: string;
  description: string;
  satisfaction: string;
  options: [string, string, string, string];
  recommend: string;
  solved: string;
}

export const DEMO_POLL: Record<Language, DemoPollContent> = {
  es: {
    name: 'Satisfacción del cliente',
    description: 'Se pregunta al cerrar una conversación de chat web o WhatsApp',
    satisfaction: '¿Qué tan satisfecho está con la atención recibida?',
    options: ['Muy satisfecho', 'Satisfecho', 'Neutral', 'Insatisfecho'],
    recommend: '¿Qué probabilidad hay de que nos recomiende (0-10)?',
    solved: '¿Se resolvió su problema?',
  },
  en: {
    name: 'Customer satisfaction',
    description: 'Asked when a web chat or WhatsApp conversation closes',
    satisfaction: 'How satisfied are you with the service?',
    options: ['Very satisfied', 'Satisfied', 'Neutral', 'Unsatisfied'],
    recommend: 'How likely are you to recommend us (0-10)?',
    solved: 'Was your problem solved?',
  },
  el: {
    name: 'Ικανοποίηση πελατών',
    description: 'Ερωτάται όταν κλείνει μια διαδικτυακή συνομιλία ή μια συνομιλία WhatsApp',
    satisfaction: 'Πόσο ικανοποιημένοι είστε από την εξυπηρέτηση;',
    options: ['Πολύ ικανοποιημένος', 'Ικανοποιημένος', 'Ουδέτερος', 'Μη ικανοποιημένος'],
    recommend: 'Πόσο πιθανό είναι να μας προτείνετε (0-10);',
    solved: 'Λύθηκε το πρόβλημά σας;',
  },
  it: {
    name: 'Soddisfazione del cliente',
    description: 'Chiesto alla chiusura di una conversazione in chat web o WhatsApp',
    satisfaction: 'Quanto è soddisfatto del servizio?',
    options: ['Molto soddisfatto', 'Soddisfatto', 'Neutrale', 'Insoddisfatto'],
    recommend: 'Con quale probabilità ci consiglierebbe (0-10)?',
    solved: 'Il suo problema è stato risolto?',
  },
  sr: {
    name: 'Zadovoljstvo korisnika',
    description: 'Postavlja se kada se zatvori razgovor preko veb četa ili WhatsApp-a',
    satisfaction: 'Koliko ste zadovoljni uslugom?',
    options: ['Veoma zadovoljan', 'Zadovoljan', 'Neutralan', 'Nezadovoljan'],
    recommend: 'Koliko je verovatno da biste nas preporučili (0-10)?',
    solved: 'Da li je vaš problem rešen?',
  },
  de: {
    name: 'Kundenzufriedenheit',
    description: 'Wird gefragt, wenn ein Webchat- oder WhatsApp-Gespräch endet',
    satisfaction: 'Wie zufrieden sind Sie mit dem Service?',
    options: ['Sehr zufrieden', 'Zufrieden', 'Neutral', 'Unzufrieden'],
    recommend: 'Wie wahrscheinlich ist es, dass Sie uns weiterempfehlen (0-10)?',
    solved: 'Wurde Ihr Problem gelöst?',
  },
  ru: {
    name: 'Удовлетворённость клиентов',
    description: 'Задаётся при закрытии разговора в веб-чате или WhatsApp',
    satisfaction: 'Насколько вы довольны обслуживанием?',
    options: ['Очень доволен', 'Доволен', 'Нейтрально', 'Не доволен'],
    recommend: 'Насколько вероятно, что вы порекомендуете нас (0-10)?',
    solved: 'Ваша проблема решена?',
  },
};
