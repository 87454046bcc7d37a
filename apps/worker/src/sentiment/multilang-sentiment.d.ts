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
