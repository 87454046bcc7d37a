import type { IvrDestination, IvrNode, IvrTree } from '@centralita/contracts';

/**
 * The caller's walk through a published IVR tree, as pure steps: the voice server keeps the state,
 * plays what the action says and feeds back the key the caller pressed or the timeout. Nothing
 * here touches a clock or a socket, so every branch is unit-tested.
 */

export interface IvrWalkState {
  ivrId: string;
  nodeId: string;
  /** Invalid keys and timeouts at the current node so far. */
  attempts: number;
  /** Node names walked, across IVRs. */
  path: string[];
  /** IVRs entered during this call, in order. */
  visitedIvrs: string[];
}

export type IvrPrompt = { nodeId: string; text: string | null; audioFileId: string | null; audioUrl: string | null };

export type IvrAction =
  /** Play the prompt, then wait for one key (barge-in allowed); retry: a replay after an invalid key or a timeout. */
  | { type: 'prompt'; prompt: IvrPrompt; timeoutSeconds: number; retry: boolean }
  | { type: 'line'; attentionLineId: string }
  | { type: 'agent'; agentId: string }
  /** Beep, then record the caller's message for the line's staff until '#', hang-up or the maximum length. */
  | { type: 'voicemail'; attentionLineId: string }
  /** The caller loads that IVR's published tree and calls startIvr(tree, ivrId, state). */
  | { type: 'ivr'; ivrId: string }
  | { type: 'hangup'; reason: 'menu' | 'retriesExhausted' | 'loop' };

export interface IvrStep {
  state: IvrWalkState;
  action: IvrAction;
}

/**
 * Nodes entered in one call before the walk gives up. validateIvrTree refuses menus with no way
 * out, but a caller who never presses a key can still bounce between fallbacks that point at each
 * other; this bounds that walk.
 */
export const IVR_MAX_STEPS = 100;

const findNode = (tree: IvrTree, nodeId: string): IvrNode | undefined => tree.nodes.find((node) => node.id === nodeId);

const promptOf = (node: IvrNode): IvrPrompt => ({
  nodeId: node.id,
  text: node.promptText ?? null,
  audioFileId: node.promptAudioFileId ?? null,
  audioUrl: node.promptAudioUrl ?? null,
});

const prompt = (node: IvrNode, retry: boolean): IvrAction => ({
  type: 'prompt',
  prompt: promptOf(node),
  timeoutSeconds: node.timeoutSeconds,
  retry,
});

const hangup = (state: IvrWalkState, reason: 'menu' | 'retriesExhausted' | 'loop'): IvrStep => ({
  state,
  action: { type: 'hangup', reason },
});

function enterNode(tree: IvrTree, state: IvrWalkState, nodeId: string): IvrStep {
  const node = findNode(tree, nodeId);
  // A published tree was validated; a missing node can only be a stale reference: end the call cleanly.
  if (!node) return hangup(state, 'menu');
  if (state.path.length >= IVR_MAX_STEPS) return hangup(state, 'loop');
  const next: IvrWalkState = { ...state, nodeId: node.id, attempts: 0, path: [...state.path, node.name] };
  return { state: next, action: prompt(node, false) };
}

/** Where a destination sends the call; `exhausted` marks a fallback taken after the retries. */
function follow(tree: IvrTree, state: IvrWalkState, destination: IvrDestination, exhausted: boolean): IvrStep {
  const target = destination.targetId;
  switch (destination.type) {
    case 'node':
      return target ? enterNode(tree, state, target) : hangup(state, 'menu');
    case 'line':
      return target ? { state, action: { type: 'line', attentionLineId: target } } : hangup(state, 'menu');
    case 'agent':
      return target ? { state, action: { type: 'agent', agentId: target } } : hangup(state, 'menu');
    case 'voicemail':
      return target ? { state, action: { type: 'voicemail', attentionLineId: target } } : hangup(state, 'menu');
    case 'ivr':
      if (!target) return hangup(state, 'menu');
      if (target === state.ivrId || state.visitedIvrs.includes(target)) return hangup(state, 'loop');
      return { state, action: { type: 'ivr', ivrId: target } };
    case 'hangup':
    default:
      return hangup(state, exhausted ? 'retriesExhausted' : 'menu');
  }
}

/** A miss (invalid key or timeout): replay the prompt while retries remain, then take the fallback. */
function miss(tree: IvrTree, state: IvrWalkState): IvrStep {
  const node = findNode(tree, state.nodeId);
  if (!node) return hangup(state, 'menu');
  const attempts = state.attempts + 1;
  if (attempts <= node.maxRetries) return { state: { ...state, attempts }, action: prompt(node, true) };
  return follow(tree, { ...state, attempts }, node.fallback, true);
}

/**
 * Enter an IVR at its first node. `from` is the walk of the IVR that jumped here (its path and
 * visited IVRs carry over); entering an IVR this call already went through ends the call ('loop').
 */
export function startIvr(tree: IvrTree, ivrId: string, from?: IvrWalkState): IvrStep {
  if (from?.visitedIvrs.includes(ivrId)) return hangup(from, 'loop');
  const base: IvrWalkState = {
    ivrId,
    nodeId: tree.rootNodeId,
    attempts: 0,
    path: from ? [...from.path] : [],
    visitedIvrs: [...(from?.visitedIvrs ?? []), ivrId],
  };
  return enterNode(tree, base, tree.rootNodeId);
}

/** The caller pressed `digit` at the current node. */
export function ivrKey(tree: IvrTree, state: IvrWalkState, digit: string): IvrStep {
  const node = findNode(tree, state.nodeId);
  if (!node) return hangup(state, 'menu');
  const option = node.options.find((o) => o.digit === digit.trim());
  if (!option) return miss(tree, state);
  return follow(tree, state, option.destination, false);
}

/** The node's timeout passed with no key. */
export function ivrTimeout(tree: IvrTree, state: IvrWalkState): IvrStep {
  return miss(tree, state);
}
