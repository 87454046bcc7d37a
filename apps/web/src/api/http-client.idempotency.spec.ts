import { describe, expect, it, jest } from '@jest/globals';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_REPLAYED_HEADER } from '@centralita/contracts';
import { createDeskApi, createVisitorApi } from '../desk/desk-api';
import { ApiError } from './api-error';
import { createApiClient, IDEMPOTENT_ATTEMPTS, idempotentRetryDelay, type TokenSource } from './http-client';

type Responder = (url: string, init: RequestInit) => Promise<Response>;

const envelope = (status: number, data: unknown, errorCode?: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ statusCode: status, data, errorMessage: status === 200 ? null : 'no', errorCode }), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });

const tokens: TokenSource = {
  getAccessToken: () => 'access-1',
  getRefreshToken: () => 'refresh-1',
  getUserId: () => 'u-1',
  saveTokens: () => undefined,
};

function harness(responder: Responder, attemptTimeoutMs?: number) {
  const fetchMock = jest.fn(responder);
  const waits: number[] = [];
  let minted = 0;
  const api = createApiClient({
    baseUrl: '',
    fetch: fetchMock as unknown as typeof fetch,
    tokens,
    sleep: async (ms) => {
      waits.push(ms);
    },
    newIdempotencyKey: () => `key-${++minted}`,
    idempotentAttemptTimeoutMs: attemptTimeoutMs,
  });
  const keys = () => fetchMock.mock.calls.map(([, init]) => (init.headers as Record<string, string>)[IDEMPOTENCY_KEY_HEADER]);
  return { api, fetchMock, waits, keys };
}

/** Answers in turn with each of `answers` (a function throws: the network failed). */
function inTurn(...answers: (Response | (() => never))[]): Responder {
  let call = 0;
  return async () => {
    const answer = answers[Math.min(call++, answers.length - 1)];
    if (typeof answer === 'function') answer();
    return (answer as Response).clone();
  };
}
const dropped = () => {
  throw new TypeError('Failed to fetch');
};

