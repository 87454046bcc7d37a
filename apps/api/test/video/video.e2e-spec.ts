import { createHmac, randomUUID } from 'node:crypto';
import {
  SOCKET_NAMESPACES,
  type CaseDetail,
  type CaseTranscript,
  type MessageView,
  type VideoCallOffer,
  type VideoCallView,
  type VideoChunkAck,
  type VideoGuestSession,
  type VideoIceConfig,
  type VideoLinkView,
  type VideoRecordingView,
  type VisitorClientEvents,
  type VisitorServerEvents,
} from '@centralita/contracts';
import { PostgresFileStore } from '@centralita/contracts/server';
import { io, type Socket } from 'socket.io-client';
import { finaliseRecording } from '../../../worker/src/video/finalise';
import { readWebmTimeline } from '../../../worker/src/video/webm';
import { webmFixture } from '../../../worker/src/video/webm-fixture';
import { eventually } from '../../../../test/support/eventually';
import {
  createCampaign,
  createLine,
  createStaff,
  createTenant,
  data,
  openConversation,
  record,
  connectStaff,
  type StaffMember,
} from '../support/realtime';
import { queueCustomer } from '../consistency/consistency';
import type { TestTenant } from '../support/factories';
import { bearer, startTestApp, type TestApp } from '../support/test-app';

jest.setTimeout(90_000);

const TURN_SECRET = 'e2e-turn-shared-secret-0123456789';
type GuestSocket = Socket<VisitorServerEvents, VisitorClientEvents>;

function connectGuest(url: string, guestKey: string): Promise<GuestSocket> {
  const socket = io(`${url}${SOCKET_NAMESPACES.visitor}`, {
    auth: { videoGuestKey: guestKey },
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
  }) as GuestSocket;
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (error) => {
      socket.close();
      reject(error);
    });
  });
}

