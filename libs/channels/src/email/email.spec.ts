import { authenticationResults, emailPreview, foldQuoted, messageIds, parseEmail, replyAddress, replyTokensOf } from './parse';
import { emailSettingsOf, emailSettingsProblems } from './settings';
import { replySubject, trimReferences } from './thread';
import { smtpError } from './transport';

const mail = (headers: string[], body: string) => Buffer.from([...headers, '', body, ''].join('\r\n'));

describe(parseEmail.name, () => {
  it('reads addresses, threading headers, subject and the new text apart from the quoted one', async () => {
    const parsed = await parseEmail(
      mail(
        [
          'From: "Ana Pérez" <ana@example.com>',
          'To: support@desk.test, "Billing" <billing@desk.test>',
          'Cc: boss@example.com',
          'Subject: =?UTF-8?Q?Re:_Factura?=',
          'Message-ID: <abc@example.com>',
          'In-Reply-To: <ours@desk.test>',
          'References: <root@example.com>\r\n <ours@desk.test>',
          'Content-Type: text/plain; charset=utf-8',
        ],
        'Gracias.\r\n\r\nOn Thu, 26 Nov 2026 at 09:00, Soporte <support@desk.test> wrote:\r\n> Hola Ana',
      ),
    );
    expect(parsed).toMatchObject({
      messageId: '<abc@example.com>',
      inReplyTo: '<ours@desk.test>',
      references: ['<root@example.com>', '<ours@desk.test>'],
      subject: 'Re: Factura',
      from: { address: 'ana@example.com', name: 'Ana Pérez' },
      to: [
        { address: 'support@desk.test', name: null },
        { address: 'billing@desk.test', name: 'Billing' },
      ],
      cc: [{ address: 'boss@example.com', name: null }],
      text: 'Gracias.',
      html: null,
      automatic: false,
    });
    expect(parsed.quoted).toMatch(/^On Thu, 26 Nov 2026 at 09:00/);
  });

  it('gives a message without Message-ID a stable id of its bytes', async () => {
    const raw = mail(['From: a@example.com', 'Subject: x'], 'hi');
    const [first, second] = [await parseEmail(raw), await parseEmail(raw)];
    expect(first.messageId).toMatch(/^<sha256\.[0-9a-f]{40}@centralita\.invalid>$/);
    expect(second.messageId).toBe(first.messageId);
  });

  it('refuses a message without a sender', async () => {
    await expect(parseEmail(mail(['Subject: x'], 'hi'))).rejects.toThrow('the email has no From address');
  });

  it('marks automatic replies (Auto-Submitted, Precedence)', async () => {
    expect((await parseEmail(mail(['From: a@example.com', 'Auto-Submitted: auto-replied'], 'away'))).automatic).toBe(true);
    expect((await parseEmail(mail(['From: a@example.com', 'Precedence: bulk'], 'news'))).automatic).toBe(true);
  });
});

describe(authenticationResults.name, () => {
  const ours = 'mx.desk.test; spf=pass smtp.mailfrom=example.com; dkim=fail (bad sig; x) header.d=a; dkim=pass header.d=b; dmarc=pass';
  it('reads the top-most header, any passing DKIM signature winning', () => {
    expect(authenticationResults([ours, 'evil; spf=fail; dmarc=fail'], '')).toEqual({ spf: 'pass', dkim: 'pass', dmarc: 'pass' });
  });

  it('reads only the header of the named server when the account names it', () => {
    expect(authenticationResults(['evil.example; spf=pass; dkim=pass; dmarc=pass', ours], 'mx.desk.test').dmarc).toBe('pass');
    expect(authenticationResults(['evil.example; spf=pass'], 'mx.desk.test')).toEqual({ spf: null, dkim: null, dmarc: null });
  });

  it('ignores verdicts it does not know', () => {
    expect(authenticationResults(['mx; spf=maybe; dmarc=fail'], '')).toEqual({ spf: null, dkim: null, dmarc: 'fail' });
  });
});