describe('idempotent calls of the console client', () => {
  it('re-sends the same key after a network failure and a 5xx, and takes the answer as success', async () => {
    const { api, keys, waits } = harness(inTurn(dropped, envelope(503, null), envelope(200, { status: 'Closed' })));
    await expect(api.post('/api/agent/conversations/c1/close', { disposition: 'd' }, { idempotent: true })).resolves.toEqual({
      status: 'Closed',
    });
    expect(keys()).toEqual(['key-1', 'key-1', 'key-1']);
    expect(waits).toEqual([idempotentRetryDelay(1), idempotentRetryDelay(2)]);
  });

  it('waits the Retry-After of a 409 idempotency_in_progress, then takes the replayed first answer', async () => {
    const { api, keys, waits } = harness(
      inTurn(
        envelope(409, null, 'idempotency_in_progress', { 'Retry-After': '1' }),
        envelope(200, { id: 'm1' }, undefined, { [IDEMPOTENCY_REPLAYED_HEADER]: 'true' }),
      ),
    );
    await expect(api.post('/api/agent/conversations/c1/messages', { text: 'hi' }, { idempotent: true })).resolves.toEqual({ id: 'm1' });
    expect(keys()).toEqual(['key-1', 'key-1']);
    expect(waits).toEqual([1000]);
  });

  it('mints a new key for every new action', async () => {
    const { api, keys } = harness(async () => envelope(200, {}));
    await api.post('/api/agent/presence/pause', { reasonId: 'r' }, { idempotent: true });
    await api.post('/api/agent/presence/pause', { reasonId: 'r' }, { idempotent: true });
    expect(keys()).toEqual(['key-1', 'key-2']);
  });

  it('gives up after a bounded number of tries with the last failure', async () => {
    const { api, fetchMock, keys } = harness(inTurn(dropped));
    const failure = await api.post('/api/agent/presence/available', {}, { idempotent: true }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).kind).toBe('network');
    expect(fetchMock).toHaveBeenCalledTimes(IDEMPOTENT_ATTEMPTS);
    expect(new Set(keys())).toEqual(new Set(['key-1']));
  });

  it('repeats a try that goes unanswered past its timeout, with the same key', async () => {
    let call = 0;
    const { api, keys } = harness(
      (_url, init) =>
        call++ === 0
          ? new Promise<Response>((_resolve, reject) =>
              init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
            )
          : Promise.resolve(envelope(200, { ok: true })),
      20,
    );
    await expect(api.post('/api/agent/conversations/c1/transfer', { agentId: 'a2' }, { idempotent: true })).resolves.toEqual({ ok: true });
    expect(keys()).toEqual(['key-1', 'key-1']);
  });

  it('does not repeat a refusal: a 4xx (other 409s, 422 key reused) is the answer', async () => {
    for (const [status, code] of [
      [409, 'illegal_transition'],
      [422, 'idempotency_key_reused'],
      [400, 'validation_failed'],
    ] as const) {
      const { api, fetchMock } = harness(async () => envelope(status, null, code));
      const failure = (await api.post('/x', {}, { idempotent: true }).catch((error: unknown) => error)) as ApiError;
      expect([failure.status, failure.code]).toEqual([status, code]);
      expect(fetchMock).toHaveBeenCalledTimes(1);
    }
  });

  it('sends no key and never retries a call that is not marked idempotent', async () => {
    const { api, fetchMock, keys } = harness(async () => envelope(503, null));
    await expect(api.post('/api/agent/conversations/c1/typing', { typing: true })).rejects.toBeInstanceOf(ApiError);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(keys()).toEqual([undefined]);
  });

  it('marks every state-changing desk and supervisor action, and none of the reads or marks', async () => {
    const { api: client, keys } = harness(async () => envelope(200, {}));
    const desk = createDeskApi(client);
    const acting = [
      () => desk.login(),
      () => desk.available(),
      () => desk.pause('r'),
      () => desk.logout(),
      () => desk.send('c1', 'hi', 'm-1'),
      () => desk.transfer('c1', { agentId: 'a2' }),
      () => desk.close('c1', 'done'),
      () => desk.sendTemplate('c1', { templateId: 't1', parameters: [] } as never),
      () => desk.reassign('c1', { agentId: 'a2' }),
      () => desk.forcePause('a1', 'r'),
      () => desk.forceLogout('a1'),
    ];
    for (const act of acting) await act();
    expect(keys()).toEqual(acting.map((_, index) => `key-${index + 1}`));
    await desk.typing('c1', true);
    await desk.read('c1', 3);
    await desk.myConversations();
    expect(keys().slice(acting.length)).toEqual([undefined, undefined, undefined]);
  });
});

describe('idempotent calls of the web-chat widget', () => {
  it('sends a key with message, menu, survey and leave, and the same one on a retry', async () => {
    const answers = inTurn(dropped, envelope(200, {}));
    const fetchMock = jest.fn(answers);
    const original = globalThis.window;
    (globalThis as { window?: unknown }).window = { fetch: fetchMock };
    try {
      const visitor = createVisitorApi(() => 'visitor-token');
      await visitor.send('hola', 'm-1');
      await visitor.menu('q1', 's1');
      await visitor.survey('q1', '5', true);
      await visitor.leave();
      await visitor.typing(true);
    } finally {
      (globalThis as { window?: unknown }).window = original;
    }
    const keys = fetchMock.mock.calls.map(([, init]) => (init.headers as Record<string, string>)[IDEMPOTENCY_KEY_HEADER]);
    // The dropped first send was repeated with its own key; every later action has a fresh one.
    expect(keys[0]).toBeTruthy();
    expect(keys[1]).toBe(keys[0]);
    expect(new Set(keys.slice(1, 5)).size).toBe(4);
    expect(keys[5]).toBeUndefined();
  }, 10_000);
});
