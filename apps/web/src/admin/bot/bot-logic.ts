import type { BotSynonymGroup } from '@centralita/contracts';

/** "agente, humano ,, persona" → ['agente', 'humano', 'persona'] (empty pieces and repeats dropped). */
export function keywordsFromText(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map((word) => word.trim())
        .filter(Boolean),
    ),
  ];
}

/** One group per line, words separated by commas; a line of fewer than two words is kept as is for the API to name. */
export function synonymGroupsFromText(text: string): BotSynonymGroup[] {
  return text
    .split('\n')
    .map((line) => keywordsFromText(line))
    .filter((terms) => terms.length > 0)
    .map((terms) => ({ terms }));
}

export function synonymGroupsToText(groups: BotSynonymGroup[]): string {
  return groups.map((group) => group.terms.join(', ')).join('\n');
}
