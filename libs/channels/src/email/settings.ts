import { ChannelError, type ChannelAccount } from '../adapter';

/**
 * An email account's credentials, as the administrator enters them (ChannelsAdmin's form is
 * generated from these names): the mailbox read over IMAP, the server that sends over SMTP, and
 * the address replies come from. Passwords are secrets (encrypted at rest, never shown again).
 */
export const EMAIL_SETTINGS = [
  'imapHost',
  'imapPort',
  'imapSecurity',
  'imapUser',
  'imapFolder',
  'smtpHost',
  'smtpPort',
  'smtpSecurity',
  'smtpUser',
  'fromAddress',
  'fromName',
  'authServId',
  // Email campaigns (issue 21): messages per minute the account's campaigns send at most (empty: 60).
  'campaignPerMinute',
] as const;
export const EMAIL_SECRETS = ['imapPassword', 'smtpPassword'] as const;

/** `tls`: TLS from the first byte (993, 465); `starttls`: upgrade required (143, 587); `none`: cleartext (tests, a local relay). */
export type EmailSecurity = 'tls' | 'starttls' | 'none';

export interface EmailServer {
  host: string;
  port: number;
  security: EmailSecurity;
  user: string;
  password: string;
}

export interface EmailAccountSettings {
  imap: EmailServer & { folder: string };
  smtp: EmailServer;
  from: { address: string; name: string };
  /**
   * Whose Authentication-Results to believe (RFC 8601 authserv-id: the receiving server's name).
   * Empty: the top-most header, the one the last hop (the mailbox's own server) added.
   */
  authServId: string;
}

const SECURITIES: readonly EmailSecurity[] = ['tls', 'starttls', 'none'];
/** A host name or an IP literal (IPv6 in brackets or bare); the connect-time policy checks where it points. */
const HOST =
  /^(?:\[[0-9a-fA-F:.]+\]|[0-9a-fA-F:]+:[0-9a-fA-F:.]*|[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))*\.?)$/;
/** Deliberately plain: one @, no spaces or angle brackets, a dotted or bracketed domain. */
export const EMAIL_ADDRESS = /^[^\s@<>()",;:\\[\]]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/;

/**
 * Problems of an account's plain settings as the administrator typed them (each names its field):
 * the API answers 400 with the first. Empty values are left to `emailSettingsOf`'s defaults.
 */
export function emailSettingsProblems(settings: Record<string, string>): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  for (const side of ['imap', 'smtp'] as const) {
    const host = settings[`${side}Host`]?.trim() ?? '';
    if (!host) problems.push({ field: `${side}Host`, message: `settings.${side}Host is required` });
    else if (!HOST.test(host) || host.length > 253)
      problems.push({ field: `${side}Host`, message: `settings.${side}Host is not a host name` });
    const port = settings[`${side}Port`]?.trim();
    if (port && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) {
      problems.push({ field: `${side}Port`, message: `settings.${side}Port must be a port number (1-65535)` });
    }
    const security = settings[`${side}Security`]?.trim();
    if (security && !(SECURITIES as readonly string[]).includes(security)) {
      problems.push({ field: `${side}Security`, message: `settings.${side}Security must be one of ${SECURITIES.join(', ')}` });
    }
  }
  const from = settings.fromAddress?.trim() ?? '';
  if (from && !EMAIL_ADDRESS.test(from)) problems.push({ field: 'fromAddress', message: 'settings.fromAddress is not an email address' });
  const folder = settings.imapFolder ?? '';
  if (/[\r\n\0]/.test(folder)) problems.push({ field: 'imapFolder', message: 'settings.imapFolder must be one line' });
  const name = settings.fromName ?? '';
  if (/[\r\n\0]/.test(name)) problems.push({ field: 'fromName', message: 'settings.fromName must be one line' });
  const perMinute = settings.campaignPerMinute?.trim();
  if (perMinute && !(/^\d{1,4}$/.test(perMinute) && Number(perMinute) >= 1 && Number(perMinute) <= 6000)) {
    problems.push({ field: 'campaignPerMinute', message: 'settings.campaignPerMinute must be a whole number from 1 to 6000' });
  }
  return problems;
}

/**
 * The account's settings with their defaults: ports by security (993/143 IMAP, 465/587 SMTP), the
 * IMAP user as SMTP user, INBOX, the account's own address (its provider id) as sender. Throws a
 * permanent ChannelError naming the first problem.
 */
export function emailSettingsOf(account: Pick<ChannelAccount, 'settings' | 'secrets' | 'externalAccountId'>): EmailAccountSettings {
  const settings = account.settings;
  const problem = emailSettingsProblems(settings)[0];
  if (problem) throw new ChannelError(problem.message, { code: 'invalid_settings', retryable: false });
  const security = (side: 'imap' | 'smtp'): EmailSecurity => (settings[`${side}Security`]?.trim() as EmailSecurity) || 'tls';
  const imapSecurity = security('imap');
  const smtpSecurity = security('smtp');
  const port = (side: 'imap' | 'smtp', fallback: number) => Number(settings[`${side}Port`]?.trim() || fallback);
  const imapUser = settings.imapUser?.trim() || account.externalAccountId;
  const fromAddress = settings.fromAddress?.trim() || account.externalAccountId;
  if (!EMAIL_ADDRESS.test(fromAddress)) {
    throw new ChannelError('the account has no sender address: set fromAddress or use the mailbox address as the account id', {
      code: 'invalid_settings',
      retryable: false,
    });
  }
  return {
    imap: {
      host: settings.imapHost!.trim(),
      port: port('imap', imapSecurity === 'tls' ? 993 : 143),
      security: imapSecurity,
      user: imapUser,
      password: account.secrets.imapPassword ?? '',
      folder: settings.imapFolder?.trim() || 'INBOX',
    },
    smtp: {
      host: settings.smtpHost!.trim(),
      port: port('smtp', smtpSecurity === 'tls' ? 465 : 587),
      security: smtpSecurity,
      user: settings.smtpUser?.trim() || imapUser,
      password: account.secrets.smtpPassword ?? account.secrets.imapPassword ?? '',
    },
    from: { address: fromAddress, name: settings.fromName?.trim() ?? '' },
    authServId: settings.authServId?.trim().toLowerCase() ?? '',
  };
}

/** The domain of an address (the right side of its last @), lower-case. */
export function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}
