import type { MailJob } from '@centralita/contracts';

const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char);

/**
 * Users have no stored language yet, so the mail is in Spanish (the console's default) and English.
 * The link stays on a line of its own so mail clients keep it clickable.
 */
export function renderPasswordResetMail(input: { to: string; name: string; link: string; validMinutes: number }): MailJob {
  const { to, name, link, validMinutes } = input;
  const text = [
    `Hola ${name},`,
    '',
    `Para elegir una nueva contraseña de Centralita abre este enlace (válido ${validMinutes} minutos, un solo uso):`,
    link,
    '',
    'Si no lo pediste, ignora este mensaje: tu contraseña no cambia.',
    '',
    '---',
    '',
    `Hello ${name},`,
    '',
    `To choose a new Centralita password open this link (valid for ${validMinutes} minutes, single use):`,
    link,
    '',
    'If you did not ask for it, ignore this message: your password stays the same.',
  ].join('\n');
  const safeName = escapeHtml(name);
  const safeLink = escapeHtml(link);
  const html = `<p>Hola ${safeName},</p>
<p>Para elegir una nueva contraseña de Centralita abre este enlace (válido ${validMinutes} minutos, un solo uso):</p>
<p><a href="${safeLink}">${safeLink}</a></p>
<p>Si no lo pediste, ignora este mensaje: tu contraseña no cambia.</p>
<hr>
<p>Hello ${safeName},</p>
<p>To choose a new Centralita password open this link (valid for ${validMinutes} minutes, single use):</p>
<p><a href="${safeLink}">${safeLink}</a></p>
<p>If you did not ask for it, ignore this message: your password stays the same.</p>`;
  return { to, subject: 'Restablecer tu contraseña / Reset your password — Centralita', text, html };
}
