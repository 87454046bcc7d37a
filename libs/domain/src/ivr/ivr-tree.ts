import {
  IVR_DESTINATION_TYPES,
  IVR_DIGITS,
  IVR_LIMITS,
  type IvrDestination,
  type IvrDestinationType,
  type IvrIssue,
  type IvrNode,
  type IvrTree,
} from '@centralita/contracts';

/**
 * Pure rules of an IVR tree: the console runs them while the administrator edits, the API runs
 * them again (plus the tenant look-ups) before saving and before applying.
 */

const NODE_ID = /^[A-Za-z0-9_-]+$/;
// An absolute http(s) URL or a path on the platform; never `//host` or backslashes (read as another host).
const URL = /^(https?:\/\/[^\s\\]+|\/(?![/\\])[^\s\\]+)$/;

/** A destination another IVR, an attention line or an agent: what the tenant must own. */
export interface IvrReference {
  field: string;
  type: 'line' | 'agent' | 'ivr';
  targetId: string;
}

/** A tree with trimmed text, empty strings as null and missing numbers at their defaults. */
export function normalizeIvrTree(raw: Partial<IvrTree> | null | undefined): IvrTree {
  const nodes = Array.isArray(raw?.nodes) ? raw.nodes : [];
  const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);
  const destination = (d: Partial<IvrDestination> | null | undefined): IvrDestination => {
    const type = (d?.type ?? 'hangup') as IvrDestinationType;
    return { type, targetId: type === 'hangup' ? null : text(d?.targetId) };
  };
  return {
    rootNodeId: text(raw?.rootNodeId) ?? '',
    nodes: nodes.map((node: Partial<IvrNode>) => ({
      id: text(node?.id) ?? '',
      name: text(node?.name) ?? '',
      promptText: text(node?.promptText),
      promptAudioUrl: text(node?.promptAudioUrl),
      // Only when set: trees saved before recorded prompts existed stay byte-for-byte the same.
      ...(text(node?.promptAudioFileId) ? { promptAudioFileId: text(node?.promptAudioFileId) } : {}),
      timeoutSeconds: typeof node?.timeoutSeconds === 'number' ? node.timeoutSeconds : 5,
      maxRetries: typeof node?.maxRetries === 'number' ? node.maxRetries : 2,
      fallback: destination(node?.fallback),
      options: (Array.isArray(node?.options) ? node.options : []).map((option) => ({
        digit: text(option?.digit) ?? '',
        label: text(option?.label),
        destination: destination(option?.destination),
      })),
    })),
  };
}

/** A one-node tree the add screen starts from: "1" goes nowhere yet, so the administrator must choose. */
export function starterIvrTree(): IvrTree {
  return {
    rootNodeId: 'main',
    nodes: [
      {
        id: 'main',
        name: 'Main menu',
        promptText: null,
        promptAudioUrl: null,
        timeoutSeconds: 5,
        maxRetries: 2,
        fallback: { type: 'hangup', targetId: null },
        options: [],
      },
    ],
  };
}

function checkDestination(issues: IvrIssue[], field: string, destination: IvrDestination, nodeIds: Set<string>, selfIvrId?: string) {
  if (!(IVR_DESTINATION_TYPES as readonly string[]).includes(destination.type)) {
    issues.push({ field: `${field}.type`, key: 'oneOf', values: { options: IVR_DESTINATION_TYPES.join(', ') } });
    return;
  }
  if (destination.type === 'hangup') return;
  if (!destination.targetId) {
    issues.push({ field: `${field}.targetId`, key: 'required' });
    return;
  }
  if (destination.type === 'node' && !nodeIds.has(destination.targetId)) issues.push({ field: `${field}.targetId`, key: 'unknownNode' });
  if (destination.type === 'ivr' && selfIvrId && destination.targetId === selfIvrId)
    issues.push({ field: `${field}.targetId`, key: 'selfIvr' });
}

const nodeTargets = (node: IvrNode): string[] =>
  [...node.options.map((o) => o.destination), node.fallback].filter((d) => d.type === 'node' && d.targetId).map((d) => d.targetId!);
