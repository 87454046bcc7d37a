import { IVR_DIGITS, type IvrDestination, type IvrIssue, type IvrNode, type IvrTree } from '@centralita/contracts';

/** Pure helpers of the IVR tree editor (kept out of the component so they are unit-tested). */

/** The first key 1-9, 0, *, # the node does not use yet ('' when all twelve are taken). */
export function nextFreeDigit(node: IvrNode): string {
  const used = new Set(node.options.map((o) => o.digit));
  return IVR_DIGITS.find((d) => !used.has(d)) ?? '';
}

/** A node id not used in the tree ("n2", "n3"…). */
export function newNodeId(tree: IvrTree): string {
  const ids = new Set(tree.nodes.map((n) => n.id));
  let i = tree.nodes.length + 1;
  while (ids.has(`n${i}`)) i++;
  return `n${i}`;
}

export function emptyNode(id: string, name: string): IvrNode {
  return {
    id,
    name,
    promptText: null,
    promptAudioUrl: null,
    timeoutSeconds: 5,
    maxRetries: 2,
    fallback: { type: 'hangup', targetId: null },
    options: [],
  };
}

export function updateNode(tree: IvrTree, nodeId: string, change: (node: IvrNode) => IvrNode): IvrTree {
  return { ...tree, nodes: tree.nodes.map((n) => (n.id === nodeId ? change(n) : n)) };
}

/**
 * Removes a node and every destination that pointed at it (they become "hang up" so the editor
 * never holds a dangling reference). The first node cannot be removed.
 */
export function removeNode(tree: IvrTree, nodeId: string): IvrTree {
  if (nodeId === tree.rootNodeId) return tree;
  const detach = (d: IvrDestination): IvrDestination =>
    d.type === 'node' && d.targetId === nodeId ? { type: 'hangup', targetId: null } : d;
  return {
    ...tree,
    nodes: tree.nodes
      .filter((n) => n.id !== nodeId)
      .map((n) => ({ ...n, fallback: detach(n.fallback), options: n.options.map((o) => ({ ...o, destination: detach(o.destination) })) })),
  };
}

/** Issues keyed by field ("tree.nodes.0.options.1.digit"), the first per field. */
export function ivrIssuesByField(issues: IvrIssue[]): Record<string, IvrIssue> {
  const out: Record<string, IvrIssue> = {};
  for (const issue of issues) out[issue.field] ??= issue;
  return out;
}

/** How many issues concern each node (by index), for the badges of the structure tree. */
export function issueCountByNode(issues: IvrIssue[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const issue of issues) {
    const match = /^tree\.nodes\.(\d+)/.exec(issue.field);
    if (match) counts.set(Number(match[1]), (counts.get(Number(match[1])) ?? 0) + 1);
  }
  return counts;
}

/** The issues of a validation envelope from the tree endpoints (data.issues). */
export function serverIvrIssues(data: unknown): IvrIssue[] {
  const issues = (data as { issues?: unknown } | null)?.issues;
  return Array.isArray(issues) ? (issues.filter((i) => i && typeof (i as IvrIssue).field === 'string') as IvrIssue[]) : [];
}

export interface StructureNode {
  key: string;
  nodeId: string;
  label: string;
  children: StructureNode[];
}

/**
 * The tree as the overview shows it: each node with the sub-menus its keys lead to, first node on
 * top. A node reached twice (or a loop back) is shown once, where it is first reached.
 */
export function structureOf(tree: IvrTree): StructureNode[] {
  const byId = new Map(tree.nodes.map((n) => [n.id, n]));
  const placed = new Set<string>();
  const build = (id: string, via: string): StructureNode | null => {
    const node = byId.get(id);
    if (!node || placed.has(id)) return null;
    placed.add(id);
    const children: StructureNode[] = [];
    for (const option of node.options) {
      if (option.destination.type === 'node' && option.destination.targetId) {
        const child = build(option.destination.targetId, option.digit);
        if (child) children.push(child);
      }
    }
    return { key: id, nodeId: id, label: via ? `${via} · ${node.name || id}` : node.name || id, children };
  };
  const roots: StructureNode[] = [];
  const root = build(tree.rootNodeId, '');
  if (root) roots.push(root);
  // Nodes no key leads to yet still appear, so they can be edited or removed.
  for (const node of tree.nodes) {
    const orphan = build(node.id, '');
    if (orphan) roots.push(orphan);
  }
  return roots;
}
