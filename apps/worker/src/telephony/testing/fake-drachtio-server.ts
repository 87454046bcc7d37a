import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';

/**
 * A local stand-in for a drachtio server, for tests: it speaks drachtio's control protocol the way
 * drachtio-srf 5 expects it (see README.md, "Protocol facts") and plays a scripted SIP peer behind
 * it. It is strict on purpose — a malformed frame, an unknown message kind or a SIP message whose
 * Content-Length is wrong closes the connection and is recorded in `protocolErrors`, so a passing
 * test proves the adapter speaks the real wire format.
 */

export interface ScriptedResponse {
  status: number;
  reason?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long after the previous step. */
  delayMs?: number;
}

export interface InviteScript {
  responses: ScriptedResponse[];
  /** After a 200 OK, the far end hangs up this many ms after the ACK. */
  byeAfterMs?: number;
  /** Challenge the INVITE with 401 first and accept only these credentials. */
  digest?: { realm: string; username: string; password: string };
}

export interface SipMessage {
  startLine: string;
  method?: string;
  uri?: string;
  status?: number;
  headers: [string, string][];
  body: string;
}

/** One control-protocol frame the client sent, after validation. */
export interface ReceivedFrame {
  msgId: string;
  kind: string;
  leader: string[];
  sip?: SipMessage;
}

export interface FakeCall {
  /** Transaction id of the INVITE now in progress (a new one after a digest challenge). */
  transactionId: string;
  dialogId: string;
  callId: string;
  invite: SipMessage;
  script: InviteScript;
  state: 'inviting' | 'confirmed' | 'cancelled' | 'failed' | 'ended';
  acks: SipMessage[];
  byesReceived: SipMessage[];
  reInvites: SipMessage[];
  cancels: SipMessage[];
  authorization?: string;
  fromTag: string;
  toTag: string;
  clientContact: string;
  timers: NodeJS.Timeout[];
}

export interface FakeDrachtioOptions {
  secret: string;
  /** Decides how the far end answers each new INVITE (by its request URI, headers…). */
  script: (invite: SipMessage) => InviteScript;
}

const CRLF = '\r\n';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KINDS = new Set(['authenticate', 'route', 'remove_route', 'sip', 'ping', 'proxy']);
const MAX_FRAME = 1024 * 1024;
export const FAKE_SDP = [
  'v=0',
  'o=- 1 1 IN IP4 192.0.2.10',
  's=-',
  'c=IN IP4 192.0.2.10',
  't=0 0',
  'm=audio 40000 RTP/AVP 0',
  'a=sendrecv',
  '',
].join(CRLF);

export function header(message: SipMessage, name: string): string | undefined {
  return message.headers.find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
}

