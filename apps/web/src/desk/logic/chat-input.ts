import { LIMITS } from '@centralita/contracts';

/** Chat input rules of spec §5, shared by the agent desk and the web-chat widget. */
export const CHAT_INPUT = { maxLength: LIMITS.maxMessageLength, maxRows: LIMITS.chatInputMaxRows } as const;

export interface KeyLike {
  key: string;
  shiftKey: boolean;
  /** true while an IME composes a character: Enter then confirms the character, it does not send. */
  isComposing?: boolean;
}

/** Enter without Shift sends; Shift+Enter inserts a line break. */
export function isSendKey(event: KeyLike): boolean {
  return event.key === 'Enter' && !event.shiftKey && !event.isComposing;
}

/** The text to send, trimmed, or null when there is nothing to send (empty text is ignored). */
export function outgoingText(raw: string): string | null {
  const text = raw.trim();
  if (text.length === 0 || text.length > CHAT_INPUT.maxLength) return null;
  return text;
}

/** A message on its way: its text and the id the server stores it once under. */
export interface OutgoingMessage {
  text: string;
  clientMessageId: string;
}

/**
 * What a send attempt carries. The id is minted once per composed message: sending the same text
 * again after a failure (a timeout whose request may well have been stored) reuses the id of the
 * first attempt, so the server answers the stored message instead of storing it twice. Changed
 * text is another message, with a new id.
 */
export function outgoingMessage(pending: OutgoingMessage | null, text: string, mint: () => string): OutgoingMessage {
  return pending !== null && pending.text === text ? pending : { text, clientMessageId: mint() };
}

/**
 * What the composer does once a send it started is answered. The box stays editable while a send is in
 * flight, and the message may show (pushed over the socket) before the answer does, so the user may
 * already be typing the next one: the box is cleared only if it still holds exactly what was sent
 * (`composed`), and new text on which Enter was pressed meanwhile is sent next, in order. Never a
 * lost message, never one sent twice.
 */
export function afterSend(composed: string, now: string, enterPressedMeanwhile: boolean): { clear: boolean; sendNext: boolean } {
  const unchanged = now === composed;
  return { clear: unchanged, sendNext: !unchanged && enterPressedMeanwhile && outgoingText(now) !== null };
}

/** Rows the textarea shows: one per line, at most four (then it scrolls). */
export function inputRows(raw: string): number {
  const lines = raw.split('\n').length;
  return Math.min(Math.max(lines, 1), CHAT_INPUT.maxRows);
}

/** Counter shown under the input ("123/500"); `over` when the trimmed text is too long to send. */
export function characterCount(raw: string): { used: number; max: number; over: boolean } {
  const used = raw.trim().length;
  return { used, max: CHAT_INPUT.maxLength, over: used > CHAT_INPUT.maxLength };
}

/** Keeps typed text within the limit (the textarea's maxLength covers typing; this covers inserts). */
export function clampInput(raw: string): string {
  return raw.length > CHAT_INPUT.maxLength ? raw.slice(0, CHAT_INPUT.maxLength) : raw;
}

/** "/shortcut" just before the caret: the characters PREDEFINED_SHORTCUT_PATTERN allows (letters of any script, digits, _ and -). */
const SLASH_BEFORE_CARET = /(^|\s)\/([\p{L}\p{N}_-]*)$/u;

/**
 * Inserts a predefined message at the caret. A leading "/shortcut" typed just before the caret is
 * replaced by the message (the '/' shortcut of the predefined-message picker).
 */
export function insertAt(raw: string, caret: number, insert: string): { text: string; caret: number } {
  const before = raw.slice(0, caret);
  const after = raw.slice(caret);
  const slash = SLASH_BEFORE_CARET.exec(before);
  const head = slash ? before.slice(0, slash.index + slash[1].length) : before;
  const text = clampInput(head + insert + after);
  return { text, caret: Math.min(head.length + insert.length, text.length) };
}

/** The "/query" the agent is typing just before the caret, or null. */
export function slashQuery(raw: string, caret: number): string | null {
  const match = SLASH_BEFORE_CARET.exec(raw.slice(0, caret));
  return match ? match[2] : null;
}
