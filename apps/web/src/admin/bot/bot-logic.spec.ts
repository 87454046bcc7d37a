import { describe, expect, it } from '@jest/globals';
import { keywordsFromText, synonymGroupsFromText, synonymGroupsToText } from './bot-logic';

describe('bot screen logic', () => {
  it('reads handoff keywords separated by commas, without empties or repeats', () => {
    expect(keywordsFromText(' agente, humano ,, persona, agente ')).toEqual(['agente', 'humano', 'persona']);
  });

  it('reads one synonym group per line and writes them back the same way', () => {
    const groups = synonymGroupsFromText('envío, despacho, entrega\n\n refund , reembolso \n');
    expect(groups).toEqual([{ terms: ['envío', 'despacho', 'entrega'] }, { terms: ['refund', 'reembolso'] }]);
    expect(synonymGroupsToText(groups)).toBe('envío, despacho, entrega\nrefund, reembolso');
  });
});