/** A strict SIP parser: start line, `Name: value` headers, a blank line, and a Content-Length that matches. */
export function parseSip(raw: string): SipMessage {
  const end = raw.indexOf(CRLF + CRLF);
  if (end < 0) throw new Error('SIP message without the blank line that ends its headers');
  const [startLine, ...lines] = raw.slice(0, end).split(CRLF);
  const body = raw.slice(end + 4);
  const request = /^([A-Z]+) (sips?:\S+) SIP\/2\.0$/.exec(startLine);
  const response = /^SIP\/2\.0 (\d{3}) .+$/.exec(startLine);
  if (!request && !response) throw new Error(`bad SIP start line '${startLine}'`);
  const headers = lines.map((line): [string, string] => {
    const match = /^([A-Za-z0-9!%*_+`'~.-]+):\s*(.*)$/.exec(line);
    if (!match) throw new Error(`bad SIP header line '${line}'`);
    return [match[1], match[2]];
  });
  const message: SipMessage = {
    startLine,
    headers,
    body,
    method: request?.[1],
    uri: request?.[2],
    status: response ? Number(response[1]) : undefined,
  };
  const length = header(message, 'Content-Length') ?? header(message, 'l');
  if (length === undefined) throw new Error('SIP message without Content-Length');
  if (Number(length) !== Buffer.byteLength(body, 'utf8'))
    throw new Error(`Content-Length ${length} does not match a ${Buffer.byteLength(body)}-byte body`);
  return message;
}

function serializeSip(startLine: string, headers: [string, string][], body = ''): string {
  const lines = headers.filter(([name]) => name.toLowerCase() !== 'content-length').map(([name, value]) => `${name}: ${value}`);
  return [startLine, ...lines, `Content-Length: ${Buffer.byteLength(body, 'utf8')}`, '', body].join(CRLF);
}

const tag = () => randomUUID().slice(0, 8);
const stamp = () => new Date().toISOString().slice(11, 23);

export class FakeDrachtioServer {
  readonly frames: ReceivedFrame[] = [];
  readonly protocolErrors: string[] = [];
  readonly authFailures: string[] = [];
  readonly calls: FakeCall[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly authenticated = new WeakSet<Socket>();
  private readonly pendingNetworkRequests = new Map<string, (response: SipMessage) => void>();
  private readonly waiters: (() => void)[] = [];
  private server!: Server;

  private constructor(private readonly options: FakeDrachtioOptions) {}

  static async start(options: FakeDrachtioOptions): Promise<FakeDrachtioServer> {
    const fake = new FakeDrachtioServer(options);
    fake.server = createServer((socket) => fake.accept(socket));
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get port(): number {
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening');
    return address.port;
  }

  get connections(): number {
    return this.sockets.size;
  }

  /** Resolves when `check` holds, re-evaluated after every frame (or rejects after `timeoutMs`). */
  async until<T>(check: () => T | undefined | false, timeoutMs = 2000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = check();
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`FakeDrachtioServer: condition not met within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 20);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The far end hangs up: a BYE from the network in the call's dialog; resolves with the client's answer. */
  sendBye(call: FakeCall): Promise<SipMessage> {
    const socket = [...this.sockets][0];
    const transactionId = randomUUID();
    const cseq = 1;
    const bye = serializeSip(`BYE ${call.clientContact} SIP/2.0`, [
      ['Via', `SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bK${tag()}`],
      ['Max-Forwards', '70'],
      ['From', `<${call.invite.uri}>;tag=${call.toTag}`],
      ['To', `${header(call.invite, 'From')}`],
      ['Call-ID', call.callId],
      ['CSeq', `${cseq} BYE`],
    ]);
    call.state = 'ended';
    return new Promise((resolve) => {
      this.pendingNetworkRequests.set(transactionId, resolve);
      this.sendNetwork(socket, transactionId, call.dialogId, bye);
    });
  }

  async close(): Promise<void> {
    for (const call of this.calls) call.timers.forEach(clearTimeout);
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    let buffer = Buffer.alloc(0);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      try {
        for (;;) {
          const hash = buffer.indexOf('#');
          if (hash < 0) {
            if (buffer.length > 12) throw new Error(`frame does not start with '<length>#'`);
            return;
          }
          const prefix = buffer.toString('utf8', 0, hash);
          if (!/^[1-9]\d{0,9}$/.test(prefix)) throw new Error(`bad length prefix '${prefix.slice(0, 20)}'`);
          const length = Number(prefix);
          if (length > MAX_FRAME) throw new Error(`frame of ${length} bytes is too large`);
          if (buffer.length < hash + 1 + length) return;
          const message = buffer.toString('utf8', hash + 1, hash + 1 + length);
          buffer = buffer.subarray(hash + 1 + length);
          this.handle(socket, message);
        }
      } catch (error) {
        this.protocolErrors.push((error as Error).message);
        socket.destroy();
      } finally {
        this.waiters.splice(0).forEach((wake) => wake());
      }
    });
  }

  private send(socket: Socket, payload: string): void {
    const message = `${randomUUID()}|${payload}`;
    socket.write(`${Buffer.byteLength(message, 'utf8')}#${message}`);
  }

  /** `response|<request msgId>|OK|…` answers one client request. */
  private respond(socket: Socket, msgId: string, fields: string[], sip?: string): void {
    this.send(socket, `response|${msgId}|${fields.join('|')}${sip === undefined ? '' : CRLF + sip}`);
  }

  /** `sip|network|<length>|<transport>|<address>|<port>|<time>|<transaction id>|<dialog id>` then the message. */
  private sendNetwork(socket: Socket, transactionId: string, dialogId: string, sip: string): void {
    this.send(socket, `sip|network|${Buffer.byteLength(sip)}|udp|192.0.2.10|5060|${stamp()}|${transactionId}|${dialogId}${CRLF}${sip}`);
  }

  private handle(socket: Socket, message: string): void {
    const newline = message.indexOf(CRLF);
    const leaderText = newline < 0 ? message : message.slice(0, newline);
    const leader = leaderText.split('|');
    const [msgId, kind] = leader;
    if (!UUID.test(msgId ?? '')) throw new Error(`message id '${msgId}' is not a UUID`);
    if (!KINDS.has(kind)) throw new Error(`unknown message kind '${kind}'`);
    if (kind !== 'authenticate' && !this.authenticated.has(socket)) throw new Error(`'${kind}' before authenticate`);
    const frame: ReceivedFrame = { msgId, kind, leader };
    if (kind === 'sip') {
      if (newline < 0) throw new Error('sip message without a SIP body after the leader line');
      if (leader.length < 4 || leader.length > 5) throw new Error(`sip leader must be sip|<txn>|<dialog>[|proxy], got '${leaderText}'`);
      frame.sip = parseSip(message.slice(newline + 2));
    } else if (newline >= 0) throw new Error(`'${kind}' takes no body`);
    this.frames.push(frame);

    switch (kind) {
      case 'authenticate': {
        if (leader.length !== 4) throw new Error(`authenticate must be authenticate|<secret>|<tags>, got ${leader.length - 1} fields`);
        if (leader[2] !== this.options.secret) {
          this.authFailures.push(leader[2]);
          this.respond(socket, msgId, ['NOK', 'authentication failed']);
          return;
        }
        this.authenticated.add(socket);
        this.respond(socket, msgId, ['OK', 'udp/192.0.2.1:5060,tcp/192.0.2.1:5060', 'v0.9.3-fake']);
        return;
      }
      case 'sip':
        return this.handleSip(socket, msgId, leader[2], leader[3], frame.sip!);
      default:
        this.respond(socket, msgId, ['OK']);
    }
  }

  /** Completes what only a real SIP stack knows (Via, tags, Call-ID, CSeq) and echoes the request as sent. */
  private echoSent(socket: Socket, msgId: string, transactionId: string, dialogId: string, sip: string): void {
    this.respond(
      socket,
      msgId,
      ['OK', 'application', String(Buffer.byteLength(sip)), 'udp', '192.0.2.10', '5060', stamp(), transactionId, dialogId],
      sip,
    );
  }

  private handleSip(socket: Socket, msgId: string, stackTxnId: string, stackDialogId: string, sip: SipMessage): void {
    if (sip.status !== undefined) {
      // The client's answer to a request the network sent (a BYE from the far end).
      const settle = this.pendingNetworkRequests.get(stackTxnId);
      if (!settle) throw new Error(`response for unknown transaction '${stackTxnId}'`);
      this.pendingNetworkRequests.delete(stackTxnId);
      this.respond(socket, msgId, ['OK']);
      settle(sip);
      return;
    }
    if (sip.method === 'INVITE' && !stackDialogId) return this.newInvite(socket, msgId, sip);
    if (sip.method === 'CANCEL') {
      const call = this.calls.find((candidate) => candidate.transactionId === stackTxnId);
      if (!call) throw new Error(`CANCEL for unknown transaction '${stackTxnId}'`);
      call.cancels.push(sip);
      this.echoSent(socket, msgId, randomUUID(), '', serializeSip(sip.startLine, sip.headers));
      if (call.state === 'inviting') {
        call.state = 'cancelled';
        call.timers.forEach(clearTimeout);
        this.sendNetwork(socket, call.transactionId, '', this.responseTo(call, { status: 487, reason: 'Request Terminated' }));
      }
      return;
    }
    const call = this.calls.find((candidate) => candidate.dialogId === stackDialogId);
    if (sip.method === 'ACK') {
      // ACK for a final response: in the dialog for a 200, outside it for a failure.
      if (call) call.acks.push(sip);
      return;
    }
    if (!call) throw new Error(`${sip.method} for unknown dialog '${stackDialogId}'`);
    const transactionId = randomUUID();
    const sent = this.completeInDialog(call, sip);
    this.echoSent(socket, msgId, transactionId, stackDialogId, sent);
    if (sip.method === 'BYE') {
      call.byesReceived.push(sip);
      call.state = 'ended';
      call.timers.forEach(clearTimeout);
      this.sendNetwork(
        socket,
        transactionId,
        stackDialogId,
        this.responseTo(call, { status: 200, reason: 'OK' }, `${call.byesReceived.length + 1} BYE`),
      );
    } else if (sip.method === 'INVITE') {
      call.reInvites.push(sip);
      this.sendNetwork(
        socket,
        transactionId,
        stackDialogId,
        this.responseTo(call, { status: 200, reason: 'OK', body: FAKE_SDP }, '2 INVITE'),
      );
    } else {
      this.sendNetwork(socket, transactionId, stackDialogId, this.responseTo(call, { status: 200, reason: 'OK' }, `1 ${sip.method}`));
    }
  }

  private newInvite(socket: Socket, msgId: string, sip: SipMessage): void {
    const givenCallId = header(sip, 'Call-ID') ?? header(sip, 'call-id');
    const existing = givenCallId ? this.calls.find((call) => call.callId === givenCallId) : undefined;
    const transactionId = randomUUID();
    const from = header(sip, 'From');
    if (!from) throw new Error('INVITE without From');
    const fromTag = /;tag=([^;>\s]+)/.exec(from)?.[1] ?? tag();
    const completed: [string, string][] = [
      ['Via', `SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK${tag()}`],
      ['Max-Forwards', '70'],
      ['From', /;tag=/.test(from) ? from : `${from};tag=${fromTag}`],
      ['To', header(sip, 'To') ?? `<${sip.uri}>`],
      ['Call-ID', givenCallId ?? randomUUID()],
      ['CSeq', header(sip, 'CSeq') ?? '1 INVITE'],
      ...sip.headers.filter(
        ([name]) => !['via', 'from', 'to', 'call-id', 'cseq', 'max-forwards', 'content-length'].includes(name.toLowerCase()),
      ),
    ];
    if (!completed.some(([name]) => name.toLowerCase() === 'contact')) completed.push(['Contact', '<sip:192.0.2.1:5060>']);
    const sent = serializeSip(sip.startLine, completed, sip.body);
    const invite = parseSip(sent);
    const contact = header(invite, 'Contact')!.replace(/^.*<([^>]+)>.*$/, '$1');

    let call: FakeCall;
    if (existing) {
      // The same call again with credentials after our 401.
      existing.transactionId = transactionId;
      existing.invite = invite;
      existing.authorization = header(invite, 'Authorization');
      call = existing;
    } else {
      call = {
        transactionId,
        dialogId: `${randomUUID()};uac`,
        callId: header(invite, 'Call-ID')!,
        invite,
        script: this.options.script(invite),
        state: 'inviting',
        acks: [],
        byesReceived: [],
        reInvites: [],
        cancels: [],
        fromTag,
        toTag: tag(),
        clientContact: contact.startsWith('sip') ? contact : `sip:${contact}`,
        timers: [],
      };
      this.calls.push(call);
    }
    this.echoSent(socket, msgId, transactionId, '', sent);

    const { digest } = call.script;
    if (digest && !call.authorization) {
      const nonce = randomUUID().replace(/-/g, '');
      this.sendNetwork(
        socket,
        transactionId,
        '',
        this.responseTo(call, {
          status: 401,
          reason: 'Unauthorized',
          headers: { 'WWW-Authenticate': `Digest realm="${digest.realm}", nonce="${nonce}", algorithm=MD5` },
        }),
      );
      return;
    }
    if (digest && !this.digestMatches(call, digest)) {
      call.state = 'failed';
      this.sendNetwork(socket, transactionId, '', this.responseTo(call, { status: 403, reason: 'Forbidden' }));
      return;
    }
    this.play(socket, call);
  }

  private digestMatches(call: FakeCall, digest: NonNullable<InviteScript['digest']>): boolean {
    const field = (name: string) => new RegExp(`${name}="?([^",]+)"?`).exec(call.authorization ?? '')?.[1];
    const md5 = (text: string) => createHash('md5').update(text).digest('hex');
    if (field('username') !== digest.username || field('realm') !== digest.realm) return false;
    const ha1 = md5(`${digest.username}:${digest.realm}:${digest.password}`);
    const ha2 = md5(`INVITE:${field('uri')}`);
    return field('response') === md5(`${ha1}:${field('nonce')}:${ha2}`);
  }

  private play(socket: Socket, call: FakeCall): void {
    let delay = 0;
    for (const step of call.script.responses) {
      delay += step.delayMs ?? 10;
      const timer = setTimeout(() => {
        if (call.state !== 'inviting') return;
        const final = step.status >= 200;
        if (final) call.state = step.status === 200 ? 'confirmed' : 'failed';
        this.sendNetwork(socket, call.transactionId, final && step.status === 200 ? call.dialogId : '', this.responseTo(call, step));
        if (step.status === 200 && call.script.byeAfterMs !== undefined) {
          call.timers.push(setTimeout(() => call.state === 'confirmed' && void this.sendBye(call), call.script.byeAfterMs));
        }
      }, delay);
      call.timers.push(timer);
    }
  }

  private responseTo(call: FakeCall, step: ScriptedResponse, cseq = header(call.invite, 'CSeq')!): string {
    const to = header(call.invite, 'To')!;
    const headers: [string, string][] = [
      ['Via', header(call.invite, 'Via')!],
      ['From', header(call.invite, 'From')!],
      ['To', step.status === 100 ? to : `${to};tag=${call.toTag}`],
      ['Call-ID', call.callId],
      ['CSeq', cseq],
      ...Object.entries(step.headers ?? {}),
    ];
    if (step.status === 200 || (step.status > 100 && step.status < 200))
      headers.push(['Contact', `<sip:${call.invite.uri?.replace(/^sips?:/, '').replace(/;.*$/, '')}>`]);
    if (step.body) headers.push(['Content-Type', 'application/sdp']);
    return serializeSip(`SIP/2.0 ${step.status} ${step.reason ?? 'Reason'}`, headers, step.body ?? '');
  }

  private completeInDialog(call: FakeCall, sip: SipMessage): string {
    const headers: [string, string][] = [
      ['Via', `SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK${tag()}`],
      ['From', header(call.invite, 'From')!],
      ['To', `${header(call.invite, 'To')};tag=${call.toTag}`],
      ['Call-ID', call.callId],
      ['CSeq', `2 ${sip.method}`],
      ...sip.headers.filter(([name]) => !['via', 'from', 'to', 'call-id', 'cseq', 'content-length'].includes(name.toLowerCase())),
    ];
    return serializeSip(`${sip.method} ${call.clientContact} SIP/2.0`, headers, sip.body);
  }
}
