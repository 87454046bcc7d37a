import { channelCapabilities } from '@centralita/channels';
import { BOT_MENU, greetingButtons, parseTap, PERSON_PAYLOAD, submenuButtons } from './bot-menu';

describe('the bot menu as buttons', () => {
  it('fits every provider that has buttons without cutting a label or a payload', () => {
    for (const kind of ['whatsapp', 'facebook', 'instagram', 'telegram', 'twitter']) {
      const buttons = channelCapabilities(kind)?.buttons;
      expect(buttons).toBeTruthy();
      for (const language of ['es', 'en'] as const) {
        const menus = [greetingButtons(language), ...BOT_MENU.map((topic) => submenuButtons(topic.id, language))];
        for (const menu of menus) {
          expect(menu.length).toBeLessThanOrEqual(buttons!.max);
          for (const button of menu) {
            expect([...button.title].length).toBeLessThanOrEqual(buttons!.titleMax);
            expect(Buffer.byteLength(button.payload)).toBeLessThanOrEqual(buttons!.payloadMaxBytes);
          }
          expect(new Set(menu.map((button) => button.title)).size).toBe(menu.length);
        }
      }
    }
    // Email has no buttons: the bot falls back to numbered text there.
    expect(channelCapabilities('email')?.buttons ?? null).toBeNull();
    expect(channelCapabilities('webchat')).toBeNull();
  });

  it('reads back only the payloads it offers', () => {
    expect(parseTap(PERSON_PAYLOAD)).toEqual({ kind: 'person' });
    expect(parseTap('bot:topic:billing')).toEqual({ kind: 'topic', topicId: 'billing' });
    expect(parseTap('bot:menu:billing:refund')).toEqual({ kind: 'choice', topicId: 'billing', submenuId: 'refund' });
    for (const other of [undefined, '', 'bot:topic:nope', 'bot:menu:billing:pricing', 'bot:menu:billing', 'YES', 'bot:person:x']) {
      expect(parseTap(other)).toBeNull();
    }
  });
});
