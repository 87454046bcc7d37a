import type { MailJob } from '@centralita/contracts';

const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char);

/** Spanish (the console's default) then English, like the reset mail: users have no stored language yet. */
function bilingual(to: string, subject: string, es: string[], en: string[]): MailJob {
  const text = [...es, '', '---', '', ...en].join('\n');
  // Lines that are links become anchors; every other line is escaped text.
  const paragraph = (line: string): string =>
    /^https?:\/\/\S+$/.test(line) ? `<p><a href="${escapeHtml(line)}">${escapeHtml(line)}</a></p>` : `<p>${escapeHtml(line)}</p>`;
  const html = [...es.filter(Boolean).map(paragraph), '<hr>', ...en.filter(Boolean).map(paragraph)].join('\n');
  return { to, subject, text, html };
}

/** The invitation to set a password and join an organisation; the link stays on a line of its own. */
export function renderInvitationMail(input: { to: string; name: string; organisation: string; link: string; validDays: number }): MailJob {
  const { to, name, organisation, link, validDays } = input;
  return bilingual(
    to,
    `Invitación a ${organisation} / Invitation to ${organisation} — Centralita`,
    [
      `Hola ${name},`,
      '',
      `Te han invitado a ${organisation} en Centralita. Para elegir tu contraseña y entrar abre este enlace (válido ${validDays} días, un solo uso):`,
      link,
      '',
      'Si no esperabas esta invitación, ignora este mensaje.',
    ],
    [
      `Hello ${name},`,
      '',
      `You have been invited to ${organisation} on Centralita. To choose your password and sign in open this link (valid for ${validDays} days, single use):`,
      link,
      '',
      'If you did not expect this invitation, ignore this message.',
    ],
  );
}

/**
 * Sent instead of an invitation when the address already has a Centralita account (in another
 * organisation): the inviting administrator is not told, only the owner of the address is.
 */
export function renderExistingAccountMail(input: { to: string; name: string; organisation: string; signInLink: string }): MailJob {
  const { to, name, organisation, signInLink } = input;
  return bilingual(
    to,
    `Invitación a ${organisation} / Invitation to ${organisation} — Centralita`,
    [
      `Hola ${name},`,
      '',
      `Te han invitado a ${organisation} en Centralita, pero esta dirección ya tiene una cuenta de Centralita, y una dirección solo puede tener una. La invitación no se puede usar.`,
      'Puedes entrar con tu cuenta actual aquí:',
      signInLink,
      '',
      'Si quieres unirte, pide a quien te invitó que use otra dirección de correo.',
    ],
    [
      `Hello ${name},`,
      '',
      `You have been invited to ${organisation} on Centralita, but this address already has a Centralita account, and an address can only have one. The invitation cannot be used.`,
      'You can sign in to your current account here:',
      signInLink,
      '',
      'To join, ask the person who invited you to use another email address.',
    ],
  );
}
