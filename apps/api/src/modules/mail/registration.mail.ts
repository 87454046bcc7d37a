import type { MailJob } from '@centralita/contracts';

const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char);

/** Spanish (the console's default) then English, like the reset mail; links on lines of their own. */
function bilingual(to: string, subject: string, es: string[], en: string[]): MailJob {
  const text = [...es, '', '---', '', ...en].join('\n');
  const paragraph = (line: string): string =>
    /^https?:\/\//.test(line) ? `<p><a href="${escapeHtml(line)}">${escapeHtml(line)}</a></p>` : line ? `<p>${escapeHtml(line)}</p>` : '';
  const html = [...es.map(paragraph), '<hr>', ...en.map(paragraph)].filter(Boolean).join('\n');
  return { to, subject, text, html };
}

/** The link that confirms a self-registration and creates the new organisation. */
export function renderRegistrationMail(input: { to: string; name: string; link: string; validHours: number }): MailJob {
  const { to, name, link, validHours } = input;
  return bilingual(
    to,
    'Confirma tu registro / Confirm your registration — Centralita',
    [
      `Hola ${name},`,
      '',
      `Para activar tu cuenta de Centralita y crear tu organización abre este enlace (válido ${validHours} horas, un solo uso):`,
      link,
      '',
      'Si no te registraste, ignora este mensaje: no se creará ninguna cuenta.',
    ],
    [
      `Hello ${name},`,
      '',
      `To activate your Centralita account and create your organisation open this link (valid for ${validHours} hours, single use):`,
      link,
      '',
      'If you did not sign up, ignore this message: no account will be created.',
    ],
  );
}

/** Sent instead of a confirmation when the address already has an account: the answer to the form is the same. */
export function renderAlreadyRegisteredMail(input: { to: string; name: string; signInLink: string; resetLink: string }): MailJob {
  const { to, name, signInLink, resetLink } = input;
  return bilingual(
    to,
    'Ya tienes una cuenta / You already have an account — Centralita',
    [
      `Hola ${name},`,
      '',
      'Alguien (quizá tú) intentó registrarse en Centralita con esta dirección, pero ya tienes una cuenta. No se ha creado otra. Para entrar:',
      signInLink,
      '',
      'Si olvidaste tu contraseña, puedes elegir una nueva aquí:',
      resetLink,
      '',
      'Si no fuiste tú, ignora este mensaje: tu cuenta no cambia.',
    ],
    [
      `Hello ${name},`,
      '',
      'Someone (perhaps you) tried to sign up to Centralita with this address, but you already have an account. No other account was created. To sign in:',
      signInLink,
      '',
      'If you forgot your password, you can choose a new one here:',
      resetLink,
      '',
      'If it was not you, ignore this message: your account stays the same.',
    ],
  );
}
