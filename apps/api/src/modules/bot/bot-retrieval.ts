import type { BotLanguage } from '@centralita/contracts';
import MiniSearch, { type Query, type SearchResult } from 'minisearch';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const spanish = require('@orama/stemmers/spanish') as { stemmer: (word: string) => string };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const english = require('@orama/stemmers/english') as { stemmer: (word: string) => string };

/** A questions-and-answers entry the bot may answer with (active, of one tenant). */
export interface RetrievalEntry {
  id: string;
  question: string;
  answer: string;
}

export interface RetrievalHit {
  entry: RetrievalEntry;
  /** 0..1: the share of the question's meaningful words (or a synonym of each) the entry contains. */
  score: number;
}

const STEMMERS: Record<BotLanguage, (word: string) => string> = { es: spanish.stemmer, en: english.stemmer };

/** Words that carry no meaning for matching, already folded (no accents, lower case). */
const STOPWORDS: Record<BotLanguage, Set<string>> = {
  es: new Set(
    (
      'a al algo algun alguna algunas alguno algunos ante antes como con contra cual cuales cuando cuanto cuantos de del desde donde ' +
      'durante e el ella ellas ellos en entre era eres es esa ese eso esta estan estar estas este esto estos estoy fue ha hay hasta ' +
      'hola buenas buenos dias tardes noches gracias favor la las le les lo los me mi mis mucho muy nada ni no nos o os otra otro para ' +
      'pero poco por porque puedo puede pueden que quien quiero quisiera saber se ser si sin sobre somos son soy su sus tambien te ' +
      'tengo tiene tienen ti tu tus un una uno unos usted ustedes y ya yo'
    ).split(' '),
  ),
  en: new Set(
    (
      'a about am an and any are as at be been can could did do does for from get have has hello hi how i if in is it its me my ' +
      'need of on or our please so tell thanks thank the their there this to us want was we what when where which who why will ' +
      'with would you your'
    ).split(' '),
  ),
};

/** Lower case without accents or other marks ("Envío" → "envio"): customers often type without them. */
export function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/** Folded words (letters and digits). */
export function words(text: string): string[] {
  return fold(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** The meaningful words of a text as stems of `language`, in order (stopwords dropped). */
export function stems(text: string, language: BotLanguage): string[] {
  return words(text)
    .filter((word) => !STOPWORDS[language].has(word))
    .map((word) => STEMMERS[language](word));
}

const SPANISH_MARKS = /[ñ¿¡áéíóú]/i;

/**
 * Spanish or English, by the words the text uses (stopwords of each, Spanish letters); a tie
 * (nothing to tell them apart) answers `fallback`.
 */
export function guessLanguage(text: string, fallback: BotLanguage = 'es'): BotLanguage {
  const all = words(text);
  let es = SPANISH_MARKS.test(text) ? 2 : 0;
  let en = 0;
  for (const word of all) {
    if (STOPWORDS.es.has(word)) es++;
    if (STOPWORDS.en.has(word)) en++;
  }
  if (es === en) return fallback;
  return es > en ? 'es' : 'en';
}

/** True when the text asks for a person: one of the keywords appears as whole words (folded). */
export function asksForPerson(text: string, keywords: readonly string[]): boolean {
  const said = ` ${words(text).join(' ')} `;
  return keywords.some((keyword) => {
    const wanted = words(keyword).join(' ');
    return wanted !== '' && said.includes(` ${wanted} `);
  });
}

/**
 * One tenant's retrieval: MiniSearch over question and answer (the question weighs double), terms
 * folded and stemmed by language (one index per language, built when first asked), queries
 * expanded with the tenant's synonyms. The score is coverage, not MiniSearch's unbounded BM25: the
 * share of the customer's meaningful words found (directly or through a synonym) in the best entry,
 * so an administrator's minimum score (0.5 = half the words) means the same for every tenant.
 */
export class TenantRetrieval {
  private readonly indices = new Map<BotLanguage, MiniSearch<RetrievalEntry>>();
  private readonly byId = new Map<string, RetrievalEntry>();

  constructor(
    private readonly entries: readonly RetrievalEntry[],
    private readonly synonyms: readonly (readonly string[])[],
  ) {
    for (const entry of entries) this.byId.set(entry.id, entry);
  }

  get size(): number {
    return this.entries.length;
  }

  /** The best entry for the text, or null when no entry shares a meaningful word with it. */
  best(text: string, language: BotLanguage): RetrievalHit | null {
    const tokens = [...new Set(stems(text, language))];
    if (!tokens.length || !this.entries.length) return null;
    const alternatives = tokens.map((token) => this.alternativesOf(token, language));
    const query: Query = {
      combineWith: 'OR',
      queries: alternatives.map((group) => ({ combineWith: 'OR', queries: [...group] })),
    };
    const results = this.index(language).search(query);
    let best: RetrievalHit | null = null;
    let bestRank = 0;
    for (const result of results) {
      const score = coverage(result, alternatives);
      if (!best || score > best.score || (score === best.score && result.score > bestRank)) {
        best = { entry: this.byId.get(String(result.id))!, score };
        bestRank = result.score;
      }
    }
    return best && best.score > 0 ? best : null;
  }

  /** The token and every stem of its synonym groups. */
  private alternativesOf(token: string, language: BotLanguage): Set<string> {
    const group = new Set([token]);
    for (const terms of this.synonyms) {
      const stemmed = terms.map((term) => stems(term, language).join(' ')).filter(Boolean);
      if (!stemmed.includes(token)) continue;
      for (const other of stemmed) for (const part of other.split(' ')) group.add(part);
    }
    return group;
  }

  private index(language: BotLanguage): MiniSearch<RetrievalEntry> {
    let index = this.indices.get(language);
    if (!index) {
      const stopwords = STOPWORDS[language];
      const stem = STEMMERS[language];
      index = new MiniSearch<RetrievalEntry>({
        fields: ['question', 'answer'],
        storeFields: [],
        tokenize: (text) => words(text),
        processTerm: (term) => (stopwords.has(term) ? null : stem(term)),
        searchOptions: {
          boost: { question: 2 },
          // The query is stemmed already (alternativesOf): taken as is.
          processTerm: (term) => term,
          tokenize: (text) => text.split(' ').filter(Boolean),
          fuzzy: (term) => (term.length >= 6 ? 0.2 : false),
        },
      });
      index.addAll([...this.entries]);
      this.indices.set(language, index);
    }
    return index;
  }
}

function coverage(result: SearchResult, alternatives: Set<string>[]): number {
  const matched = new Set(result.queryTerms);
  const covered = alternatives.filter((group) => [...group].some((term) => matched.has(term))).length;
  return Math.round((covered / alternatives.length) * 1000) / 1000;
}
