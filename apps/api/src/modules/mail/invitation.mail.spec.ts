import { renderExistingAccountMail, renderInvitationMail } from './invitation.mail';

describe('renderInvitationMail', () => {
  const mail = renderInvitationMail({
    to: 'a@b.co',
    name: '<b>Ana</b>',
    organisation: 'Acme & <Co>',
    link: 'https://cc.example.com/session/invitation/abc_DEF-123',
    validDays: 7,
  });

  it('puts the link on a line of its own, in Spanish and English', () => {
    expect(mail.text.split('\n').filter((line) => line === 'https://cc.example.com/session/invitation/abc_DEF-123')).toHaveLength(2);
    expect(mail.text).toContain('válido 7 días');
    expect(mail.text).toContain('valid for 7 days');
  });

  it('escapes names in the HTML body and links the link', () => {
    expect(mail.html).not.toContain('<b>Ana</b>');
    expect(mail.html).toContain('Acme &amp; &lt;Co&gt;');
    expect(mail.html).toContain('<a href="https://cc.example.com/session/invitation/abc_DEF-123">');
  });
});

describe('renderExistingAccountMail', () => {
  it('says the address already has an account and carries no invitation link', () => {
    const mail = renderExistingAccountMail({
      to: 'a@b.co',
      name: 'Ana',
      organisation: 'Acme',
      signInLink: 'https://cc.example.com/session/signin',
    });
    expect(mail.text).toContain('already has a Centralita account');
    expect(mail.text).not.toContain('/session/invitation/');
  });
});
