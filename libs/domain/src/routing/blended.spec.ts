import { DEFAULT_BLENDED_RULES, mayTakeCall, mayTakeChat, retryableAgents } from './blended';

describe('blended agents', () => {
  const idle = { onCall: false, calls: 0, chats: 0 };

  describe(mayTakeChat.name, () => {
    it('gives chats to an agent off a call whatever the rules (capacity is the presence’s business)', () => {
      expect(mayTakeChat({ ...idle, chats: 4 }, DEFAULT_BLENDED_RULES)).toBe(true);
    });

    it('gives an agent on a call no chat by default, and up to the line’s limit when it allows some', () => {
      expect(mayTakeChat({ onCall: true, calls: 1, chats: 0 }, DEFAULT_BLENDED_RULES)).toBe(false);
      const two = { chatsDuringCall: 2, offerCallsWithChats: false };
      expect(mayTakeChat({ onCall: true, calls: 1, chats: 1 }, two)).toBe(true);
      expect(mayTakeChat({ onCall: true, calls: 1, chats: 2 }, two)).toBe(false);
      expect(mayTakeChat({ onCall: true, calls: 1, chats: 3 }, two)).toBe(false);
    });
  });

  describe(mayTakeCall.name, () => {
    it('offers a call to an agent holding nothing, to one holding chats only when the line says so', () => {
      expect(mayTakeCall(idle, DEFAULT_BLENDED_RULES)).toBe(true);
      expect(mayTakeCall({ ...idle, chats: 1 }, DEFAULT_BLENDED_RULES)).toBe(false);
      expect(mayTakeCall({ ...idle, chats: 1 }, { chatsDuringCall: 0, offerCallsWithChats: true })).toBe(true);
    });

    it('never offers a second call: not on a call, not holding another call’s conversation', () => {
      const generous = { chatsDuringCall: 5, offerCallsWithChats: true };
      expect(mayTakeCall({ onCall: true, calls: 0, chats: 0 }, generous)).toBe(false);
      expect(mayTakeCall({ onCall: false, calls: 1, chats: 0 }, generous)).toBe(false);
    });
  });

  describe(retryableAgents.name, () => {
    const now = 100_000;
    it('offers the call to agents who have not failed it first, in the order given', () => {
      expect(retryableAgents(['a', 'b', 'c'], { a: now - 1 }, now, 30_000)).toEqual(['b', 'c']);
    });

    it('offers it again to those who failed once nobody else is left and their back-off has passed', () => {
      expect(retryableAgents(['a', 'b'], { a: now - 30_000, b: now - 29_999 }, now, 30_000)).toEqual(['a']);
      expect(retryableAgents(['a'], { a: now - 10 }, now, 30_000)).toEqual([]);
      expect(retryableAgents([], {}, now, 30_000)).toEqual([]);
    });
  });
});
