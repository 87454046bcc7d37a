import { describe, expect, it } from '@jest/globals';
import type { IvrDestination, IvrNode, IvrTree } from '@centralita/contracts';
import { IVR_MAX_STEPS, ivrKey, ivrTimeout, startIvr, type IvrWalkState } from './ivr-walker';

const to = (type: IvrDestination['type'], targetId: string | null = null): IvrDestination => ({ type, targetId });
const node = (id: string, options: IvrNode['options'], overrides: Partial<IvrNode> = {}): IvrNode => ({
  id,
  name: `Menu ${id}`,
  promptText: `Prompt ${id}`,
  promptAudioUrl: null,
  timeoutSeconds: 5,
  maxRetries: 2,
  fallback: to('hangup'),
  options,
  ...overrides,
});
const opt = (digit: string, destination: IvrDestination) => ({ digit, label: null, destination });

// main: 1 → line, 2 → agent, 3 → other IVR, 4 → sub-menu, 0 → hang-up; falls back to the sub-menu.
const tree: IvrTree = {
  rootNodeId: 'main',
  nodes: [
    node(
      'main',
      [
        opt('1', to('line', 'l1')),
        opt('2', to('agent', 'u1')),
        opt('3', to('ivr', 'ivr-b')),
        opt('4', to('node', 'sub')),
        opt('0', to('hangup')),
      ],
      { fallback: to('node', 'sub'), timeoutSeconds: 7, promptAudioFileId: 'file-main' },
    ),
    node('sub', [opt('*', to('node', 'main')), opt('#', to('line', 'l2'))], { maxRetries: 1, promptAudioUrl: '/audio/sub.wav' }),
  ],
};

describe(startIvr.name, () => {
  it('enters the first node and asks for its prompt, with the uploaded or rendered audio file', () => {
    const { state, action } = startIvr(tree, 'ivr-a');
    expect(state).toEqual({ ivrId: 'ivr-a', nodeId: 'main', attempts: 0, path: ['Menu main'], visitedIvrs: ['ivr-a'] });
    expect(action).toEqual({
      type: 'prompt',
      prompt: { nodeId: 'main', text: 'Prompt main', audioFileId: 'file-main', audioUrl: null },
      timeoutSeconds: 7,
      retry: false,
    });
  });

  it('gives null audio for a stored tree that has no promptAudioFileId', () => {
    const sub = ivrKey(tree, startIvr(tree, 'ivr-a').state, '4');
    expect(sub.action).toMatchObject({ prompt: { nodeId: 'sub', audioFileId: null, audioUrl: '/audio/sub.wav' } });
  });

  it('carries the path and visited IVRs over when another IVR jumps here', () => {
    const other: IvrTree = { rootNodeId: 'start', nodes: [node('start', [opt('1', to('hangup'))])] };
    const jump = ivrKey(tree, startIvr(tree, 'ivr-a').state, '3');
    expect(jump.action).toEqual({ type: 'ivr', ivrId: 'ivr-b' });
    const { state, action } = startIvr(other, 'ivr-b', jump.state);
    expect(state).toEqual({
      ivrId: 'ivr-b',
      nodeId: 'start',
      attempts: 0,
      path: ['Menu main', 'Menu start'],
      visitedIvrs: ['ivr-a', 'ivr-b'],
    });
    expect(action).toMatchObject({ type: 'prompt', prompt: { nodeId: 'start' }, retry: false });
  });

  it('hangs up with "loop" when entering an IVR this call already went through', () => {
    const from: IvrWalkState = { ivrId: 'ivr-b', nodeId: 'x', attempts: 0, path: ['A', 'B'], visitedIvrs: ['ivr-a', 'ivr-b'] };
    const { state, action } = startIvr(tree, 'ivr-a', from);
    expect(action).toEqual({ type: 'hangup', reason: 'loop' });
    expect(state).toEqual(from);
  });

  it('hangs up when the tree has no first node', () => {
    expect(startIvr({ rootNodeId: 'ghost', nodes: [] }, 'ivr-a').action).toEqual({ type: 'hangup', reason: 'menu' });
  });
});

