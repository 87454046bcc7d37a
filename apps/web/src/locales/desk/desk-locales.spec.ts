import { describe, expect, it } from '@jest/globals';
import { LANGUAGES } from '@centralita/contracts';
import { DICTIONARIES } from '../../i18n/resources';
import { DESK_DICTIONARIES } from './index';

type Tree = { [key: string]: string | Tree };

function flatten(tree: Tree, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(tree)) {
    if (typeof value === 'string') out[prefix + key] = value;
    else Object.assign(out, flatten(value, `${prefix}${key}.`));
  }
  return out;
}

const placeholders = (text: string) => [...text.matchAll(/{{\s*(\w+)\s*}}/g)].map((m) => m[1]).sort();
const es = flatten(DESK_DICTIONARIES.es as unknown as Tree);
const others = LANGUAGES.filter((lng) => lng !== 'es');

describe('desk locales', () => {
  it.each(others)('%s has every desk key of es, none empty, and no extra ones', (lng) => {
    const dict = flatten(DESK_DICTIONARIES[lng] as unknown as Tree);
    expect(Object.keys(es).filter((key) => !dict[key]?.trim())).toEqual([]);
    expect(Object.keys(dict).filter((key) => !(key in es))).toEqual([]);
  });

  it.each(others)('%s keeps the interpolation placeholders of es', (lng) => {
    const dict = flatten(DESK_DICTIONARIES[lng] as unknown as Tree);
    expect(Object.keys(es).filter((key) => placeholders(es[key]).join() !== placeholders(dict[key] ?? '').join())).toEqual([]);
  });

  it.each(others)('%s is really translated (not a copy of the Spanish)', (lng) => {
    const dict = flatten(DESK_DICTIONARIES[lng] as unknown as Tree);
    const same = Object.keys(es).filter((key) => dict[key] === es[key]);
    // Proper names and loanwords ('Spam', 'Agent'…) may coincide; whole sections may not.
    expect(same.length).toBeLessThan(Object.keys(es).length * 0.15);
  });

  it.each(LANGUAGES)('%s is merged under "desk" into the default namespace', (lng) => {
    expect(DICTIONARIES[lng].desk).toBe(DESK_DICTIONARIES[lng]);
  });

  it('names every conversation status and agent state the machines know', async () => {
    const { AGENT_STATUSES, CONVERSATION_STATUSES } = await import('@centralita/domain');
    for (const lng of LANGUAGES) {
      const dict = flatten(DESK_DICTIONARIES[lng] as unknown as Tree);
      expect(CONVERSATION_STATUSES.filter((status) => !dict[`conversationStatus.${status}`])).toEqual([]);
      expect(AGENT_STATUSES.filter((status) => !dict[`agentStatus.${status}`])).toEqual([]);
    }
  });
});
