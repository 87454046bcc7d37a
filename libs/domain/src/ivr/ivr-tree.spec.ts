import { describe, expect, it } from '@jest/globals';
import type { IvrNode, IvrTree } from '@centralita/contracts';
import { findIvrCycle, ivrReferences, ivrTargets, normalizeIvrTree, starterIvrTree, validateIvrTree } from './ivr-tree';

const node = (id: string, options: IvrNode['options'], overrides: Partial<IvrNode> = {}): IvrNode => ({
  id,
  name: `Menu ${id}`,
  promptText: 'Press a key',
  promptAudioUrl: null,
  timeoutSeconds: 5,
  maxRetries: 2,
  fallback: { type: 'hangup', targetId: null },
  options,
  ...overrides,
});
const to = (type: 'line' | 'agent' | 'ivr' | 'node' | 'hangup' | 'voicemail', targetId: string | null = null) => ({ type, targetId });
const tree = (...nodes: IvrNode[]): IvrTree => ({ rootNodeId: nodes[0]?.id ?? '', nodes });
const keys = (t: IvrTree, ivrId?: string) => validateIvrTree(t, { ivrId }).map((i) => `${i.field}:${i.key}`);

describe(validateIvrTree.name, () => {
  it('accepts a menu whose keys lead to a line, an agent, another IVR, a sub-menu and hang-up', () => {
    const t = tree(
      node('main', [
        { digit: '1', label: 'Sales', destination: to('line', 'l1') },
        { digit: '2', label: null, destination: to('agent', 'u1') },
        { digit: '3', label: null, destination: to('ivr', 'other') },
        { digit: '4', label: null, destination: to('node', 'sub') },
        { digit: '0', label: null, destination: to('hangup') },
      ]),
      node('sub', [
        { digit: '*', label: 'Back', destination: to('node', 'main') },
        { digit: '#', label: null, destination: to('hangup') },
      ]),
    );
    expect(validateIvrTree(t, { ivrId: 'self' })).toEqual([]);
  });

  it('refuses a key used twice in one node, naming the second option', () => {
    const t = tree(
      node('main', [
        { digit: '1', label: null, destination: to('hangup') },
        { digit: '1', label: null, destination: to('line', 'l1') },
      ]),
    );
    expect(validateIvrTree(t)).toEqual([{ field: 'tree.nodes.0.options.1.digit', key: 'duplicate', values: { value: '1' } }]);
  });

  it('allows the same key in different nodes', () => {
    const t = tree(
      node('main', [{ digit: '1', label: null, destination: to('node', 'sub') }]),
      node('sub', [{ digit: '1', label: null, destination: to('hangup') }]),
    );
    expect(keys(t)).toEqual([]);
  });

  it('refuses keys outside 0-9 * #, nodes without options and nodes without a prompt', () => {
    const t = tree(node('main', [{ digit: 'A', label: null, destination: to('hangup') }]), node('sub', [], { promptText: null }));
    t.nodes[0].options.push({ digit: '2', label: null, destination: to('node', 'sub') });
    expect(keys(t)).toEqual([
      'tree.nodes.0.options.0.digit:oneOf',
      'tree.nodes.1.promptText:promptRequired',
      'tree.nodes.1.options:noOptions',
    ]);
  });

  it('refuses destinations without their target and sub-menus that do not exist', () => {
    const t = tree(
      node('main', [
        { digit: '1', label: null, destination: to('line') },
        { digit: '2', label: null, destination: to('node', 'ghost') },
      ]),
    );
    expect(keys(t)).toEqual([
      'tree.nodes.0.options.0.destination.targetId:required',
      'tree.nodes.0.options.1.destination.targetId:unknownNode',
    ]);
  });

  it('accepts a voicemail destination that names its line, as an option or as the fallback', () => {
    const t = tree(
      node('main', [{ digit: '9', label: 'Message', destination: to('voicemail', 'l1') }], { fallback: to('voicemail', 'l2') }),
    );
    expect(keys(t)).toEqual([]);
  });

  it('refuses a voicemail destination without its line, like a line destination', () => {
    const t = tree(node('main', [{ digit: '9', label: null, destination: to('voicemail') }], { fallback: to('voicemail', ' ') }));
    expect(keys(normalizeIvrTree(t))).toEqual([
      'tree.nodes.0.fallback.targetId:required',
      'tree.nodes.0.options.0.destination.targetId:required',
    ]);
  });

  it('refuses a jump back to the same IVR', () => {
    const t = tree(node('main', [{ digit: '9', label: null, destination: to('ivr', 'self') }]));
    expect(keys(t, 'self')).toEqual(['tree.nodes.0.options.0.destination.targetId:selfIvr']);
  });

  it('refuses timeouts outside 1..60 s and retries outside 0..5', () => {
    const t = tree(node('main', [{ digit: '1', label: null, destination: to('hangup') }], { timeoutSeconds: 0, maxRetries: 6 }));
    expect(keys(t)).toEqual(['tree.nodes.0.timeoutSeconds:range', 'tree.nodes.0.maxRetries:range']);
  });

  it('refuses duplicate node ids and a first node that does not exist', () => {
    const t: IvrTree = {
      rootNodeId: 'nope',
      nodes: [
        node('a', [{ digit: '1', label: null, destination: to('hangup') }]),
        node('a', [{ digit: '1', label: null, destination: to('hangup') }]),
      ],
    };
    expect(keys(t)).toEqual(['tree.nodes.1.id:duplicate', 'tree.rootNodeId:unknownNode']);
  });

  it('flags nodes that no key leads to', () => {
    const t = tree(
      node('main', [{ digit: '1', label: null, destination: to('hangup') }]),
      node('orphan', [{ digit: '1', label: null, destination: to('hangup') }]),
    );
    expect(keys(t)).toEqual(['tree.nodes.1:unreachable']);
  });

  it('flags menus that only lead to each other (a caller could never get out), but not loops with an exit', () => {
    const trapped = tree(
      node('main', [{ digit: '1', label: null, destination: to('node', 'a') }], { fallback: to('node', 'a') }),
      node('a', [{ digit: '1', label: null, destination: to('node', 'main') }], { fallback: to('node', 'main') }),
    );
    expect(keys(trapped)).toEqual(['tree.nodes.0:trap', 'tree.nodes.1:trap']);
    const withExit = tree(
      node('main', [{ digit: '1', label: null, destination: to('node', 'a') }], { fallback: to('node', 'a') }),
      node('a', [{ digit: '1', label: null, destination: to('node', 'main') }]),
    );
    expect(keys(withExit)).toEqual([]);
  });

  it('needs at least one node', () => {
    expect(keys({ rootNodeId: '', nodes: [] })).toEqual(['tree.nodes:required']);
  });
});

