import { describe, expect, it } from '@jest/globals';
import {
  afterSend,
  characterCount,
  clampInput,
  inputRows,
  insertAt,
  isSendKey,
  outgoingMessage,
  outgoingText,
  slashQuery,
} from './chat-input';

describe('chat input rules', () => {
  it('sends on Enter without Shift', () => {
    expect(isSendKey({ key: 'Enter', shiftKey: false })).toBe(true);
  });

  it('does not send on Shift+Enter, on other keys or while composing', () => {
    expect(isSendKey({ key: 'Enter', shiftKey: true })).toBe(false);
    expect(isSendKey({ key: 'a', shiftKey: false })).toBe(false);
    expect(isSendKey({ key: 'Enter', shiftKey: false, isComposing: true })).toBe(false);
  });

  it('trims the text it sends', () => {
    expect(outgoingText('  hola \n')).toBe('hola');
  });

  it('ignores empty and blank text', () => {
    expect(outgoingText('')).toBeNull();
    expect(outgoingText('  \n\t ')).toBeNull();
  });

  it('accepts exactly 500 characters and refuses 501', () => {
    expect(outgoingText('x'.repeat(500))).toHaveLength(500);
    expect(outgoingText('x'.repeat(501))).toBeNull();
  });

  it('grows with the lines up to four rows', () => {
    expect(inputRows('')).toBe(1);
    expect(inputRows('a\nb')).toBe(2);
    expect(inputRows('a\nb\nc\nd\ne\nf')).toBe(4);
  });

  it('counts trimmed characters against 500', () => {
    expect(characterCount('  abc ')).toEqual({ used: 3, max: 500, over: false });
    expect(characterCount('y'.repeat(501)).over).toBe(true);
  });

  it('clamps inserted text to 500 characters', () => {
    expect(clampInput('z'.repeat(600))).toHaveLength(500);
  });

  it('replaces a typed /shortcut with the predefined message', () => {
    expect(insertAt('Hi /gre', 7, 'Good morning!')).toEqual({ text: 'Hi Good morning!', caret: 16 });
  });

  it('inserts at the caret when no shortcut is typed', () => {
    expect(insertAt('ab', 1, 'X')).toEqual({ text: 'aXb', caret: 2 });
  });

  it('reads the /query before the caret', () => {
    expect(slashQuery('/gre', 4)).toBe('gre');
    expect(slashQuery('hello /', 7)).toBe('');
    expect(slashQuery('a/b', 3)).toBeNull();
  });

  it('matches every shortcut the admin rule allows, in any script', () => {
    for (const shortcut of ['follow-up', 'saludo_2', 'привет', 'γεια']) {
      expect(slashQuery(`Hi /${shortcut}`, shortcut.length + 4)).toBe(shortcut);
      expect(insertAt(`/${shortcut}`, shortcut.length + 1, 'Text')).toEqual({ text: 'Text', caret: 4 });
    }
  });
});

describe(outgoingMessage.name, () => {
  const minter = () => {
    let n = 0;
    return () => `m-${++n}`;
  };

  it('mints an id for a newly composed message', () => {
    expect(outgoingMessage(null, 'hola', minter())).toEqual({ text: 'hola', clientMessageId: 'm-1' });
  });

  it('resends a failed message under the id of its first attempt, however often it is retried', () => {
    const mint = minter();
    const first = outgoingMessage(null, 'hola', mint);
    const second = outgoingMessage(first, 'hola', mint);
    const third = outgoingMessage(second, 'hola', mint);
    expect([second.clientMessageId, third.clientMessageId]).toEqual(['m-1', 'm-1']);
  });

  it('gives edited text a new id: it is another message', () => {
    const mint = minter();
    const failed = outgoingMessage(null, 'hola', mint);
    expect(outgoingMessage(failed, 'hola, buenas', mint).clientMessageId).toBe('m-2');
  });
});

describe(afterSend.name, () => {
  it('clears the box when it still holds what was sent', () => {
    expect(afterSend('Hello?', 'Hello?', false)).toEqual({ clear: true, sendNext: false });
  });

  it('keeps what the user typed while the send was in flight, and sends nothing without Enter', () => {
    expect(afterSend('Hello?', 'Anyone', false)).toEqual({ clear: false, sendNext: false });
  });

  it('sends next the text on which Enter was pressed meanwhile', () => {
    expect(afterSend('Hello?', 'Anyone there?', true)).toEqual({ clear: false, sendNext: true });
  });

  it('never sends the same text twice for a double Enter, nor an empty box', () => {
    expect(afterSend('Hello?', 'Hello?', true)).toEqual({ clear: true, sendNext: false });
    expect(afterSend('Hello?', '   ', true)).toEqual({ clear: false, sendNext: false });
  });
});
