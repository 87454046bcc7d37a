/**
 * i18next plural keys (`key_one`, `key_few`, `key_many`, `key_other`): each language carries the forms its
 * own plural rules need (Intl.PluralRules), so the locale specs compare languages by the key without suffix.
 */
const SUFFIX = /_(zero|one|two|few|many|other)$/;

export type PluralForm = 'zero' | 'one' | 'two' | 'few' | 'many' | 'other';

/** The plural forms i18next looks up for this language. */
export function pluralForms(language: string): PluralForm[] {
  return [...new Intl.PluralRules(language).resolvedOptions().pluralCategories].sort() as PluralForm[];
}

/** Plural groups of a flattened dictionary: key without suffix → the forms present. */
export function pluralGroups(flat: Record<string, string>): Map<string, PluralForm[]> {
  const groups = new Map<string, PluralForm[]>();
  for (const key of Object.keys(flat)) {
    const match = SUFFIX.exec(key);
    if (!match) continue;
    const base = key.slice(0, match.index);
    groups.set(base, [...(groups.get(base) ?? []), match[1] as PluralForm].sort());
  }
  return groups;
}

/** The flattened dictionary with each plural group folded into one key (the `_other` text stands for it). */
export function foldPlurals(flat: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(flat)) {
    const match = SUFFIX.exec(key);
    if (!match) out[key] = value;
    else if (match[1] === 'other') out[key.slice(0, match.index)] = value;
  }
  return out;
}

type Suffixed<B extends string> = `${B}_${PluralForm}`;

/**
 * A dictionary's shape with each plural group folded into its key (`x_one`, `x_few`, `x_other` → `x`),
 * so languages with different plural forms still type-check against the Spanish reference.
 */
export type Folded<T> = {
  [K in keyof T as K extends Suffixed<infer B> ? (K extends `${B}_other` ? B : never) : K]: T[K] extends string ? string : Folded<T[K]>;
};

/** A dictionary seen by its folded shape (the JSON itself is unchanged). */
export const folded = <T>(dictionary: T): Folded<T> => dictionary as unknown as Folded<T>;
