import { needsEmailCaseCheck } from './email-close-rule';

describe(needsEmailCaseCheck.name, () => {
  it('checks a person closing an email conversation', () => {
    expect(needsEmailCaseCheck('email', 'conversation.closed', { kind: 'agent' })).toBe(true);
    expect(needsEmailCaseCheck('Email', 'conversation.closed', { kind: 'supervisor' })).toBe(true);
  });

  it('leaves other channels, other events and the system (timeouts, bots) alone', () => {
    expect(needsEmailCaseCheck('webchat', 'conversation.closed', { kind: 'agent' })).toBe(false);
    expect(needsEmailCaseCheck('email', 'conversation.transferred', { kind: 'agent' })).toBe(false);
    expect(needsEmailCaseCheck('email', 'conversation.closed', { kind: 'system' })).toBe(false);
    expect(needsEmailCaseCheck('email', 'conversation.abandoned', { kind: 'customer' })).toBe(false);
  });
});
