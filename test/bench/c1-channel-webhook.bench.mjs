// C1: inbound channel webhook → agent screen p99. A WhatsApp Cloud API account is connected through
// the API (secrets encrypted as in production), agents are logged in with /staff sockets serving its
// line, and every contact already has an Active conversation with one of them. Signed webhooks —
// Meta's `messages` payload with one text message each, serialised and signed exactly as Meta does
// (metaJson, X-Hub-Signature-256 over the bytes) — are posted at an offered 300/s (open loop,
// round-robin over the contacts, each a new provider message id). Measured: the webhook's answer
// time (cap 50 ms p99) and webhook sent → the agent's socket receiving message.created (matched by
// the text, which carries the webhook's number). One webhook in ten is delivered again, as Meta's
// at-least-once delivery does: the same bytes at once, the same message re-serialised at once (its
// bytes and delivery key differ, so only the message's provider id catches it), or either of them
// after the original reached the agent. At the end every message is counted by provider id in the
// database and on the agents' screens: zero duplicates and zero losses are part of the cap.
// Baseline: P2's raw message pipeline (bare HTTP → one INSERT → same adapter, same agent sockets) at the same rate, same run.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { createRequire } from 'node:module';
import {
  accessToken,
  call,
  connect,
  createCampaign,
  createLine,
  createUsers,
  DEMO_CLIENT_ID,
  describeLoopDelay,
  drainOutbox,
  heldRate,
  linkAgents,
  measureRawPipeline,
  openLoop,
  percentile,
  pool,
  pooled,
  startApi,
  until,
  withLoopDelay,
} from './realtime-fixtures.mjs';
import { componentCpuSeconds, cpuGapBoundPerUnit, describeComponentCpu } from './lib.mjs';

const require = createRequire(import.meta.url);
const { metaJson, metaSignature } = require('@centralita/channels');

const RATE = 300;
const ANSWER_CAP_MS = 50;
/** One webhook in this many is delivered twice (Meta's delivery is at least once). */
const DUPLICATE_EVERY = 10;
/** How the second delivery of a duplicated webhook comes, in turn. */
const DUPLICATE_KINDS = ['same bytes at once', 're-serialised at once', 'same bytes after delivery', 're-serialised after delivery'];
/** The text of a measured message: its webhook's number first, so the agent's socket can name it. */
const MEASURED_TEXT = /^c1#(\d+) /;
/** How long a message may take to reach an agent's screen before it counts as not shown. */
const DELIVERY_TIMEOUT_MS = 20_000;
class NotShown extends Error {
  constructor() {
    super(`not on an agent screen within ${DELIVERY_TIMEOUT_MS / 1000} s`);
  }
}

