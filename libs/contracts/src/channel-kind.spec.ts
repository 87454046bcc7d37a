import { CHANNEL_IDS, CHANNEL_KINDS, channelKindOf } from './constants';

describe(channelKindOf.name, () => {
  it('reads every spec §9 channel by name and by id', () => {
    for (const [kind, name] of Object.entries(CHANNEL_KINDS)) {
      expect(channelKindOf(name)).toBe(kind);
      expect(channelKindOf(kind)).toBe(kind);
      expect(channelKindOf(CHANNEL_IDS[name])).toBe(kind);
      expect(channelKindOf(String(CHANNEL_IDS[name]))).toBe(kind);
    }
  });

  it('reads the Bot Framework’s directline as web chat', () => {
    expect(channelKindOf('directline')).toBe('webchat');
    expect(channelKindOf('DirectLine')).toBe('webchat');
  });

  it('names no kind for channels that are not digital or not known', () => {
    expect(channelKindOf('Phone')).toBeNull();
    expect(channelKindOf(99)).toBeNull();
    expect(channelKindOf('toString')).toBeNull();
    expect(channelKindOf('')).toBeNull();
  });
});