const exitsDirectly = (node: IvrNode): boolean =>
  [...node.options.map((o) => o.destination), node.fallback].some(
    (d) => d.type !== 'node' && (IVR_DESTINATION_TYPES as readonly string[]).includes(d.type),
  );

/**
 * Every rule a tree must pass, with the offending field named (`tree.nodes.1.options.0.digit`):
 * a prompt per node, 1..60 s timeout, 0..5 retries, at least one option, digits 0-9 * # unique
 * per node, complete destinations, no jump back to the same IVR, every node reachable from the
 * first one, and no group of menus that only lead to each other (a caller could never get out).
 */
export function validateIvrTree(tree: IvrTree, options: { ivrId?: string } = {}): IvrIssue[] {
  const issues: IvrIssue[] = [];
  if (tree.nodes.length === 0) {
    issues.push({ field: 'tree.nodes', key: 'required' });
    return issues;
  }
  if (tree.nodes.length > IVR_LIMITS.nodesMax)
    issues.push({ field: 'tree.nodes', key: 'range', values: { min: 1, max: IVR_LIMITS.nodesMax } });
  const nodeIds = new Set<string>();
  tree.nodes.forEach((node, index) => {
    const field = `tree.nodes.${index}`;
    if (!node.id) issues.push({ field: `${field}.id`, key: 'required' });
    else if (node.id.length > IVR_LIMITS.nodeIdMax || !NODE_ID.test(node.id)) issues.push({ field: `${field}.id`, key: 'pattern' });
    else if (nodeIds.has(node.id)) issues.push({ field: `${field}.id`, key: 'duplicate', values: { value: node.id } });
    nodeIds.add(node.id);
  });
  if (!tree.rootNodeId) issues.push({ field: 'tree.rootNodeId', key: 'required' });
  else if (!nodeIds.has(tree.rootNodeId)) issues.push({ field: 'tree.rootNodeId', key: 'unknownNode' });

  tree.nodes.forEach((node, index) => {
    const field = `tree.nodes.${index}`;
    if (!node.name) issues.push({ field: `${field}.name`, key: 'required' });
    else if (node.name.length > IVR_LIMITS.nameMax)
      issues.push({ field: `${field}.name`, key: 'maxLength', values: { count: IVR_LIMITS.nameMax } });
    if (!node.promptText && !node.promptAudioUrl && !node.promptAudioFileId)
      issues.push({ field: `${field}.promptText`, key: 'promptRequired' });
    if (node.promptText && node.promptText.length > IVR_LIMITS.promptTextMax)
      issues.push({ field: `${field}.promptText`, key: 'maxLength', values: { count: IVR_LIMITS.promptTextMax } });
    if (node.promptAudioUrl && (node.promptAudioUrl.length > IVR_LIMITS.urlMax || !URL.test(node.promptAudioUrl)))
      issues.push({ field: `${field}.promptAudioUrl`, key: 'pattern' });
    if (
      !Number.isInteger(node.timeoutSeconds) ||
      node.timeoutSeconds < IVR_LIMITS.timeoutMin ||
      node.timeoutSeconds > IVR_LIMITS.timeoutMax
    )
      issues.push({ field: `${field}.timeoutSeconds`, key: 'range', values: { min: IVR_LIMITS.timeoutMin, max: IVR_LIMITS.timeoutMax } });
    if (!Number.isInteger(node.maxRetries) || node.maxRetries < 0 || node.maxRetries > IVR_LIMITS.retriesMax)
      issues.push({ field: `${field}.maxRetries`, key: 'range', values: { min: 0, max: IVR_LIMITS.retriesMax } });
    checkDestination(issues, `${field}.fallback`, node.fallback, nodeIds, options.ivrId);
    if (node.options.length === 0) issues.push({ field: `${field}.options`, key: 'noOptions' });
    const seen = new Set<string>();
    node.options.forEach((option, optionIndex) => {
      const optionField = `${field}.options.${optionIndex}`;
      if (!option.digit) issues.push({ field: `${optionField}.digit`, key: 'required' });
      else if (!(IVR_DIGITS as readonly string[]).includes(option.digit))
        issues.push({ field: `${optionField}.digit`, key: 'oneOf', values: { options: IVR_DIGITS.join(' ') } });
      else if (seen.has(option.digit)) issues.push({ field: `${optionField}.digit`, key: 'duplicate', values: { value: option.digit } });
      seen.add(option.digit);
      if (option.label && option.label.length > IVR_LIMITS.labelMax)
        issues.push({ field: `${optionField}.label`, key: 'maxLength', values: { count: IVR_LIMITS.labelMax } });
      checkDestination(issues, `${optionField}.destination`, option.destination, nodeIds, options.ivrId);
    });
  });

  // Graph rules only make sense once the node ids are sound.
  if (issues.some((issue) => issue.field.endsWith('.id') || issue.field === 'tree.rootNodeId')) return issues;
  const byId = new Map(tree.nodes.map((node) => [node.id, node]));
  const reachable = new Set<string>([tree.rootNodeId]);
  const queue = [tree.rootNodeId];
  while (queue.length) {
    for (const next of nodeTargets(byId.get(queue.shift()!)!)) {
      if (byId.has(next) && !reachable.has(next)) {
        reachable.add(next);
        queue.push(next);
      }
    }
  }
  // Fixed point: a node can end the call if it has a way out, or leads to a node that has one.
  const canExit = new Set(tree.nodes.filter(exitsDirectly).map((node) => node.id));
  for (let changed = true; changed;) {
    changed = false;
    for (const node of tree.nodes) {
      if (!canExit.has(node.id) && nodeTargets(node).some((id) => canExit.has(id))) {
        canExit.add(node.id);
        changed = true;
      }
    }
  }
  tree.nodes.forEach((node, index) => {
    if (!reachable.has(node.id)) issues.push({ field: `tree.nodes.${index}`, key: 'unreachable' });
    else if (!canExit.has(node.id)) issues.push({ field: `tree.nodes.${index}`, key: 'trap' });
  });
  return issues;
}

