import { renderPasswordResetMail } from './password-reset.mail';

describe('renderPasswordResetMail', () => {
  const mail = renderPasswordResetMail({
    to: 'a@b.co',
    name: '<script>alert(1)</script> & Co',
    link: 'https://cc.example.com/session/resetPassword/abc_DEF-123',
    validMinutes: 30,
  });

  it('puts the link on a line of its own in the text, in Spanish and English', () => {
    expect(mail.text.split('\n').filter((line) => line === 'https://cc.example.com/session/resetPassword/abc_DEF-123')).toHaveLength(2);
    expect(mail.text).toContain('válido 30 minutos');
    expect(mail.text).toContain('valid for 30 minutes');
    expect(mail.to).toBe('a@b.co');
  });

  it('escapes the user name in the HTML body', () => {
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co');
    expect(mail.html).toContain('<a href="https://cc.example.com/session/resetPassword/abc_DEF-123">');
  });
});
