import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** One mail the peer accepted: the parsed message, its raw bytes and its envelope. */
export interface ReceivedMail {
  parsed: ParsedMail;
  raw: Buffer;
  envelope: { from: string; to: string[] };
  /** The raw header value (undefined when absent). */
  header(name: string): string | undefined;
}

/**
 * The SMTP server the platform's worker sends to in the email suites: the `smtp-server` package on
 * 127.0.0.1 and port 0, AUTH PLAIN/LOGIN checked against one user, no TLS (the account's security
 * is 'none'). Every accepted mail is kept; `beforeAnswer` runs just before the 250 is written and
 * `afterAccept` right after it (the kill-after-250 test freezes the worker before and kills it after).
 */
export interface SmtpPeer {
  port: number;
  received: ReceivedMail[];
  afterAccept: ((mail: ReceivedMail) => void) | null;
  /** Runs just before the 250 is written (the kill test freezes the worker here, so it cannot read the answer before it dies). */
  beforeAnswer: ((mail: ReceivedMail) => void) | null;
  /** Answer the next DATA with this reply instead of 250 (e.g. 451 for a retryable refusal). */
  refuseNext: { code: number; message: string } | null;
  close(): Promise<void>;
}

export async function startSmtpPeer(credentials: { user: string; password: string }): Promise<SmtpPeer> {
  const peer: SmtpPeer = { port: 0, received: [], afterAccept: null, beforeAnswer: null, refuseNext: null, close: async () => undefined };
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: true,
    authOptional: false,
    logger: false,
    size: 30 * 1024 * 1024,
    onAuth(auth, _session, callback) {
      if (auth.username === credentials.user && auth.password === credentials.password) callback(null, { user: auth.username });
      else callback(new Error('535 5.7.8 Authentication credentials invalid'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const refusal = peer.refuseNext;
        if (refusal) {
          peer.refuseNext = null;
          const error = new Error(refusal.message) as Error & { responseCode: number };
          error.responseCode = refusal.code;
          callback(error);
          return;
        }
        const raw = Buffer.concat(chunks);
        void simpleParser(raw).then((parsed) => {
          const headerText = raw
            .subarray(0, Math.max(0, raw.indexOf('\r\n\r\n')))
            .toString('utf8')
            .replace(/\r\n[ \t]+/g, ' ');
          const mail: ReceivedMail = {
            parsed,
            raw,
            envelope: {
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((one) => one.address),
            },
            header: (name) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(headerText)?.[1]?.trim(),
          };
          peer.received.push(mail);
          peer.beforeAnswer?.(mail);
          callback();
          // The 250 is on its way: whatever the test does now happens after the server accepted.
          peer.afterAccept?.(mail);
        });
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.server.address();
  peer.port = typeof address === 'object' && address ? address.port : 0;
  peer.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return peer;
}
