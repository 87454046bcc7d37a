import { connect, type Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { FakeDrachtioServer, parseSip } from './fake-drachtio-server';

/** The fake must refuse what a real drachtio server would not understand, or the adapter tests prove nothing. */
describe(FakeDrachtioServer.name, () => {
  let fake: FakeDrachtioServer;
  const open = async (): Promise<Socket> => {
    const socket = connect(fake.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    return socket;
  };
  const frame = (body: string) => `${Buffer.byteLength(body)}#${body}`;
  const closed = (socket: Socket) => new Promise((resolve) => socket.once('close', resolve));

  beforeEach(async () => (fake = await FakeDrachtioServer.start({ secret: 'shh', script: () => ({ responses: [] }) })));
  afterEach(() => fake.close());

  it('answers a well-formed authenticate frame', async () => {
    const socket = await open();
    const id = randomUUID();
    const reply = new Promise<string>((resolve) => socket.once('data', (data) => resolve(data.toString())));
    socket.write(frame(`${id}|authenticate|shh|`));
    expect(await reply).toMatch(new RegExp(`^\\d+#[0-9a-f-]{36}\\|response\\|${id}\\|OK\\|`));
    socket.destroy();
  });

  it.each([
    ['a frame without a length prefix', 'authenticate|shh|'.padEnd(40, ' ')],
    ['a non-numeric length prefix', 'x1#abc'],
    ['a message id that is not a UUID', frame('42|authenticate|shh|')],
    ['an unknown message kind', frame(`${randomUUID()}|hello|shh|`)],
  ])('closes the connection on %s', async (_label, bytes) => {
    const socket = await open();
    socket.write(bytes);
    await closed(socket);
    expect(fake.protocolErrors).toHaveLength(1);
  });

  it('refuses SIP before authentication', async () => {
    const socket = await open();
    socket.write(frame(`${randomUUID()}|sip||\r\nOPTIONS sip:a@b SIP/2.0\r\nContent-Length: 0\r\n\r\n`));
    await closed(socket);
    expect(fake.protocolErrors).toEqual(["'sip' before authenticate"]);
  });

  it('checks the SIP message inside a frame', () => {
    expect(() => parseSip('INVITE sip:a@b SIP/2.0\r\nContent-Length: 5\r\n\r\nabc')).toThrow(/Content-Length 5/);
    expect(() => parseSip('INVITE sip:a@b SIP/2.0\r\nTo: x\r\n\r\n')).toThrow(/without Content-Length/);
    expect(() => parseSip('HELLO\r\nContent-Length: 0\r\n\r\n')).toThrow(/bad SIP start line/);
    expect(parseSip('SIP/2.0 180 Ringing\r\nContent-Length: 0\r\n\r\n')).toMatchObject({ status: 180 });
  });
});
