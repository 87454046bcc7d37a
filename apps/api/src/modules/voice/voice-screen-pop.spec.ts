import { withIvrExit, type VoiceCallRow } from './voice-events.service';
import { screenPopPath } from './voice-screen-pop.service';

const walked: VoiceCallRow['ivr_path'] = [
  { ivrId: 'i1', nodeId: 'menu', nodeName: 'Menú principal', digit: null, at: 1 },
  { ivrId: 'i1', nodeId: 'billing', nodeName: 'Facturación', digit: '2', at: 2 },
];

describe(screenPopPath.name, () => {
  it('ends the walk with the option that left the IVR, by its label', () => {
    const path = withIvrExit(walked, { exit: { digit: '1', label: 'Ventas' }, at: 3 }, 'line');
    expect(screenPopPath(path, 'Teléfono', null)).toEqual([
      { name: 'Menú principal', digit: null },
      { name: 'Facturación', digit: '2' },
      { name: 'Ventas', digit: '1' },
    ]);
  });

  it('names an unlabelled exit after the line, or the agent the IVR sent the caller to', () => {
    expect(screenPopPath(withIvrExit(walked, { exit: { digit: '1', label: null }, at: 3 }, 'line'), 'Teléfono', 'Ana').at(-1)).toEqual({
      name: 'Teléfono',
      digit: '1',
    });
    expect(screenPopPath(withIvrExit(walked, { exit: { digit: '0', label: null }, at: 3 }, 'agent'), 'Teléfono', 'Ana').at(-1)).toEqual({
      name: 'Ana',
      digit: '0',
    });
  });
});

describe(withIvrExit.name, () => {
  it('adds the exit once, marked, after the last node', () => {
    const once = withIvrExit(walked, { exit: { digit: '1', label: 'Ventas' }, at: 3 }, 'line');
    expect(once.at(-1)).toEqual({ ivrId: 'i1', nodeId: 'billing', nodeName: 'Ventas', digit: '1', at: 3, exit: 'line' });
    expect(withIvrExit(once, { exit: { digit: '2', label: 'Otra' }, at: 4 }, 'line')).toBe(once);
  });

  it('leaves the path as it is without an exit (timeout, fallback, a number straight to a line) or with a bad key', () => {
    expect(withIvrExit(walked, { at: 3 }, 'line')).toBe(walked);
    expect(withIvrExit(walked, { exit: null, at: 3 }, 'line')).toBe(walked);
    expect(withIvrExit([], { exit: { digit: '1', label: 'Ventas' }, at: 3 }, 'line')).toEqual([]);
    expect(withIvrExit(walked, { exit: { digit: '12', label: 'x' }, at: 3 }, 'line')).toBe(walked);
  });
});