describe('Video calls (e2e)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let agent: StaffMember;
  let other: StaffMember;
  let foreign: StaffMember;
  let line: string;
  const saved = { urls: process.env.TURN_URLS, secret: process.env.TURN_SECRET };
  const sockets: Socket[] = [];

  /** An Active conversation handled by `by`. */
  const activeConversation = async (by: StaffMember, name = 'Vera Video'): Promise<string> => {
    const id = await openConversation(t, tenant, line, name);
    await t.dataSource.query(`UPDATE conversations SET status = 'Active', agent_id = $2 WHERE id = $1`, [id, by.userId]);
    return id;
  };
  const offer = async (conversationId: string, by = agent) =>
    data<VideoCallOffer>(await t.http().post(`/api/conversations/${conversationId}/video-calls`).set(bearer(by.token)));
  const reasonOf = (response: { body: { data?: { reason?: string } } }) => response.body.data?.reason;

  beforeAll(async () => {
    process.env.TURN_URLS = 'stun:127.0.0.1:3478,turn:127.0.0.1:3478?transport=udp';
    process.env.TURN_SECRET = TURN_SECRET;
    t = await startTestApp();
    tenant = await createTenant(t.dataSource);
    line = await createLine(t.dataSource, tenant, 'Video line');
    agent = await createStaff(t, tenant, 'AGENT', [line]);
    other = await createStaff(t, tenant, 'AGENT', [line]);
    foreign = await createStaff(t, await createTenant(t.dataSource), 'AGENT');
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await t.close();
    process.env.TURN_URLS = saved.urls;
    process.env.TURN_SECRET = saved.secret;
    if (saved.urls === undefined) delete process.env.TURN_URLS;
    if (saved.secret === undefined) delete process.env.TURN_SECRET;
  });

  it('sends the customer a single-use link as a chat message; joining uses it up and starts the call in the history', async () => {
    const conversationId = await activeConversation(agent);
    const made = await offer(conversationId);
    expect(made.link).toBe(`${made.link.split('/VideoChatContainer/')[0]}/VideoChatContainer/${made.videoChatId}`);
    expect(made.call).toMatchObject({ conversationId, status: 'offered', usedAt: null, startedAt: null });
    const messages = data<MessageView[]>(
      await t.http().get(`/api/agent/conversations/${conversationId}/messages`).set(bearer(agent.token)),
    );
    expect(messages.at(-1)).toMatchObject({ senderKind: 'agent', text: expect.stringContaining(made.link) });

    const view = data<VideoLinkView>(await t.http().get(`/api/public/video-calls/${made.videoChatId}`));
    expect(view).toMatchObject({ status: 'ready', agentName: expect.any(String) });
    const session = data<VideoGuestSession>(
      await t.http().post(`/api/public/video-calls/${made.videoChatId}/join`).send({ recordingConsent: false }),
    );
    expect(session.callId).toBe(made.call.id);
    expect(session.guestKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session.recordingConsent).toBe(false);

    // Used up: a second open or join answers a clear 410 with its reason.
    const again = await t.http().post(`/api/public/video-calls/${made.videoChatId}/join`).send({}).expect(410);
    expect(reasonOf(again)).toBe('used');
    expect(reasonOf(await t.http().get(`/api/public/video-calls/${made.videoChatId}`).expect(410))).toBe('used');

    const after = data<MessageView[]>(await t.http().get(`/api/agent/conversations/${conversationId}/messages`).set(bearer(agent.token)));
    expect(after.at(-1)).toMatchObject({ senderKind: 'system', text: expect.stringMatching(/Videollamada iniciada|Video call started/) });
    const [call] = data<VideoCallView[]>(await t.http().get(`/api/conversations/${conversationId}/video-calls`).set(bearer(agent.token)));
    expect(call).toMatchObject({ id: made.call.id, status: 'live', usedAt: expect.any(String), startedAt: expect.any(String) });
  });

  it('answers an expired link with a clear 410 and starts nothing', async () => {
    const conversationId = await activeConversation(agent);
    const made = await offer(conversationId);
    await t.dataSource.query(`UPDATE video_calls SET expires_at = now() - interval '1 second' WHERE id = $1`, [made.call.id]);
    expect(reasonOf(await t.http().get(`/api/public/video-calls/${made.videoChatId}`).expect(410))).toBe('expired');
    expect(reasonOf(await t.http().post(`/api/public/video-calls/${made.videoChatId}/join`).send({}).expect(410))).toBe('expired');
    const [row] = await t.dataSource.query(`SELECT status, used_at, started_at, guest_key_hash FROM video_calls WHERE id = $1`, [
      made.call.id,
    ]);
    expect(row).toEqual({ status: 'offered', used_at: null, started_at: null, guest_key_hash: null });
  });

  it('answers an unknown or malformed link with 404 reason unknown', async () => {
    expect(
      reasonOf(
        await t
          .http()
          .get(`/api/public/video-calls/${'A'.repeat(43)}`)
          .expect(404),
      ),
    ).toBe('unknown');
    expect(reasonOf(await t.http().get(`/api/public/video-calls/not-a-token`).expect(404))).toBe('unknown');
    expect(reasonOf(await t.http().post(`/api/public/video-calls/not-a-token/join`).send({}).expect(404))).toBe('unknown');
  });

  it('answers a link whose conversation closed or moved to another agent with 410 conversation_closed, and a replaced link with 410 ended', async () => {
    const conversationId = await activeConversation(agent);
    const first = await offer(conversationId);
    const second = await offer(conversationId);
    expect(reasonOf(await t.http().get(`/api/public/video-calls/${first.videoChatId}`).expect(410))).toBe('ended');
    await t.dataSource.query(`UPDATE conversations SET agent_id = $2 WHERE id = $1`, [conversationId, other.userId]);
    expect(reasonOf(await t.http().post(`/api/public/video-calls/${second.videoChatId}/join`).send({}).expect(410))).toBe(
      'conversation_closed',
    );
    const [row] = await t.dataSource.query(`SELECT used_at FROM video_calls WHERE id = $1`, [second.call.id]);
    expect(row.used_at).toBeNull();
  });

  it("refuses another conversation's call and another tenant's conversation with 404, and a non-handler's offer with 409", async () => {
    const mine = await activeConversation(agent);
    const theirs = await activeConversation(other);
    const made = await offer(mine);
    await t.http().post(`/api/conversations/${theirs}/video-calls/${made.call.id}/end`).set(bearer(other.token)).expect(404);
    await t.http().post(`/api/conversations/${theirs}/video-calls/${made.call.id}/end`).set(bearer(agent.token)).expect(404);
    await t.http().get(`/api/video-calls/${made.call.id}/ice`).set(bearer(other.token)).expect(404);
    await t.http().post(`/api/conversations/${mine}/video-calls`).set(bearer(foreign.token)).expect(404);
    await t.http().get(`/api/conversations/${mine}/video-calls`).set(bearer(foreign.token)).expect(404);
    await t.http().get(`/api/video-calls/${made.call.id}/ice`).set(bearer(foreign.token)).expect(404);
    await t
      .http()
      .post(`/api/video-calls/${made.call.id}/recordings`)
      .set(bearer(foreign.token))
      .send({ mimeType: 'video/webm' })
      .expect(404);
    await t.dataSource.query(`UPDATE conversations SET status = 'Closed' WHERE id = $1`, [theirs]);
    await t.http().post(`/api/conversations/${theirs}/video-calls`).set(bearer(other.token)).expect(409);
    await t.http().post(`/api/conversations/not-a-uuid/video-calls`).set(bearer(agent.token)).expect(400);
  });

  it("mints TURN credentials with coturn's REST scheme for the call's two parties only", async () => {
    const conversationId = await activeConversation(agent);
    const made = await offer(conversationId);
    const ice = data<VideoIceConfig>(await t.http().get(`/api/video-calls/${made.call.id}/ice`).set(bearer(agent.token)));
    const turn = ice.iceServers.find((server) => server.urls.some((url) => url.startsWith('turn:')))!;
    expect(turn.username).toMatch(new RegExp(`^\\d+:${made.call.id}$`));
    expect(Number(turn.username!.split(':')[0])).toBeGreaterThan(Date.now() / 1000 + 3500);
    expect(turn.credential).toBe(createHmac('sha1', TURN_SECRET).update(turn.username!).digest('base64'));
    expect(ice.iceServers).toContainEqual({ urls: ['stun:127.0.0.1:3478'] });
    const session = data<VideoGuestSession>(await t.http().post(`/api/public/video-calls/${made.videoChatId}/join`).send({}));
    expect(session.ice.iceServers.find((server) => server.username)?.username).toMatch(new RegExp(`:${made.call.id}$`));
  });

  it("relays signalling between the call's agent and customer only, and tells both when it ends", async () => {
    const conversationId = await activeConversation(agent);
    const made = await offer(conversationId);
    const session = data<VideoGuestSession>(await t.http().post(`/api/public/video-calls/${made.videoChatId}/join`).send({}));
    const agentSocket = await connectStaff(t.url, agent.token);
    const otherSocket = await connectStaff(t.url, other.token);
    sockets.push(agentSocket, otherSocket);
    expect(await agentSocket.emitWithAck('video.join', { callId: made.call.id })).toEqual({ ok: true });
    expect(await otherSocket.emitWithAck('video.join', { callId: made.call.id })).toMatchObject({ ok: false, errorCode: 'not_found' });
    const agentHeard = record(agentSocket);
    const otherHeard = record(otherSocket);
    const guest = await connectGuest(t.url, session.guestKey);
    sockets.push(guest);
    const guestHeard = record(guest);
    await eventually(() => expect(agentHeard).toContainEqual({ event: 'video.call', data: { callId: made.call.id, state: 'joined' } }));

    agentSocket.emit('video.signal', { callId: made.call.id, kind: 'offer', data: { type: 'offer', sdp: 'v=0 agent' } });
    guest.emit('video.signal', { callId: made.call.id, kind: 'answer', data: { type: 'answer', sdp: 'v=0 guest' } });
    // Another call's id from the guest, or a call the staff socket is not in, goes nowhere.
    guest.emit('video.signal', { callId: randomUUID(), kind: 'candidate', data: {} });
    otherSocket.emit('video.signal', { callId: made.call.id, kind: 'offer', data: { sdp: 'intruder' } });
    await eventually(() => {
      expect(guestHeard).toContainEqual({
        event: 'video.signal',
        data: { callId: made.call.id, kind: 'offer', data: { type: 'offer', sdp: 'v=0 agent' } },
      });
      expect(agentHeard).toContainEqual({
        event: 'video.signal',
        data: { callId: made.call.id, kind: 'answer', data: { type: 'answer', sdp: 'v=0 guest' } },
      });
    });
    expect(guestHeard.filter((entry) => entry.event === 'video.signal')).toHaveLength(1);
    expect(agentHeard.filter((entry) => entry.event === 'video.signal')).toHaveLength(1);
    expect(otherHeard.filter((entry) => entry.event.startsWith('video.'))).toEqual([]);

    // A bad guest key cannot connect.
    await expect(connectGuest(t.url, 'B'.repeat(43))).rejects.toThrow();

    const ended = data<VideoCallView>(
      await t.http().post(`/api/conversations/${conversationId}/video-calls/${made.call.id}/end`).set(bearer(agent.token)),
    );
    expect(ended).toMatchObject({ status: 'ended', endedBy: 'agent' });
    await eventually(() =>
      expect(guestHeard).toContainEqual({ event: 'video.call', data: { callId: made.call.id, state: 'ended', endedBy: 'agent' } }),
    );
    const messages = data<MessageView[]>(
      await t.http().get(`/api/agent/conversations/${conversationId}/messages`).set(bearer(agent.token)),
    );
    expect(messages.at(-1)).toMatchObject({
      senderKind: 'system',
      text: expect.stringMatching(/(Videollamada finalizada|Video call ended) \(\d+:\d\d\)/),
    });
    // Over: the guest key no longer works, and a second hang-up changes nothing.
    await t.http().post('/api/public/video-guest/end').set('x-video-guest-key', session.guestKey).expect(410);
    await t.http().post(`/api/conversations/${conversationId}/video-calls/${made.call.id}/end`).set(bearer(agent.token)).expect(200);
    const history = data<MessageView[]>(await t.http().get(`/api/agent/conversations/${conversationId}/messages`).set(bearer(agent.token)));
    expect(history.filter((message) => message.senderKind === 'system')).toHaveLength(2);
  });

  /** A live call on a conversation the machine really made Active (routed to a logged-in agent of a tenant of its own). */
  async function liveCallOnRoutedConversation(recordingConsent: boolean) {
    const own = await createTenant(t.dataSource);
    const ownLine = await createLine(t.dataSource, own, 'Closing line');
    const otherLine = await createLine(t.dataSource, own, 'Second line');
    const campaignId = await createCampaign(t.dataSource, own, 2);
    const closer = await createStaff(t, own, 'AGENT', [ownLine]);
    await t.http().post('/api/agent/presence/login').set(bearer(closer.token)).send({ campaignId }).expect(200);
    const conversationId = await queueCustomer(t, ownLine, 'Clara Cierre');
    await eventually(async () => {
      const [row] = await t.dataSource.query(`SELECT status, agent_id FROM conversations WHERE id = $1`, [conversationId]);
      expect(row).toEqual({ status: 'Active', agent_id: closer.userId });
    });
    const made = await offer(conversationId, closer);
    const session = data<VideoGuestSession>(
      await t.http().post(`/api/public/video-calls/${made.videoChatId}/join`).send({ recordingConsent }),
    );
    const agentSocket = await connectStaff(t.url, closer.token);
    sockets.push(agentSocket);
    expect(await agentSocket.emitWithAck('video.join', { callId: made.call.id })).toEqual({ ok: true });
    const agentHeard = record(agentSocket);
    const guest = await connectGuest(t.url, session.guestKey);
    sockets.push(guest);
    const guestHeard = record(guest);
    await eventually(() => expect(agentHeard).toContainEqual({ event: 'video.call', data: { callId: made.call.id, state: 'joined' } }));
    const ended = { event: 'video.call', data: { callId: made.call.id, state: 'ended', endedBy: 'conversation_closed' } };
    const bothHeardTheEnd = () =>
      eventually(() => {
        expect(guestHeard).toContainEqual(ended);
        expect(agentHeard).toContainEqual(ended);
      });
    return { own, otherLine, closer, conversationId, made, session, bothHeardTheEnd };
  }

  it('ends a live call for both parties when its conversation is closed: the history has its end, the link and guest key stop working, a recording is finalised', async () => {
    const { own, closer, conversationId, made, session, bothHeardTheEnd } = await liveCallOnRoutedConversation(true);
    const recording = data<VideoRecordingView>(
      await t.http().post(`/api/video-calls/${made.call.id}/recordings`).set(bearer(closer.token)).send({ mimeType: 'video/webm' }),
    );

    await t
      .http()
      .post(`/api/agent/conversations/${conversationId}/close`)
      .set(bearer(closer.token))
      .send({ disposition: 'solved' })
      .expect(200);

    await bothHeardTheEnd();
    const [call] = data<VideoCallView[]>(await t.http().get(`/api/conversations/${conversationId}/video-calls`).set(bearer(closer.token)));
    expect(call).toMatchObject({ id: made.call.id, status: 'ended', endedBy: 'conversation_closed', endedAt: expect.any(String) });
    const messages = data<MessageView[]>(
      await t.http().get(`/api/agent/conversations/${conversationId}/messages`).set(bearer(closer.token)),
    );
    expect(messages.filter((message) => message.senderKind === 'system').map((message) => message.text)).toEqual([
      expect.stringMatching(/Videollamada iniciada|Video call started/),
      expect.stringMatching(/(Videollamada finalizada|Video call ended) \(\d+:\d\d\)/),
    ]);
    // The customer's side is over: the link, the guest key (page reload, hang-up, signalling) all refuse.
    expect(reasonOf(await t.http().get(`/api/public/video-calls/${made.videoChatId}`).expect(410))).toBe('ended');
    await t.http().post('/api/public/video-guest/resume').set('x-video-guest-key', session.guestKey).expect(410);
    await t.http().post('/api/public/video-guest/end').set('x-video-guest-key', session.guestKey).expect(410);
    await expect(connectGuest(t.url, session.guestKey)).rejects.toThrow();
    // What was being recorded is finalised a few seconds later, through the close's own outbox.
    const [job] = await t.dataSource.query(`SELECT payload FROM outbox WHERE topic = 'job' AND payload->>'jobId' = $1`, [
      `video-recording.${recording.id}.late`,
    ]);
    expect(job?.payload).toMatchObject({ name: 'finalise', data: { tenantId: own.client.id, recordingId: recording.id }, delayMs: 5_000 });
  });

  it('ends the call when the agent transfers the conversation to another line (the agent lets go of it)', async () => {
    const { otherLine, closer, conversationId, made, session, bothHeardTheEnd } = await liveCallOnRoutedConversation(false);
    await t
      .http()
      .post(`/api/agent/conversations/${conversationId}/transfer`)
      .set(bearer(closer.token))
      .send({ attentionLineId: otherLine })
      .expect(200);
    await bothHeardTheEnd();
    const [row] = await t.dataSource.query(`SELECT status, ended_by FROM video_calls WHERE id = $1`, [made.call.id]);
    expect(row).toEqual({ status: 'ended', ended_by: 'conversation_closed' });
    await t.http().post('/api/public/video-guest/resume').set('x-video-guest-key', session.guestKey).expect(410);
  });

  it('records only with consent, takes chunks in order and idempotently, and finalises a playable file with its duration', async () => {
    const conversationId = await activeConversation(agent);
    const made = await offer(conversationId);
    const session = data<VideoGuestSession>(await t.http().post(`/api/public/video-calls/${made.videoChatId}/join`).send({}));
    const start = () =>
      t
        .http()
        .post(`/api/video-calls/${made.call.id}/recordings`)
        .set(bearer(agent.token))
        .send({ mimeType: 'video/webm;codecs=vp8,opus' });
    expect(reasonOf(await start().expect(409))).toBe('consent_required');
    await t.http().post(`/api/video-calls/${made.call.id}/recordings`).set(bearer(agent.token)).send({ mimeType: 'text/html' }).expect(400);
    await t.http().post('/api/public/video-guest/consent').set('x-video-guest-key', session.guestKey).send({ consent: 'yes' }).expect(400);
    await t.http().post('/api/public/video-guest/consent').set('x-video-guest-key', session.guestKey).send({ consent: true }).expect(200);
    // A reloaded page takes the call up again with its guest key, consent included.
    const resumed = data<VideoGuestSession>(
      await t.http().post('/api/public/video-guest/resume').set('x-video-guest-key', session.guestKey),
    );
    expect(resumed).toMatchObject({ callId: made.call.id, recordingConsent: true });
    const recording = data<VideoRecordingView>(await start());

    const file = webmFixture(6_000);
    const cut = Math.floor(file.length / 3);
    const parts = [file.subarray(0, cut), file.subarray(cut, 2 * cut), file.subarray(2 * cut)];
    const put = (index: number | string, bytes: Buffer) =>
      t
        .http()
        .post(`/api/video-calls/${made.call.id}/recordings/${recording.id}/chunks/${index}`)
        .set(bearer(agent.token))
        .set('Content-Type', 'application/octet-stream')
        .send(bytes);
    expect(data<VideoChunkAck>(await put(0, parts[0]!))).toEqual({ recordingId: recording.id, index: 0, nextIndex: 1, duplicate: false });
    const early = await put(2, parts[2]!).expect(409);
    expect(early.body.data).toEqual({ reason: 'out_of_order', expected: 1 });
    expect(data<VideoChunkAck>(await put(0, parts[0]!))).toMatchObject({ duplicate: true, nextIndex: 1 });
    expect(reasonOf(await put(0, Buffer.from('other bytes')).expect(409))).toBe('chunk_mismatch');
    await put(-1, parts[1]!).expect(400);
    await put('x', parts[1]!).expect(400);
    await put(1, Buffer.alloc(0)).expect(400);
    await put(1, Buffer.alloc(8 * 1024 * 1024 + 1)).expect(413);
    await t
      .http()
      .post(`/api/video-calls/${made.call.id}/recordings/${recording.id}/chunks/1`)
      .set(bearer(other.token))
      .set('Content-Type', 'application/octet-stream')
      .send(parts[1]!)
      .expect(404);
    await put(1, parts[1]!).expect(200);
    await put(2, parts[2]!).expect(200);

    const stopped = data<VideoRecordingView>(
      await t.http().post(`/api/video-calls/${made.call.id}/recordings/${recording.id}/stop`).set(bearer(agent.token)),
    );
    expect(stopped.status).toBe('finalising');
    await put(3, parts[2]!).expect(409);
    // The worker's finaliser, run here on the same database and file store.
    const store = new PostgresFileStore((text, values) => t.dataSource.query(text, values));
    expect(await finaliseRecording((text, values) => t.dataSource.query(text, values), store, recording.id)).toBe('ready');
    expect(await finaliseRecording((text, values) => t.dataSource.query(text, values), store, recording.id)).toBe('already');

    const [ready] = data<VideoRecordingView[]>(
      await t.http().get(`/api/conversations/${conversationId}/video-recordings`).set(bearer(agent.token)),
    );
    expect(ready).toMatchObject({ id: recording.id, status: 'ready', format: 'video/webm', durationMs: readWebmTimeline(file).durationMs });
    const played = await t
      .http()
      .get(ready!.url!)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(played.status).toBe(200);
    expect(played.headers['x-content-type-options']).toBe('nosniff');
    expect(played.headers['content-type']).toBe('video/webm');
    expect(readWebmTimeline(played.body as Buffer).declaredDurationMs).toBe(readWebmTimeline(file).durationMs);
    await t
      .http()
      .get(ready!.url!.replace(/s=[^&]+/, 's=forged'))
      .expect(404);
    await t.http().get(`/api/conversations/${conversationId}/video-recordings`).set(bearer(foreign.token)).expect(404);
    const [{ n }] = await t.dataSource.query(`SELECT count(*)::int AS n FROM video_recording_chunks WHERE recording_id = $1`, [
      recording.id,
    ]);
    expect(n).toBe(0);

    // The case of the conversation plays it too.
    const made2 = data<CaseDetail>(
      await t
        .http()
        .post('/api/cases')
        .set(bearer(agent.token))
        .send({ subject: 'Video case', description: 'Recorded call', conversationId }),
    );
    const transcript = data<CaseTranscript>(
      await t.http().get(`/api/cases/${made2.id}/conversations/${conversationId}/transcript`).set(bearer(agent.token)),
    );
    expect(transcript.recordings).toEqual([
      {
        id: recording.id,
        kind: 'video',
        url: expect.stringContaining(`/api/video-recordings/${recording.id}/content?`),
        createdAt: expect.any(String),
      },
    ]);
  });
});
