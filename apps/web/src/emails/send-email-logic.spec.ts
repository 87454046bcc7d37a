import { describe, expect, it } from '@jest/globals';
import type { ContactSummary } from '@centralita/contracts';
import { checkNewEmail, contactAddress, recipientLabel } from './send-email-logic';

const contact = (over: Partial<ContactSummary> = {}): ContactSummary => ({
  id: '5b0a3c1e-1f2a-4c3b-9d4e-5f6a7b8c9d0e',
  channel: 'email',
  channelAccountId: 'acc',
  externalId: 'ana@example.com',
  name: 'Ana',
  email: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  personId: null,
  identities: 1,
  ...over,
});

describe('send email form', () => {
  it('takes a typed address, lower-cased, or a picked contact by id', () => {
    expect(checkNewEmail({ accountId: 'a', recipient: ' Bea@Example.COM ', subject: 'Hola' })).toEqual({ to: 'bea@example.com' });
    expect(checkNewEmail({ accountId: 'a', recipient: contact(), subject: 'Hola' })).toEqual({ to: contact().id });
  });

  it('names the first problem: account, recipient, address, contact without address, subject', () => {
    expect(checkNewEmail({ accountId: null, recipient: 'a@b.co', subject: 'x' })).toEqual({ problem: 'accountRequired' });
    expect(checkNewEmail({ accountId: 'a', recipient: '  ', subject: 'x' })).toEqual({ problem: 'toRequired' });
    expect(checkNewEmail({ accountId: 'a', recipient: 'nope<script>', subject: 'x' })).toMatchObject({ problem: 'toInvalid' });
    expect(checkNewEmail({ accountId: 'a', recipient: 'a@b.co, c@d.co', subject: 'x' })).toMatchObject({ problem: 'toInvalid' });
    const phoneOnly = contact({ channel: 'whatsapp', externalId: '50688887777', email: null, name: 'Luis' });
    expect(checkNewEmail({ accountId: 'a', recipient: phoneOnly, subject: 'x' })).toEqual({
      problem: 'contactWithoutAddress',
      value: 'Luis',
    });
    expect(checkNewEmail({ accountId: 'a', recipient: 'a@b.co', subject: '  ' })).toEqual({ problem: 'subjectRequired' });
  });

  it('shows a contact with its address, preferring the email field', () => {
    expect(contactAddress(contact({ email: 'Work@Example.com' }))).toBe('work@example.com');
    expect(recipientLabel(contact())).toBe('Ana <ana@example.com>');
    expect(recipientLabel('x@y.z')).toBe('x@y.z');
    expect(recipientLabel(null)).toBe('');
  });
});
