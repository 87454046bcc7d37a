import { isQueueName, outboxJob, QUEUE_NAMES, QUEUES, type QueueJobs, type QueuePayloads } from './queues';
import { OUTBOUND_QUEUES } from './outbound';

describe('queue registry', () => {
  it('keeps every queue name as it is on the wire (a rename strands the jobs already in Redis)', () => {
    expect(QUEUES).toEqual({
      mail: 'mail',
      phoneListImport: 'phone-list-import',
      reportExport: 'report-export',
      sentiment: 'message-sentiment',
      machineTimers: 'machine-timers',
      routing: 'routing-requests',
      outboundCallEvents: 'outbound-call-events',
      dialerTicks: 'dialer-ticks',
      channelInbound: 'channel-inbound',
      channelSend: 'channel-send',
      geoImport: 'geo-import',
      videoRecording: 'video-recording',
      messageCampaigns: 'message-campaigns',
      voiceCallEvents: 'voice-call-events',
      voiceCommands: 'voice-commands',
    });
  });

  it('names each queue once', () => {
    expect(new Set(QUEUE_NAMES).size).toBe(Object.keys(QUEUES).length);
  });

  it('is the only place queues are named: the outbound grouping reads it', () => {
    expect(OUTBOUND_QUEUES).toEqual({ callEvents: QUEUES.outboundCallEvents, dialerTicks: QUEUES.dialerTicks });
  });

  it('tells a registry queue from anything else read back from JSON', () => {
    for (const name of QUEUE_NAMES) expect(isQueueName(name)).toBe(true);
    for (const other of ['', 'routing', 'message-sentiment ', 'MAIL', null, 3, {}]) expect(isQueueName(other)).toBe(false);
  });

  it('builds an outbox job from a queue and its typed job, with the delivery options', () => {
    const job = outboxJob(
      QUEUES.sentiment,
      { name: 'score', data: { messageId: 'm', tenantId: 't', conversationId: 'c' } },
      { jobId: 'sentiment.m' },
    );
    expect(job).toEqual({
      queue: 'message-sentiment',
      name: 'score',
      data: { messageId: 'm', tenantId: 't', conversationId: 'c' },
      jobId: 'sentiment.m',
    });
    expect(outboxJob(QUEUES.routing, { name: 'agent', data: { tenantId: 't', agentId: 'a' } }, { delayMs: 5 })).toEqual({
      queue: 'routing-requests',
      name: 'agent',
      data: { tenantId: 't', agentId: 'a' },
      delayMs: 5,
    });
  });

  it('refuses, at compile time, a payload that is not its queue’s', () => {
    // Each line below must not compile: `tsc -p libs/contracts` fails if the registry stops refusing it.
    // @ts-expect-error a sentiment job has no exportId
    outboxJob(QUEUES.sentiment, { name: 'score', data: { exportId: 'e' } });
    // @ts-expect-error the routing queue has no job named `score`
    outboxJob(QUEUES.routing, { name: 'score', data: { tenantId: 't', agentId: 'a' } });
    // @ts-expect-error a `line` routing request names its line
    outboxJob(QUEUES.routing, { name: 'line', data: { tenantId: 't', agentId: 'a' } });
    const payload: QueuePayloads[typeof QUEUES.reportExport] = { exportId: 'e' };
    const mail: QueueJobs[typeof QUEUES.mail]['name'] = 'send';
    expect([payload, mail]).toEqual([{ exportId: 'e' }, 'send']);
  });
});
