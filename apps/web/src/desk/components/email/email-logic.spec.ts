import { describe, expect, it } from '@jest/globals';
import type { EmailMessageView } from '@centralita/contracts';
import {
  emailFrameCsp,
  formatAddresses,
  isEmptyHtml,
  looksForged,
  parseAddressList,
  replySubject,
  textToHtml,
  verdictTone,
} from './email-logic';

const email = (subject: string): EmailMessageView => ({
  messageId: null,
  direction: 'in',
  subject,
  messageIdHeader: `<${subject}@x>`,
  inReplyTo: null,
  references: [],
  from: { address: 'a@x.test', name: null },
  to: [],
  cc: [],
  bcc: [],
  text: '',
  quoted: '',
  html: null,
  auth: null,
  attachments: [],
  at: '2026-11-26T08:00:00.000Z',
  confirmed: null,
});

describe('email view logic', () => {
  it('shows addresses as text, with their names', () => {
    expect(
      formatAddresses([
        { address: 'ana@x.test', name: 'Ana <script>' },
        { address: 'b@x.test', name: null },
      ]),
    ).toBe('Ana <script> <ana@x.test>, b@x.test');
  });

  it('reads sender checks: pass is good, fail is a warning of forgery', () => {
    expect(verdictTone('pass')).toBe('success');
    expect(verdictTone('fail')).toBe('danger');
    expect(verdictTone('softfail')).toBe('warning');
    expect(verdictTone(null)).toBe('secondary');
    expect(looksForged({ spf: 'pass', dkim: 'pass', dmarc: 'fail' })).toBe(true);
    expect(looksForged({ spf: 'fail', dkim: 'fail', dmarc: null })).toBe(true);
    expect(looksForged({ spf: 'pass', dkim: 'fail', dmarc: 'pass' })).toBe(false);
    expect(looksForged(null)).toBe(false);
  });

  it('takes cc/bcc addresses separated by commas, semicolons or spaces, and names the first bad one', () => {
    expect(parseAddressList('a@x.test; B@x.test,  <c@x.test> a@x.test')).toEqual({
      addresses: ['a@x.test', 'b@x.test', 'c@x.test'],
      invalid: null,
    });
    expect(parseAddressList('a@x.test, nope')).toEqual({ addresses: ['a@x.test'], invalid: 'nope' });
    expect(parseAddressList('')).toEqual({ addresses: [], invalid: null });
  });

  it('starts the reply subject with one Re:', () => {
    expect(replySubject([email('Factura'), email('RE: AW: Factura')])).toBe('Re: Factura');
    expect(replySubject([])).toBe('');
  });

  it('knows an emptied editor and escapes predefined text', () => {
    expect(isEmptyHtml('<p><br></p>')).toBe(true);
    expect(isEmptyHtml('<p>Hola</p>')).toBe(false);
    expect(textToHtml('<b>1</b>\nDos')).toBe('<p>&lt;b&gt;1&lt;/b&gt;</p><p>Dos</p>');
  });

  it('blocks every fetch from the frame, images until the agent asks (and then HTTPS only)', () => {
    expect(emailFrameCsp(false)).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; form-action 'none'; base-uri 'none'",
    );
    expect(emailFrameCsp(true)).toContain('img-src data: https:;');
    expect(emailFrameCsp(true)).not.toContain('http:');
  });
});
