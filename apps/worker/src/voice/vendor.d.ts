/** The parts of the untyped `sip` (0.0.6) and `rtpengine-client` (0.4) packages the voice server uses. */
declare module 'sip' {
  export interface SipUri {
    schema?: string;
    user?: string;
    password?: string;
    host: string;
    port?: number;
    params: Record<string, string | null | undefined>;
    headers?: Record<string, string>;
  }
  export interface NameAddr {
    name?: string;
    uri: string;
    params: Record<string, string | null | undefined>;
  }
  export interface Via {
    version?: string;
    protocol?: string;
    host?: string;
    port?: number;
    params: Record<string, string | number | null | undefined>;
  }
  export interface SipHeaders {
    via: Via[];
    from: NameAddr;
    to: NameAddr;
    'call-id': string;
    cseq: { seq: number; method: string };
    contact?: NameAddr[] | string;
    'record-route'?: NameAddr[];
    route?: NameAddr[] | string;
    'content-type'?: string;
    'content-length'?: number;
    [name: string]: unknown;
  }
  export interface SipMessage {
    method?: string;
    uri?: string;
    status?: number;
    reason?: string;
    version?: string;
    headers: SipHeaders;
    content?: string;
  }
  export interface SipRequest extends SipMessage {
    method: string;
    uri: string;
  }
  export interface SipResponse extends SipMessage {
    status: number;
    reason: string;
  }
  export interface Remote {
    protocol: string;
    address: string;
    port: number;
    local?: { address: string; port: number };
  }
  export interface SipStackOptions {
    port?: number;
    address?: string;
    publicAddress?: string;
    hostname?: string;
    udp?: boolean;
    tcp?: boolean;
    /** TLS server/client options (cert, key, …): SIP over TLS on `tls_port`. */
    tls?: import('node:tls').TlsOptions;
    tls_port?: number;
    rport?: boolean;
    logger?: { send?(m: SipMessage, target: unknown): void; recv?(m: SipMessage, remote: Remote): void; error?(e: unknown): void };
  }
  export interface SipStack {
    send(message: SipMessage, callback?: (response: SipResponse) => void): void;
    destroy(): void;
    hostname(): string;
    /** A URI naming a connection (flow) of this stack: a request routed to it goes out over that connection. */
    encodeFlowUri(flow: Remote): SipUri;
  }
  export function create(options: SipStackOptions, onRequest: (request: SipRequest, remote: Remote) => void): SipStack;
  export function makeResponse(request: SipRequest, status: number, reason?: string): SipResponse;
  export function parseUri(uri: string): SipUri;
  export function stringifyUri(uri: SipUri | string): string;
  export function parse(message: string): SipMessage;
  export function stringify(message: SipMessage): string;
  export function generateBranch(): string;
}

declare module 'rtpengine-client' {
  type NgReply = { result: string; 'error-reason'?: string; sdp?: string; duration?: number; [key: string]: unknown };
  type NgCall = (port: number, host: string, options?: Record<string, unknown>) => Promise<NgReply>;
  export class Client {
    constructor(options?: { timeout?: number; localPort?: number; localAddress?: string });
    ping: NgCall;
    offer: NgCall;
    answer: NgCall;
    delete: NgCall;
    query: NgCall;
    playMedia: NgCall;
    stopMedia: NgCall;
    startRecording: NgCall;
    blockMedia: NgCall;
    unblockMedia: NgCall;
    close(): void;
    on(event: 'error', listener: (error: Error) => void): this;
  }
}