describe(ivrKey.name, () => {
  const start = startIvr(tree, 'ivr-a').state;

  it('sends the call to a line', () => {
    expect(ivrKey(tree, start, '1')).toEqual({ state: start, action: { type: 'line', attentionLineId: 'l1' } });
  });

  it('sends the call to an agent', () => {
    expect(ivrKey(tree, start, '2').action).toEqual({ type: 'agent', agentId: 'u1' });
  });

  it('asks the caller to load another IVR', () => {
    expect(ivrKey(tree, start, '3').action).toEqual({ type: 'ivr', ivrId: 'ivr-b' });
  });

  it('refuses a jump to an IVR already visited in this call', () => {
    const looped = { ...start, visitedIvrs: ['ivr-b', 'ivr-a'] };
    expect(ivrKey(tree, looped, '3').action).toEqual({ type: 'hangup', reason: 'loop' });
  });

  it('moves to a sub-menu, resetting the attempts and adding to the path', () => {
    const { state, action } = ivrKey(tree, { ...start, attempts: 2 }, '4');
    expect(state).toEqual({ ivrId: 'ivr-a', nodeId: 'sub', attempts: 0, path: ['Menu main', 'Menu sub'], visitedIvrs: ['ivr-a'] });
    expect(action).toMatchObject({ type: 'prompt', prompt: { nodeId: 'sub', text: 'Prompt sub' }, timeoutSeconds: 5, retry: false });
  });

  it('hangs up with "menu" when the key says hang up', () => {
    expect(ivrKey(tree, start, '0').action).toEqual({ type: 'hangup', reason: 'menu' });
  });

  it('accepts * and # and a key with surrounding blanks', () => {
    const sub = ivrKey(tree, start, '4').state;
    expect(ivrKey(tree, sub, '#').action).toEqual({ type: 'line', attentionLineId: 'l2' });
    expect(ivrKey(tree, sub, ' * ').state.nodeId).toBe('main');
  });

  it('replays the prompt on an invalid key up to maxRetries, then takes the fallback', () => {
    const first = ivrKey(tree, start, '9');
    expect(first.state.attempts).toBe(1);
    expect(first.action).toMatchObject({ type: 'prompt', prompt: { nodeId: 'main' }, retry: true });
    const second = ivrKey(tree, first.state, '8');
    expect(second.state.attempts).toBe(2);
    expect(second.action).toMatchObject({ type: 'prompt', retry: true });
    const third = ivrKey(tree, second.state, '7');
    expect(third.state).toMatchObject({ nodeId: 'sub', attempts: 0, path: ['Menu main', 'Menu sub'] });
    expect(third.action).toMatchObject({ type: 'prompt', prompt: { nodeId: 'sub' }, retry: false });
  });

  it('hangs up with "retriesExhausted" when the fallback after the retries is hang-up', () => {
    const sub = ivrKey(tree, start, '4').state;
    const retry = ivrKey(tree, sub, '5');
    expect(retry.action).toMatchObject({ type: 'prompt', retry: true });
    expect(ivrKey(tree, retry.state, '5').action).toEqual({ type: 'hangup', reason: 'retriesExhausted' });
  });

  it('takes the fallback at once when the node allows no retries', () => {
    const strict: IvrTree = {
      rootNodeId: 'm',
      nodes: [node('m', [opt('1', to('hangup'))], { maxRetries: 0, fallback: to('line', 'l9') })],
    };
    expect(ivrKey(strict, startIvr(strict, 'x').state, '2').action).toEqual({ type: 'line', attentionLineId: 'l9' });
  });

  it("sends the caller to the line's voicemail from a key or from the fallback", () => {
    const vm: IvrTree = {
      rootNodeId: 'm',
      nodes: [node('m', [opt('9', to('voicemail', 'l3'))], { maxRetries: 0, fallback: to('voicemail', 'l4') })],
    };
    const s = startIvr(vm, 'x').state;
    expect(ivrKey(vm, s, '9')).toEqual({ state: s, action: { type: 'voicemail', attentionLineId: 'l3' } });
    expect(ivrTimeout(vm, s).action).toEqual({ type: 'voicemail', attentionLineId: 'l4' });
    expect(ivrKey({ ...vm, nodes: [node('m', [opt('9', to('voicemail'))])] }, s, '9').action).toEqual({ type: 'hangup', reason: 'menu' });
  });

  it('hangs up when the state points at a node the tree does not have', () => {
    expect(ivrKey(tree, { ...start, nodeId: 'ghost' }, '1').action).toEqual({ type: 'hangup', reason: 'menu' });
  });

  it('hangs up when a destination lacks its target or points at a missing node', () => {
    const broken: IvrTree = {
      rootNodeId: 'm',
      nodes: [
        node('m', [opt('1', to('line')), opt('2', to('agent')), opt('3', to('ivr')), opt('4', to('node')), opt('5', to('node', 'ghost'))]),
      ],
    };
    const s = startIvr(broken, 'x').state;
    for (const digit of ['1', '2', '3', '4', '5']) expect(ivrKey(broken, s, digit).action).toEqual({ type: 'hangup', reason: 'menu' });
  });
});

