import { asksForPerson, fold, guessLanguage, TenantRetrieval, type RetrievalEntry } from './bot-retrieval';

const HOURS: RetrievalEntry = {
  id: 'hours',
  question: '¿Cuál es el horario de atención?',
  answer: 'Atendemos de lunes a viernes de 9:00 a 18:00. We are open Monday to Friday, 9 am to 6 pm.',
};
const SHIPPING: RetrievalEntry = {
  id: 'shipping',
  question: '¿Cuánto tarda el envío de un pedido?',
  answer: 'Los envíos tardan de 2 a 4 días hábiles.',
};
const REFUND: RetrievalEntry = {
  id: 'refund',
  question: 'How do I get a refund for my order?',
  answer: 'Refunds are processed within 5 business days from the returns page.',
};

describe(TenantRetrieval.name, () => {
  const retrieval = new TenantRetrieval([HOURS, SHIPPING, REFUND], [['envio', 'despacho', 'entrega']]);

  it('finds a Spanish entry through stems (horarios ↔ horario)', () => {
    const hit = retrieval.best('¿Qué horarios tienen?', 'es');
    expect(hit?.entry.id).toBe('hours');
    expect(hit!.score).toBe(1);
  });

  it('finds an English entry through stems (refunded, orders ↔ refund, order)', () => {
    const hit = retrieval.best('Can my orders be refunded?', 'en');
    expect(hit?.entry.id).toBe('refund');
    expect(hit!.score).toBe(1);
  });

  it('folds accents: "envio" without the accent finds "envío"', () => {
    expect(retrieval.best('cuanto tarda el envio', 'es')?.entry.id).toBe('shipping');
    expect(retrieval.best('CUÁNTO TARDA EL ENVÍO', 'es')?.entry.id).toBe('shipping');
  });

  it("uses the tenant's synonyms: 'despacho' finds the entry that says 'envío'", () => {
    const hit = retrieval.best('¿cuánto tarda el despacho?', 'es');
    expect(hit?.entry.id).toBe('shipping');
    expect(hit!.score).toBe(1);
    // Without the synonym the word is unknown: only "tarda" matches.
    const plain = new TenantRetrieval([HOURS, SHIPPING, REFUND], []);
    expect(plain.best('¿cuánto tarda el despacho?', 'es')!.score).toBe(0.5);
  });

  it('scores the share of meaningful words covered, so a threshold can refuse a weak match', () => {
    const hit = retrieval.best('horario del parking para bicicletas', 'es');
    expect(hit?.entry.id).toBe('hours');
    expect(hit!.score).toBeCloseTo(0.333, 2);
    expect(hit!.score).toBeLessThan(0.5);
  });

  it('answers null for words no entry has, and for a text of stopwords only', () => {
    expect(retrieval.best('¿venden zapatos rojos?', 'es')).toBeNull();
    expect(retrieval.best('hola, buenas tardes', 'es')).toBeNull();
  });

  it("never answers with another tenant's entries: each tenant's index holds only its own", () => {
    const other = new TenantRetrieval([{ id: 'secret', question: 'Código secreto del almacén', answer: 'El código es 4321' }], []);
    expect(retrieval.best('código secreto del almacén', 'es')).toBeNull();
    expect(other.best('código secreto del almacén', 'es')?.entry.id).toBe('secret');
  });
});

describe('bot language helpers', () => {
  it('guesses Spanish and English by their words, falling back when it cannot tell', () => {
    expect(guessLanguage('¿Cuál es el horario?')).toBe('es');
    expect(guessLanguage('What are your opening hours?')).toBe('en');
    expect(guessLanguage('horario', 'en')).toBe('en');
  });

  it('folds accents and case', () => {
    expect(fold('Envío RÁPIDO')).toBe('envio rapido');
  });

  it('spots a handoff keyword as a whole word, without accents or case', () => {
    const keywords = ['agente', 'humano', 'human', 'talk to a person'];
    expect(asksForPerson('Quiero hablar con un AGENTE', keywords)).toBe(true);
    expect(asksForPerson('I want a human', keywords)).toBe(true);
    expect(asksForPerson('Can I talk to a person?', keywords)).toBe(true);
    expect(asksForPerson('agentes de viaje', keywords)).toBe(false);
    expect(asksForPerson('humanidad', keywords)).toBe(false);
  });
});
