import { alawToLinear, linearToAlaw, linearToUlaw, ulawToLinear } from './g711';
import { MONITOR_PLAN } from './monitoring';

describe('monitoring', () => {
  it('encodes G.711 so that decoding gives the sample back within the codec step', () => {
    for (const sample of [-32768, -20000, -1000, -100, -9, 0, 8, 100, 1000, 20000, 32767]) {
      const step = Math.max(16, Math.abs(sample) / 16);
      expect(Math.abs(ulawToLinear(linearToUlaw(sample)) - sample)).toBeLessThanOrEqual(step);
      expect(Math.abs(alawToLinear(linearToAlaw(sample)) - sample)).toBeLessThanOrEqual(step);
    }
  });

  it('lets nobody but the supervisor hear both sides in listen, only the agent hear the supervisor in whisper, everybody in barge', () => {
    const hearsSupervisor = (mode: keyof typeof MONITOR_PLAN) =>
      (['caller', 'agent'] as const).filter((party) => MONITOR_PLAN[mode][party].includes('supervisor'));
    expect(hearsSupervisor('listen')).toEqual([]);
    expect(hearsSupervisor('whisper')).toEqual(['agent']);
    expect(hearsSupervisor('barge')).toEqual(['caller', 'agent']);
    for (const mode of ['listen', 'whisper', 'barge'] as const) expect(MONITOR_PLAN[mode].supervisor).toEqual(['caller', 'agent']);
  });
});