export default {
  id: 'C1',
  title: 'Signed channel webhook (WhatsApp, one message) → agent screen p99 vs P2 raw pipeline (bare HTTP → one INSERT → same adapter)',
  goal: { ratio: 2, direction: 'max' },
  async run({ env, quick, databaseUrl }) {
    // The machine may be shared (other processes' tests): its load before this run starts
    // anything is part of the record.
    const loadBefore = os.loadavg()[0];
    const agentCount = quick ? 10 : 20;
    const contactCount = agentCount * 5;
    const seconds = quick ? 3 : 10;
    const db = pool(databaseUrl, 10);
    const lineId = await createLine(db, 'c1');
    const campaignId = await createCampaign(db, 5);
    const agents = await createUsers(db, { count: agentCount, role: 'AGENT', tag: 'c1' });
    const [admin] = await createUsers(db, { count: 1, role: 'ADMIN', tag: 'c1-admin' });
    await linkAgents(db, agents, lineId);
    const api = await startApi(env, 'c1', {
      // Channel secrets are stored encrypted: the run's own key.
      CONFIG_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      // Every webhook comes from the load generator's one address; the per-IP limit (default
      // 6,000/min, i.e. 100/s) would refuse most of them. Meta posts from several addresses.
      CHANNEL_WEBHOOKS_PER_IP_PER_MINUTE: '100000000',
    });
    const sockets = [];
    const webhookAgent = new http.Agent({ keepAlive: true, maxSockets: 512, timeout: 4000 });
    try {
      const meta = {
        appSecret: randomBytes(16).toString('hex'),
        phoneNumberId: `1${Date.now()}`.slice(0, 15),
        wabaId: `2${Date.now()}`.slice(0, 15),
      };
      const account = await call(api.url, '/api/channel-accounts', {
        token: accessToken(env.JWT_SECRET, admin),
        body: {
          kind: 'whatsapp',
          name: 'Bench WhatsApp',
          externalAccountId: meta.phoneNumberId,
          attentionLineId: lineId,
          settings: { wabaId: meta.wabaId },
          secrets: { accessToken: `EAAG${randomBytes(24).toString('hex')}`, appSecret: meta.appSecret },
        },
      });
      const webhookUrl = new URL(`/api/channels/whatsapp/${account.id}/webhook`, api.url);
      const contacts = Array.from({ length: contactCount }, (_, i) => ({
        waId: `34600${String(i).padStart(6, '0')}`,
        name: `Cliente Núñez ${i}`,
      }));

      // Every message.created the agents' sockets receive, by webhook number: the first settles the
      // webhook's latency. A second message id for one number is a duplicate the agent sees; the
      // same id pushed again is the outbox's at-least-once delivery (REALTIME.md: a process
      // stalled past OUTBOX_STALE_MS), which the desk merges by id: counted, not a duplicate.
      const pending = new Map();
      const shown = new Map();
      const repeatedPushes = [];
      /** How each duplicated webhook's second delivery came, by number: names the path a duplicate took. */
      const duplicatedAs = new Map();
      await pooled(agents, 10, async (user) => {
        const token = accessToken(env.JWT_SECRET, user);
        const socket = await connect(api.url, '/staff', token);
        sockets.push(socket);
        socket.on('message.created', (view) => {
          const match = MEASURED_TEXT.exec(view.text ?? '');
          if (!match) return;
          const number = Number(match[1]);
          const ids = shown.get(number) ?? new Set();
          if (ids.has(view.id)) repeatedPushes.push(number);
          shown.set(number, ids.add(view.id));
          const settle = pending.get(number);
          if (settle) {
            pending.delete(number);
            settle(performance.now());
          }
        });
        await call(api.url, '/api/agent/presence/login', { token, body: { campaignId } });
      });

      const post = (body, signature) => postWebhook(webhookAgent, webhookUrl, body, signature);
      const message = (contact, text, id, shape = 'meta') => {
        const payload = whatsappTextWebhook({ ...meta, contact, text, id, at: Date.now() }, shape);
        const body = metaJson(payload);
        return { body, signature: metaSignature(meta.appSecret, body) };
      };

      // Conversations Active before the run: each contact's first message opens theirs, queued on
      // the account's line and assigned to an agent.
      await pooled(contacts, 16, async (contact, i) => {
        const first = message(contact, `Hola, soy el cliente ${i}`, wamid('open', i));
        const answer = await post(first.body, first.signature);
        if (answer.status !== 200) throw new Error(`opening webhook answered ${answer.status}: ${answer.text}`);
      });
      const active = async () =>
        (
          await db.query(`SELECT id FROM conversations WHERE tenant_id = $1 AND channel_account_id = $2 AND status = 'Active'`, [
            DEMO_CLIENT_ID,
            account.id,
          ])
        ).rows;
      await until(async () => (await active()).length >= contactCount, 60_000, 'every contact’s conversation Active');
      const conversationIds = (await active()).map((row) => row.id);
      const setupBacklog = await drainOutbox(db, 30_000);

      let next = 0;
      const sentIds = [];
      /** Wall-clock time each measured message's first delivery was sent, by provider id (stages below). */
      const sentAt = new Map();
      const duplicates = Object.fromEntries(DUPLICATE_KINDS.map((kind) => [kind, 0]));
      const send = async (rate, secs, { duplicate }) => {
        const latencies = [];
        let notShown = 0;
        const answers = [];
        const refused = [];
        const answered = async (delivery) => {
          const { status, ms, text } = await delivery;
          answers.push(ms);
          if (status !== 200) {
            refused.push(`${status} ${text.slice(0, 200)}`);
            throw new Error(`webhook answered ${status}`);
          }
        };
        const run = await openLoop({ rate, seconds: secs, maxInFlight: rate * 2 }, async () => {
          const number = next++;
          const contact = contacts[number % contacts.length];
          const id = wamid('msg', number);
          const text = `c1#${number} ¿Dónde está mi pedido?`;
          const original = message(contact, text, id);
          sentIds.push(id);
          sentAt.set(id, Date.now());
          const start = performance.now();
          const delivered = new Promise((resolve, reject) => {
            pending.set(number, resolve);
            setTimeout(() => reject(new NotShown()), DELIVERY_TIMEOUT_MS).unref();
          });
          delivered.catch(() => undefined); // awaited below; a refused POST must not leave it unhandled
          const kind =
            duplicate && number % DUPLICATE_EVERY === 0 ? DUPLICATE_KINDS[(number / DUPLICATE_EVERY) % DUPLICATE_KINDS.length] : null;
          if (kind) {
            duplicates[kind]++;
            duplicatedAs.set(number, kind);
          }
          const again = () => (kind.startsWith('same bytes') ? original : message(contact, text, id, 'reordered'));
          const deliveries = [answered(post(original.body, original.signature))];
          if (kind?.endsWith('at once')) {
            const copy = again();
            deliveries.push(answered(post(copy.body, copy.signature)));
          }
          await Promise.all(deliveries);
          // One never shown counts as the timeout: a lower bound, so the p99 does not leave out the
          // slowest messages of a run that fell behind.
          latencies.push(
            await delivered.then(
              (at) => at - start,
              (error) => {
                if (!(error instanceof NotShown)) throw error;
                notShown++;
                return DELIVERY_TIMEOUT_MS;
              },
            ),
          );
          if (kind?.endsWith('after delivery')) {
            const copy = again();
            await answered(post(copy.body, copy.signature));
          }
        });
        pending.clear();
        if (refused.length) throw new Error(`${refused.length} webhook deliveries refused, e.g. ${refused[0]}`);
        return { ...run, notShown, latencies, answers, p99: percentile(latencies, 99) };
      };

      await send(30, 1, { duplicate: false }); // warm-up
      await drainOutbox(db, 10_000);
      const cpuBefore = api.cpuSeconds();
      const componentsBefore = componentCpuSeconds({ api: [api.pid] });
      const { result: measured, loopDelay } = await withLoopDelay(() => send(RATE, seconds, { duplicate: true }));
      const eventsLeft = async () =>
        Number(
          (await db.query(`SELECT count(*)::int AS n FROM channel_events WHERE account_id = $1 AND processed_at IS NULL`, [account.id]))
            .rows[0].n,
        );
      await until(async () => (await eventsLeft()) === 0, 30_000, 'every stored webhook processed').catch(() => undefined);
      const after = await drainOutbox(db, 30_000);
      // Everything the run made the API do (answers, processing, pushes), per message it was sent.
      const apiCpuMs = ((api.cpuSeconds() - cpuBefore) * 1000) / Math.max(1, measured.total - measured.skipped);
      const componentsAfter = componentCpuSeconds({ api: [api.pid] });
      const componentCpu = describeComponentCpu(componentsBefore, componentsAfter, measured.total - measured.skipped, 'message');
      // What bounds the tail: every component shares the machine's cores, so their CPU per
      // message × the rate is how busy the run kept the machine (waiting for a core grows the tail well before 100%).
      const machineCpuSeconds = Object.keys(componentsAfter).reduce((sum, key) => sum + (componentsAfter[key] - componentsBefore[key]), 0);
      const machineBusy = (machineCpuSeconds * 1000 * RATE) / Math.max(1, measured.total - measured.skipped) / 1000 / os.cpus().length;
      const loadAfter = os.loadavg()[0];
      // What bounds the rate: one API process (one event loop) has one core, so the offered rate
      // needs CPU per message × rate below 100% of it, with room for the rest of its work.
      const apiCoreShare = (apiCpuMs * RATE) / 1000;

      // Stored once each, shown once each, none lost.
      const [stored] = (
        await db.query(
          `SELECT count(*)::int AS total, count(DISTINCT external_id)::int AS distinct_ids FROM messages
           WHERE tenant_id = $1 AND channel = 'whatsapp' AND channel_account_id = $2 AND external_id = ANY($3::text[])`,
          [DEMO_CLIENT_ID, account.id, sentIds],
        )
      ).rows;
      const [{ n: storedEvents }] = (await db.query(`SELECT count(*)::int AS n FROM channel_events WHERE account_id = $1`, [account.id]))
        .rows;
      const storedTwice = stored.total - stored.distinct_ids;
      const lost = sentIds.length - stored.distinct_ids;
      const shownTwiceNumbers = [...shown].filter(([, ids]) => ids.size > 1).map(([number]) => number);
      const shownTwice = shownTwiceNumbers.length;
      const shownTwiceAs = countBy(shownTwiceNumbers.map((number) => duplicatedAs.get(number) ?? 'delivered once'));
      const duplicateCount = Object.values(duplicates).reduce((sum, count) => sum + count, 0);
      const answerP99 = percentile(measured.answers, 99);

      // Where the time goes, per message (its first delivery): sent → stored (HTTP, verification and
      // the store statement began: received_at), → processed (queue pickup and the intake finished:
      // processed_at), against → screen above. Same machine, same clock.
      const stages = (
        await db.query(
          `SELECT convert_from(raw_body, 'UTF8')::jsonb #>> '{entry,0,changes,0,value,messages,0,id}' AS id,
             min(extract(epoch FROM received_at) * 1000)::float8 AS stored, min(extract(epoch FROM processed_at) * 1000)::float8 AS processed
           FROM channel_events WHERE account_id = $1 GROUP BY 1`,
          [account.id],
        )
      ).rows.filter((row) => sentAt.has(row.id));
      const stage = (column) => stages.map((row) => row[column] - sentAt.get(row.id));
      const describeStage = (values) => `p50 ${percentile(values, 50).toFixed(1)} / p99 ${percentile(values, 99).toFixed(1)} ms`;
      // The stage with the longest p99 share: storing (webhook sent → stored), processing (→ processed: the conversation's step and outbox), or the push (→ on screen).
      const stageP99 = (values) => percentile(values, 99) ?? 0;
      const stageShares = [
        ['storing', stageP99(stage('stored'))],
        ['processing', stageP99(stage('processed')) - stageP99(stage('stored'))],
        ['the push to the screen', stageP99(measured.latencies) - stageP99(stage('processed'))],
      ].sort((a, b) => b[1] - a[1]);
      const stageBound = `${stageShares[0][0]} (${stageShares[0][1].toFixed(1)} ms of the p99 from the webhook sent)`;
      const perMessage = Object.fromEntries(
        ['api', 'postgres', 'redis'].map((key) => [
          key,
          ((componentsAfter[key] - componentsBefore[key]) * 1000) / Math.max(1, measured.total - measured.skipped),
        ]),
      );
      const stageDetail = `stages from the webhook sent: stored ${describeStage(stage('stored'))}, processed ${describeStage(stage('processed'))}, on the agent's screen ${describeStage(measured.latencies)}`;

      const baselineRun = await measureRawPipeline({ env, db, api, sockets, rate: RATE, seconds, conversationIds });
      const value = measured.p99;
      const misses = [
        answerP99 > ANSWER_CAP_MS ? `webhook answer p99 ${answerP99.toFixed(1)} ms > ${ANSWER_CAP_MS} ms` : null,
        storedTwice ? `${storedTwice} messages stored twice` : null,
        shownTwice ? `${shownTwice} messages shown twice` : null,
        lost ? `${lost} messages lost` : null,
        measured.notShown ? `${measured.notShown} not on a screen within ${DELIVERY_TIMEOUT_MS / 1000} s` : null,
        measured.failed ? `${measured.failed} webhook deliveries failed` : null,
        measured.skipped ? `${measured.skipped} skipped (over ${RATE * 2} in flight)` : null,
      ].filter(Boolean);
      if (process.env.BENCH_VERBOSE) console.error(JSON.stringify({ parts: baselineRun.parts, p99: value, answerP99, duplicates }));
      return {
        value,
        baseline: baselineRun.baseline,
        ratio: value / baselineRun.baseline,
        unit: 'ms p99',
        withinCap: misses.length === 0,
        capMiss: misses.join('; ') || undefined,
        // Where the tail goes (the stage that takes longest) and what the cores spend on it beyond the raw pipeline's work.
        bound: `${stageBound}; ${cpuGapBoundPerUnit(
          perMessage,
          {
            api: baselineRun.parts.cpu.rawServer + baselineRun.parts.cpu.api,
            postgres: baselineRun.parts.cpu.postgres,
            redis: baselineRun.parts.cpu.redis,
          },
          'message',
        )}; the components kept the ${os.cpus().length} cores ${Math.round(machineBusy * 100)}% busy`,
        detail:
          `${RATE} webhooks/s offered for ${seconds} s (${measured.total} messages${measured.skipped ? `, ${measured.skipped} skipped` : ''}; rate ${heldRate(measured, measured.latencies) ? 'held' : 'not held: a backlog grew'}) over ${contactCount} contacts with Active conversations and ${agentCount} agent sockets; ` +
          `webhook → screen p99 ${measured.notShown ? '≥ ' : ''}${value.toFixed(1)} ms${measured.notShown ? ` (${measured.notShown} never shown counted as ${DELIVERY_TIMEOUT_MS / 1000} s)` : ''}, p50 ${percentile(measured.latencies, 50).toFixed(1)} ms; ` +
          `webhook answered p99 ${answerP99.toFixed(1)} ms, p50 ${percentile(measured.answers, 50).toFixed(1)} ms (cap ${ANSWER_CAP_MS} ms); ${stageDetail}; ` +
          `${duplicateCount} delivered twice (${DUPLICATE_KINDS.map((kind) => `${duplicates[kind]} ${kind}`).join(', ')}): ` +
          `${stored.distinct_ids} of ${sentIds.length} messages stored (${storedTwice} twice, ${lost} lost), ${shownTwice} shown twice${shownTwice ? ` (${shownTwiceAs})` : ''} (${repeatedPushes.length} pushes of a message already shown, merged by id${repeatedPushes.length ? `: ${countBy(repeatedPushes.map((number) => duplicatedAs.get(number) ?? 'delivered once'))}` : ''}), ${storedEvents} webhook events stored; ` +
          `API CPU ${apiCpuMs.toFixed(2)} ms per message (its duplicate deliveries included), i.e. ${Math.round(apiCoreShare * 100)}% of the API process's one core at ${RATE}/s (one process takes at most ~${Math.floor(1000 / apiCpuMs)} messages/s${apiCoreShare >= 0.9 ? ': the API process is CPU-bound' : ''}); machine load average ${loadBefore.toFixed(1)} before the run (${loadAfter.toFixed(1)} at its end) on ${os.cpus().length} cores${loadBefore > os.cpus().length ? ': loaded by other processes' : ''}; ${describeLoopDelay(loopDelay)}; ` +
          `${componentCpu}, i.e. these components kept the ${os.cpus().length} cores ${Math.round(machineBusy * 100)}% busy at ${RATE}/s; baseline p99: ${baselineRun.describe()}; outbox backlog after the run ${after.initial} rows${after.left ? `, ${after.left} left after ${after.seconds.toFixed(0)} s` : ''} (after setup ${setupBacklog.initial})`,
      };
    } finally {
      for (const socket of sockets) socket.close();
      webhookAgent.destroy();
      for (const stop of [() => api.stop(), () => db.end()]) await stop().catch(() => undefined);
    }
  },
};