describe(ivrTimeout.name, () => {
  it('replays the prompt on a timeout like an invalid key, then follows the fallback', () => {
    const start = startIvr(tree, 'ivr-a').state;
    const one = ivrTimeout(tree, start);
    expect(one.action).toMatchObject({ type: 'prompt', retry: true, timeoutSeconds: 7 });
    const two = ivrTimeout(tree, one.state);
    expect(two.state.attempts).toBe(2);
    expect(ivrTimeout(tree, two.state).state.nodeId).toBe('sub');
  });

  it('counts invalid keys and timeouts together', () => {
    const start = startIvr(tree, 'ivr-a').state;
    const afterKey = ivrKey(tree, start, '9').state;
    const afterTimeout = ivrTimeout(tree, afterKey).state;
    expect(afterTimeout.attempts).toBe(2);
    expect(ivrTimeout(tree, afterTimeout).state.nodeId).toBe('sub');
  });

  it('jumps to another IVR on a fallback, and refuses it when already visited', () => {
    const t: IvrTree = { rootNodeId: 'm', nodes: [node('m', [opt('1', to('hangup'))], { maxRetries: 0, fallback: to('ivr', 'ivr-b') })] };
    expect(ivrTimeout(t, startIvr(t, 'ivr-a').state).action).toEqual({ type: 'ivr', ivrId: 'ivr-b' });
    const visited = startIvr(t, 'ivr-a', { ivrId: 'ivr-b', nodeId: 'n', attempts: 0, path: [], visitedIvrs: ['ivr-b'] }).state;
    expect(ivrTimeout(t, visited).action).toEqual({ type: 'hangup', reason: 'loop' });
  });

  it('sends a silent caller to the fallback agent', () => {
    const t: IvrTree = { rootNodeId: 'm', nodes: [node('m', [opt('1', to('hangup'))], { maxRetries: 0, fallback: to('agent', 'u7') })] };
    expect(ivrTimeout(t, startIvr(t, 'x').state).action).toEqual({ type: 'agent', agentId: 'u7' });
  });

  it('ends a silent caller bouncing between fallbacks with "loop" after IVR_MAX_STEPS nodes', () => {
    const t: IvrTree = {
      rootNodeId: 'a',
      nodes: [
        node('a', [opt('1', to('hangup'))], { maxRetries: 0, fallback: to('node', 'b') }),
        node('b', [opt('1', to('hangup'))], { maxRetries: 0, fallback: to('node', 'a') }),
      ],
    };
    let step = startIvr(t, 'x');
    let steps = 0;
    while (step.action.type === 'prompt' && steps < IVR_MAX_STEPS * 2) {
      step = ivrTimeout(t, step.state);
      steps += 1;
    }
    expect(step.action).toEqual({ type: 'hangup', reason: 'loop' });
    expect(step.state.path).toHaveLength(IVR_MAX_STEPS);
  });
});
