import { describe, expect, it } from '@jest/globals';
import type { IvrTree } from '@centralita/contracts';
import { emptyNode, issueCountByNode, newNodeId, nextFreeDigit, removeNode, serverIvrIssues, structureOf } from './ivr-editor-logic';

const tree = (): IvrTree => {
  const main = emptyNode('main', 'Main');
  main.options = [
    { digit: '1', label: null, destination: { type: 'node', targetId: 'n2' } },
    { digit: '2', label: null, destination: { type: 'hangup', targetId: null } },
  ];
  const sub = emptyNode('n2', 'Sales');
  sub.options = [{ digit: '*', label: null, destination: { type: 'node', targetId: 'main' } }];
  return { rootNodeId: 'main', nodes: [main, sub, emptyNode('n3', 'Loose')] };
};

describe('IVR editor logic', () => {
  it('offers the first key the node does not use yet', () => {
    expect(nextFreeDigit(tree().nodes[0])).toBe('3');
  });

  it('names new nodes without clashing', () => {
    expect(newNodeId(tree())).toBe('n4');
  });

  it('removing a node turns the keys that led to it into hang-up, and never removes the first node', () => {
    const after = removeNode(tree(), 'n2');
    expect(after.nodes.map((n) => n.id)).toEqual(['main', 'n3']);
    expect(after.nodes[0].options[0].destination).toEqual({ type: 'hangup', targetId: null });
    expect(removeNode(tree(), 'main').nodes).toHaveLength(3);
  });

  it('shows sub-menus under the key that leads to them, loops once, and loose nodes at the top level', () => {
    expect(structureOf(tree())).toEqual([
      { key: 'main', nodeId: 'main', label: 'Main', children: [{ key: 'n2', nodeId: 'n2', label: '1 · Sales', children: [] }] },
      { key: 'n3', nodeId: 'n3', label: 'Loose', children: [] },
    ]);
  });

  it('counts issues per node and reads them from a validation envelope', () => {
    const issues = serverIvrIssues({
      issues: [
        { field: 'tree.nodes.1.options.0.digit', key: 'duplicate' },
        { field: 'tree.nodes.1.name', key: 'required' },
        { field: 'tree.rootNodeId', key: 'required' },
      ],
    });
    expect([...issueCountByNode(issues)]).toEqual([[1, 2]]);
    expect(serverIvrIssues(null)).toEqual([]);
  });
});
