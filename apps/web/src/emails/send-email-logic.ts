import type { ContactSummary } from '@centralita/contracts';
import { parseAddressList } from '../desk/components/email/email-logic';

/** The "to" box: a contact picked from the search, or an address typed. */
export type Recipient = ContactSummary | string | null;

/** The contact's address: its email, else its provider id when that is an address (the email channel's key). */
export function contactAddress(contact: ContactSummary): string | null {
  for (const candidate of [contact.email, contact.externalId]) {
    const parsed = parseAddressList(candidate ?? '');
    if (candidate && !parsed.invalid && parsed.addresses.length === 1) return parsed.addresses[0]!;
  }
  return null;
}

export function recipientLabel(recipient: Recipient): string {
  if (!recipient) return '';
  if (typeof recipient === 'string') return recipient;
  const address = contactAddress(recipient);
  return address && address !== recipient.name ? `${recipient.name} <${address}>` : recipient.name;
}

/** What the API's `to` gets (a contact id or one address), or the problem's key under email.send (and its value). */
export function checkNewEmail(form: {
  accountId: string | null;
  recipient: Recipient;
  subject: string;
}):
  | { to: string }
  | { problem: 'accountRequired' | 'toRequired' | 'toInvalid' | 'contactWithoutAddress' | 'subjectRequired'; value?: string } {
  if (!form.accountId) return { problem: 'accountRequired' };
  const recipient = typeof form.recipient === 'string' ? form.recipient.trim() : form.recipient;
  if (!recipient) return { problem: 'toRequired' };
  let to: string;
  if (typeof recipient === 'string') {
    const parsed = parseAddressList(recipient);
    if (parsed.invalid || parsed.addresses.length !== 1) return { problem: 'toInvalid', value: parsed.invalid ?? recipient };
    to = parsed.addresses[0]!;
  } else {
    if (!contactAddress(recipient)) return { problem: 'contactWithoutAddress', value: recipient.name };
    to = recipient.id;
  }
  if (!form.subject.trim()) return { problem: 'subjectRequired' };
  return { to };
}
