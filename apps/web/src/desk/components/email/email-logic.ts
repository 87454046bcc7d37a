import type { EmailAddressView, EmailAuthVerdict, EmailMessageView } from '@centralita/contracts';

/**
 * The email view's rules, as plain functions the unit tests read: how addresses show, what a
 * sender-authentication verdict means for the agent, what the reply composer starts with and
 * accepts, and the policy of the sandboxed frame an email's HTML is shown in.
 */

/** "Name <address>" or the bare address (always as text: React escapes it). */
export function formatAddress(address: EmailAddressView): string {
  return address.name ? `${address.name} <${address.address}>` : address.address;
}

export function formatAddresses(addresses: EmailAddressView[]): string {
  return addresses.map(formatAddress).join(', ');
}

export type VerdictTone = 'success' | 'danger' | 'warning' | 'secondary';

/** pass is good, fail (and DMARC's policy refusal) is a warning sign of forgery, the rest is inconclusive. */
export function verdictTone(verdict: EmailAuthVerdict | null): VerdictTone {
  if (verdict === 'pass') return 'success';
  if (verdict === 'fail' || verdict === 'permerror' || verdict === 'policy') return 'danger';
  if (verdict === 'softfail' || verdict === 'temperror') return 'warning';
  return 'secondary';
}

/** The sender did not prove who they are (DMARC failed, or SPF and DKIM both failed): the desk warns. */
export function looksForged(auth: EmailMessageView['auth']): boolean {
  if (!auth) return false;
  if (auth.dmarc === 'fail' || auth.dmarc === 'policy') return true;
  return verdictTone(auth.spf) === 'danger' && verdictTone(auth.dkim) === 'danger';
}

/** Same rule as the API's: one @, no spaces or angle brackets, a dotted domain. */
const ADDRESS = /^[^\s@<>()",;:\\[\]]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/;

/** Addresses typed in a cc/bcc box (comma, semicolon or space separated): the valid ones, and the first that is not. */
export function parseAddressList(text: string): { addresses: string[]; invalid: string | null } {
  const parts = text
    .split(/[,;\s]+/)
    .map((part) => part.trim().replace(/^<|>$/g, ''))
    .filter(Boolean);
  const invalid = parts.find((part) => !ADDRESS.test(part)) ?? null;
  return { addresses: [...new Set(parts.filter((part) => ADDRESS.test(part)).map((part) => part.toLowerCase()))], invalid };
}

/** "Re: " once on the thread's subject (the API does the same when the composer sends none). */
export function replySubject(emails: EmailMessageView[]): string {
  const last = [...emails].reverse().find((email) => email.subject.trim());
  if (!last) return '';
  const bare = last.subject.replace(/^(\s*(re|aw|rv|sv|antw|odp|ответ|απ)\s*(\[\d+\])?\s*:\s*)+/i, '').trim();
  return bare ? `Re: ${bare}` : '';
}

/** The editor's HTML says nothing (quill leaves `<p><br></p>` when emptied). */
export function isEmptyHtml(html: string): boolean {
  return (
    html
      .replace(/<br\s*\/?>/gi, '')
      .replace(/<[^>]+>/g, '')
      .replace(/&nbsp;/g, ' ')
      .trim() === '' && !/<img\b/i.test(html)
  );
}

/** Text of a predefined message as editor HTML (escaped, line breaks kept). */
export function textToHtml(text: string): string {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  return escaped
    .split(/\r?\n/)
    .map((line) => `<p>${line || '<br>'}</p>`)
    .join('');
}

/**
 * The policy of the frame an email is shown in (its own meta CSP, under the console's): nothing
 * runs, nothing is fetched — no scripts, frames, forms, fonts or styles from elsewhere — and
 * remote images only after the agent asks for them, over HTTPS. Embedded images (data:) always show.
 */
export function emailFrameCsp(showImages: boolean): string {
  return [
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    `img-src data:${showImages ? ' https:' : ''}`,
    'font-src data:',
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** The iframe's sandbox: no scripts, no same origin, no forms or top navigation; links may open a new tab, outside the sandbox. */
export const EMAIL_FRAME_SANDBOX = 'allow-popups allow-popups-to-escape-sandbox';

/** Where mail clients put the quoted earlier mail in HTML (Gmail, Apple Mail, Thunderbird, Outlook). */
export const QUOTED_HTML_SELECTORS = ['.gmail_quote', 'blockquote[type="cite"]', '.moz-cite-prefix', '#divRplyFwdMsg', '#appendonsend'];

/** CSS that keeps a mail's layout from covering the frame (overlays, fixed positioning). */
export const FRAME_STYLE =
  'html,body{margin:0;padding:8px;font-family:system-ui,sans-serif;font-size:14px;color:#1f2937;background:#fff;overflow-wrap:anywhere}' +
  'img{max-width:100%;height:auto}table{max-width:100%}';
