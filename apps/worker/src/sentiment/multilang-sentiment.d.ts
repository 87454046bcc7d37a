declare module 'multilang-sentiment' {
  interface MultilangSentimentResult {
    score: number;
    comparative: number;
    positive: string[];
    negative: string[];
    words: string[];
  }
  function analyse(phrase: string, lang?: string, inject?: { words?: Record<string, number>; tokens?: string[] }): MultilangSentimentResult;
  export = analyse;
}

declare module 'multilang-sentiment/lib/tokenize' {
  /** The library's tokeniser: lower-cased words, punctuation dropped, negators (one or two words) marked. */
  function tokenize(input: string, lang: string): { value: string; negate: boolean }[];
  export = tokenize;
}

declare module 'multilang-sentiment/lib/utils' {
  /** Whether the word (or two-word phrase) is one of the language's negators. */
  export function isNegator(word: string, lang: string): boolean;
}
