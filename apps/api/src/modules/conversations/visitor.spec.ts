import { MESSAGING_KINDS, PHONE_CHANNEL } from '@centralita/contracts';
import { hasVisitor } from './visitor';

describe(hasVisitor.name, () => {
  it('is true for web chat only among the channels a conversation comes from', () => {
    expect(hasVisitor('webchat')).toBe(true);
    for (const kind of MESSAGING_KINDS) expect(hasVisitor(kind)).toBe(false);
    // A caller's history lines (incoming call, IVR steps) reach no socket of theirs.
    expect(hasVisitor(PHONE_CHANNEL)).toBe(false);
    expect(hasVisitor(null)).toBe(false);
  });
});