describe(findIvrCycle.name, () => {
  it('finds a loop of jumps through the IVR being applied', () => {
    const edges = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
    ]);
    expect(findIvrCycle('a', edges)).toEqual(['a', 'b', 'c', 'a']);
  });

  it('ignores chains that end and loops elsewhere that do not pass through it', () => {
    const edges = new Map([
      ['a', ['b', 'x']],
      ['b', ['c']],
      ['x', ['y']],
      ['y', ['x']],
    ]);
    expect(findIvrCycle('a', edges)).toBeNull();
  });
});

describe(normalizeIvrTree.name, () => {
  it('trims text, turns empty strings into null and drops the target of hang-up', () => {
    const t = normalizeIvrTree({
      rootNodeId: ' main ',
      nodes: [
        {
          id: 'main',
          name: ' Menu ',
          promptText: '  ',
          promptAudioUrl: '/audio/welcome.wav',
          options: [{ digit: ' 1 ', label: '', destination: { type: 'hangup', targetId: 'x' } }],
        } as unknown as IvrNode,
      ],
    });
    expect(t.rootNodeId).toBe('main');
    expect(t.nodes[0]).toMatchObject({ name: 'Menu', promptText: null, timeoutSeconds: 5, maxRetries: 2 });
    expect(t.nodes[0].options[0]).toEqual({ digit: '1', label: null, destination: { type: 'hangup', targetId: null } });
  });

  it('gives a starter tree that still needs an option', () => {
    expect(keys(starterIvrTree())).toEqual(['tree.nodes.0.promptText:promptRequired', 'tree.nodes.0.options:noOptions']);
  });
});

describe(ivrReferences.name, () => {
  it('lists the lines, agents and IVRs a tree points at, with their fields', () => {
    const t = tree(
      node(
        'main',
        [
          { digit: '1', label: null, destination: to('line', 'l1') },
          { digit: '2', label: null, destination: to('ivr', 'i1') },
        ],
        { fallback: to('agent', 'u1') },
      ),
    );
    expect(ivrReferences(t)).toEqual([
      { field: 'tree.nodes.0.fallback.targetId', type: 'agent', targetId: 'u1' },
      { field: 'tree.nodes.0.options.0.destination.targetId', type: 'line', targetId: 'l1' },
      { field: 'tree.nodes.0.options.1.destination.targetId', type: 'ivr', targetId: 'i1' },
    ]);
    expect(ivrTargets(t)).toEqual(['i1']);
  });

  it("lists a voicemail's line as a line the tenant must own", () => {
    const t = tree(node('main', [{ digit: '9', label: null, destination: to('voicemail', 'l7') }]));
    expect(ivrReferences(t)).toEqual([{ field: 'tree.nodes.0.options.0.destination.targetId', type: 'line', targetId: 'l7' }]);
    expect(ivrTargets(t)).toEqual([]);
  });
});