/** "2 × a, 1 × b": how often each value occurs. */
function countBy(values) {
  const counts = new Map();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].map(([value, count]) => `${count} × ${value}`).join(', ');
}

/** A provider message id shaped like WhatsApp's (`wamid.` and base64), unique to this run. */
const runTag = randomUUID();
function wamid(kind, number) {
  return `wamid.${createHash('sha256').update(`${runTag}:${kind}:${number}`).digest('base64').slice(0, 40)}`;
}

/**
 * Meta's `messages` webhook for one inbound text (WhatsApp Cloud API webhook reference: object,
 * entry[].changes[].value with metadata, contacts and messages). `reordered` is the same content
 * with its fields in another order: different bytes, so another delivery key, as a re-batched
 * retry would be.
 */
function whatsappTextWebhook({ wabaId, phoneNumberId, contact, text, id, at }, shape) {
  const metadata = { display_phone_number: '15550001111', phone_number_id: phoneNumberId };
  const contacts = [{ profile: { name: contact.name }, wa_id: contact.waId }];
  const messages = [{ from: contact.waId, id, timestamp: String(Math.floor(at / 1000)), type: 'text', text: { body: text } }];
  const value =
    shape === 'reordered'
      ? { messages, contacts, metadata, messaging_product: 'whatsapp' }
      : { messaging_product: 'whatsapp', metadata, contacts, messages };
  return { object: 'whatsapp_business_account', entry: [{ id: wabaId, changes: [{ value, field: 'messages' }] }] };
}

/** One POST as Meta makes it; answers the status, the answer time (request start → last byte) and the body. */
function postWebhook(agent, url, body, signature, retried = false) {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'X-Hub-Signature-256': signature },
      },
      (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () =>
          resolve({ status: response.statusCode, ms: performance.now() - start, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    request.on('error', (error) => {
      // A pooled connection the server closed as idle just as it was reused: sent again (see call()).
      if (request.reusedSocket && error.code === 'ECONNRESET' && !retried) resolve(postWebhook(agent, url, body, signature, true));
      else reject(error);
    });
    request.end(body);
  });
}
