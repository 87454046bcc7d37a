/**
 * An email account's server settings against this run's local Dovecot (IMAP, plain on 127.0.0.1)
 * and SMTP peer (plain, with the given user): what the email suites connect their accounts with,
 * each adding its own (fromName, campaignPerMinute, …).
 */
export function localMailSettings(dovecot: { port: number }, smtp: { port: number }, smtpUser: string): Record<string, string> {
  return {
    imapHost: '127.0.0.1',
    imapPort: String(dovecot.port),
    imapSecurity: 'none',
    smtpHost: '127.0.0.1',
    smtpPort: String(smtp.port),
    smtpSecurity: 'none',
    smtpUser,
  };
}