describe(foldQuoted.name, () => {
  it('folds Outlook’s From/Sent block', () => {
    const text = 'Perfecto.\n\n________________________________\nFrom: Soporte <s@d.test>\nSent: Thursday\nTo: Ana\n\nHola';
    expect(foldQuoted(text)).toEqual({ text: 'Perfecto.', quoted: expect.stringMatching(/^_{32}\nFrom: Soporte/) });
  });

  it('folds a Spanish Gmail header wrapped over two lines', () => {
    const text = 'Vale.\n\nEl jue, 26 nov 2026 a las 9:00, Soporte (<s@d.test>)\nescribió:\n> Hola';
    expect(foldQuoted(text).text).toBe('Vale.');
  });

  it('folds Outlook’s translated headers (De/Enviado)', () => {
    expect(foldQuoted('Sí.\n\nDe: Soporte <s@d.test>\nEnviado: jueves\nPara: Ana\n\nHola').text).toBe('Sí.');
  });

  it('folds trailing > quoting and keeps a text that quotes nothing', () => {
    expect(foldQuoted('Ok\n> earlier\n> more')).toEqual({ text: 'Ok', quoted: '> earlier\n> more' });
    expect(foldQuoted('Just text\nwith lines')).toEqual({ text: 'Just text\nwith lines', quoted: '' });
  });
});

describe('email helpers', () => {
  it('reads Message-IDs with or without brackets', () => {
    expect(messageIds('<a@b> <c@d>')).toEqual(['<a@b>', '<c@d>']);
    expect(messageIds(['x@y'])).toEqual(['<x@y>']);
    expect(messageIds(undefined)).toEqual([]);
  });

  it('builds and reads reply tokens', () => {
    const address = replyAddress('support+old@desk.test', 'abcdef0123456789abcdef01');
    expect(address).toBe('support+rabcdef0123456789abcdef01@desk.test');
    expect(replyTokensOf([address, 'other@x.test'])).toEqual(['abcdef0123456789abcdef01']);
  });

  it('puts one Re: on a reply subject, whatever the clients added', () => {
    expect(replySubject('RE: AW: Re: Factura')).toBe('Re: Factura');
    expect(replySubject('Fwd: Factura')).toBe('Re: Fwd: Factura');
    expect(replySubject('')).toBe('Re:');
  });

  it('keeps the root and the latest references', () => {
    const many = Array.from({ length: 30 }, (_, index) => `<${index}@x>`);
    const trimmed = trimReferences(many);
    expect(trimmed).toHaveLength(20);
    expect(trimmed[0]).toBe('<0@x>');
    expect(trimmed.at(-1)).toBe('<29@x>');
  });

  it('previews subject and text within the limit', () => {
    expect(emailPreview({ subject: 'Hola', text: 'a'.repeat(600), html: null }, 500)).toHaveLength(500);
    expect(emailPreview({ subject: 'S', text: '', html: '<p>Uno</p><script>x</script><p>Dos</p>' }, 500)).toBe('S\nUno\nDos');
  });
});

describe(emailSettingsOf.name, () => {
  const account = (settings: Record<string, string>) => ({
    settings,
    secrets: { imapPassword: 'p1', smtpPassword: 'p2' },
    externalAccountId: 'box@desk.test',
  });

  it('fills ports and users from the security and the mailbox address', () => {
    expect(emailSettingsOf(account({ imapHost: 'imap.desk.test', smtpHost: 'smtp.desk.test', smtpSecurity: 'starttls' }))).toEqual({
      imap: { host: 'imap.desk.test', port: 993, security: 'tls', user: 'box@desk.test', password: 'p1', folder: 'INBOX' },
      smtp: { host: 'smtp.desk.test', port: 587, security: 'starttls', user: 'box@desk.test', password: 'p2' },
      from: { address: 'box@desk.test', name: '' },
      authServId: '',
    });
  });

  it('names every problem of hostile settings', () => {
    expect(
      emailSettingsProblems({
        imapHost: 'imap.x/../y',
        smtpHost: '',
        imapPort: '0',
        smtpSecurity: 'ssl3',
        fromAddress: 'a@b>',
        fromName: 'x\r\nBcc: y',
      }).map((one) => one.field),
    ).toEqual(['imapHost', 'imapPort', 'smtpHost', 'smtpSecurity', 'fromAddress', 'fromName']);
  });
});

describe(smtpError.name, () => {
  it('retries 4xx and network trouble, fails 5xx and bad credentials for good', () => {
    expect(smtpError({ responseCode: 451, response: '451 try later' }).details).toMatchObject({ retryable: true, code: 'smtp_451' });
    expect(smtpError({ responseCode: 550, response: '550 no such user' }).details).toMatchObject({ retryable: false });
    expect(smtpError({ code: 'EAUTH', response: '535 bad' }).details).toMatchObject({ retryable: false, code: 'unauthorized' });
    expect(smtpError({ code: 'ECONNECTION', message: 'refused' }).details).toMatchObject({ retryable: true, code: 'network' });
  });
});