/** The tenant rows a tree points at (the API checks they exist in the caller's tenant). */
export function ivrReferences(tree: IvrTree): IvrReference[] {
  const refs: IvrReference[] = [];
  const add = (field: string, d: IvrDestination) => {
    // A voicemail belongs to a line (its staff find the message): the tenant must own that line.
    if (d.type === 'voicemail' && d.targetId) refs.push({ field: `${field}.targetId`, type: 'line', targetId: d.targetId });
    else if ((d.type === 'line' || d.type === 'agent' || d.type === 'ivr') && d.targetId)
      refs.push({ field: `${field}.targetId`, type: d.type, targetId: d.targetId });
  };
  tree.nodes.forEach((node, index) => {
    add(`tree.nodes.${index}.fallback`, node.fallback);
    node.options.forEach((option, optionIndex) => add(`tree.nodes.${index}.options.${optionIndex}.destination`, option.destination));
  });
  return refs;
}

/** The IVRs a tree jumps to. */
export function ivrTargets(tree: IvrTree | null | undefined): string[] {
  return tree
    ? [
        ...new Set(
          ivrReferences(tree)
            .filter((ref) => ref.type === 'ivr')
            .map((ref) => ref.targetId),
        ),
      ]
    : [];
}

/**
 * A loop of IVR jumps that passes through `start` (A → B → A), or null. `edges` maps each IVR to
 * the IVRs its tree jumps to. Jumps between IVRs must form no loop: a caller bounced between
 * menus of different IVRs has no place where the loop is visibly offered, and telephony would
 * re-enter them forever on timeouts.
 */
export function findIvrCycle(start: string, edges: ReadonlyMap<string, readonly string[]>): string[] | null {
  const path: string[] = [];
  const done = new Set<string>();
  const visit = (id: string): string[] | null => {
    if (id === start && path.length > 0) return [...path, id];
    if (done.has(id) || path.includes(id)) return null;
    path.push(id);
    for (const next of edges.get(id) ?? []) {
      const found = visit(next);
      if (found) return found;
    }
    path.pop();
    done.add(id);
    return null;
  };
  return visit(start);
}

/** Same content (what apply compares to tell whether the draft has unpublished changes). */
export function sameIvrTree(a: IvrTree | null, b: IvrTree | null): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
