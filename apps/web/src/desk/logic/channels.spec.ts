import { describe, expect, it } from '@jest/globals';
import { CHANNEL_IDS } from '@centralita/contracts';
import { CHANNELS, channelIdentity } from './channels';

describe('channel identity', () => {
  it.each([
    ['webchat', 'WebChat', 7],
    ['FaceBook', 'FaceBook', 5],
    ['instagram', 'Instagram', 18],
    ['twitter', 'Twitter', 6],
    ['Telegram', 'Telegram', 17],
    ['WhatsApp', 'WhatsApp', 80],
  ])('names %s %s with the spec id %i', (name, label, id) => {
    expect(channelIdentity(name)).toMatchObject({ label, id });
  });

  it("shows 'directline' as WebChat", () => {
    expect(channelIdentity('directline')).toMatchObject({ key: 'webchat', label: 'WebChat', id: 7 });
    expect(channelIdentity('DirectLine').label).toBe('WebChat');
  });

  it('finds a channel by its numeric id', () => {
    expect(channelIdentity(80).label).toBe('WhatsApp');
    expect(channelIdentity('17').label).toBe('Telegram');
  });

  it('keeps every id of the contract', () => {
    expect(Object.values(CHANNEL_IDS).sort((a, b) => a - b)).toEqual(
      CHANNELS.flatMap((c) => (c.id === null ? [] : [c.id])).sort((a, b) => a - b),
    );
  });

  it('gives distinct colours and icons to each channel', () => {
    expect(new Set(CHANNELS.map((c) => c.color)).size).toBe(CHANNELS.length);
    expect(new Set(CHANNELS.map((c) => c.icon)).size).toBe(CHANNELS.length);
  });

  it('answers a neutral identity for unknown and missing channels', () => {
    expect(channelIdentity('carrier-pigeon')).toMatchObject({ id: null, label: 'carrier-pigeon' });
    expect(channelIdentity(null).label).toBe('N/A');
  });
});
