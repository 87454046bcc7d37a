import type { IvrTree } from '@centralita/contracts';
import { ivrExit } from './voice-server';

const tree: IvrTree = {
  rootNodeId: 'menu',
  nodes: [
    {
      id: 'menu',
      name: 'Menú principal',
      promptText: 'Pulse uno para ventas',
      promptAudioUrl: null,
      promptAudioFileId: null,
      timeoutSeconds: 5,
      maxRetries: 1,
      fallback: { type: 'line', targetId: 'line-2' },
      options: [
        { digit: '1', label: ' Ventas ', destination: { type: 'line', targetId: 'line-1' } },
        { digit: '2', label: null, destination: { type: 'agent', targetId: 'agent-1' } },
        { digit: '3', label: '   ', destination: { type: 'line', targetId: 'line-2' } },
      ],
    },
  ],
};
const at = (nodeId: string) => ({ tree, state: { ivrId: 'ivr', nodeId, attempts: 0, path: ['Menú principal'], visitedIvrs: ['ivr'] } });

describe(ivrExit.name, () => {
  it("names the option whose key left the IVR with the key and the option's label", () => {
    expect(ivrExit(at('menu'), '1')).toEqual({ digit: '1', label: 'Ventas' });
  });

  it('gives a null label for an option without one, so the API names it after its line or agent', () => {
    expect(ivrExit(at('menu'), '2')).toEqual({ digit: '2', label: null });
    expect(ivrExit(at('menu'), '3')).toEqual({ digit: '3', label: null });
  });

  it('has no exit for a timeout or fallback, a key no option has, or a call without an IVR', () => {
    expect(ivrExit(at('menu'), null)).toBeNull();
    expect(ivrExit(at('menu'), '9')).toBeNull();
    expect(ivrExit(at('gone'), '1')).toBeNull();
    expect(ivrExit(null, '1')).toBeNull();
  });
});
