import { CHANNEL_IDS, CHANNEL_KINDS, channelKindOf } from './constants';

describe(channelKindOf.name, () => {
  it('reads every spec §9 channel by name and by id', () => {
    for (const [kind, name] of Object.entries(CHANNEL_KINDS)) {
      expect(channelKindOf(name)).toBe(kind);
      expect(channelKindOf(kind)).toBe(kind);
      if (!Object.hasOwn(CHANNEL_IDS, name)) continue;
      expect(channelKindOf(CHANNEL_IDS[name as keyof typeof CHANNEL_IDS])).toBe(kind);
      expect(channelKindOf(String(CHANNEL_IDS[name as keyof typeof CHANNEL_IDS]))).toBe(kind);
    }
  });

  it('reads email by its display name, though spec §9 gives it no id', () => {
    expect(channelKindOf('Email')).toBe('email');
    expect(channelKindOf('email')).toBe('email');
    expect(Object.values(CHANNEL_IDS)).toHaveLength(6);
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
