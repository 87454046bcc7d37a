import { analyseSentiment, normalise } from './sentiment-analyser';

describe(analyseSentiment.name, () => {
  it.each([
    ['Muchas gracias, el servicio es excelente y estoy muy contento', 'positive', 'es'],
    ['Esto es horrible, estoy muy enfadado, el servicio es pésimo', 'negative', 'es'],
    ['Thank you, this is great, I love it', 'positive', 'en'],
    ['This is terrible, awful service, I hate it', 'negative', 'en'],
  ])('scores "%s" as %s (%s)', (text, label, language) => {
    const result = analyseSentiment(text);
    expect(result).toMatchObject({ label, language });
    expect(Math.sign(result.score)).toBe(label === 'positive' ? 1 : -1);
  });

  it('calls a message with no opinion words neutral', () => {
    expect(analyseSentiment('Necesito cambiar la dirección de envío')).toMatchObject({ score: 0, label: 'neutral' });
  });

  it('keeps every score inside -1..1', () => {
    expect(normalise(0)).toBe(0);
    expect(normalise(2)).toBeCloseTo(2 / Math.sqrt(19), 12);
    expect(normalise(-1000)).toBeGreaterThan(-1);
    expect(normalise(1000)).toBeLessThan(1);
  });
});
