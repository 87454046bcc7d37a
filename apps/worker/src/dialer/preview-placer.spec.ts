import { RecordingReports, RecordingTelephony, recordingPlacer } from './dialer-doubles.fake';
import { FakeDialerRows } from './dialer-rows.fake';
import type { TelephonyKind } from './dialing-route';
import { PreviewPlacer } from './preview-placer';

const TENANT = 'tenant-1';
const NOW = Date.parse('2026-03-04T10:00:00Z');
const TRUNK = { host: 'sip.carrier.test', port: 5060, transport: 'udp' as const };

function setUp({ lines, kind = 'simulator' }: { lines: number | null; kind?: TelephonyKind } = { lines: null }) {
  const rows = new FakeDialerRows();
  rows.now = () => NOW;
  const telephony = new RecordingTelephony();
  const reports = new RecordingReports();
  const placer = new PreviewPlacer({
    rows,
    placer: recordingPlacer(rows, telephony, reports, kind),
    reports,
    owner: 'dialer-test',
    tenantIds: null,
    log: () => undefined,
  });
  rows.addTrunk(TENANT, 'trunk-1', {
    status: 'found',
    trunk: { id: 'trunk-1', sip: TRUNK, callerId: '+34910000000', maxConcurrentCalls: lines },
  });
  const campaign = rows.addCampaign({
    id: 'campaign-1',
    tenant_id: TENANT,
    mode: 'preview',
    trunk_id: 'trunk-1',
    abandon_threshold_ms: 2500,
  });
  /** A pacer call of the same trunk holding one line. */
  const busyLine = (id: string) =>
    rows.addContact({
      id,
      campaign_id: campaign.id,
      phone: `+3470000${id.slice(-4)}`,
      active_call_id: `call-${id}`,
      dialer_owner: 'dialer-x',
    });
  return { rows, telephony, reports, placer, campaign, busyLine };
}

describe(PreviewPlacer.name, () => {
  it('places the call the agent asked for, first asked first, under the call id the API reserved', async () => {
    const { rows, telephony, reports, placer, campaign } = setUp();
    rows.addPreviewRequest(
      { id: 'second', campaign_id: campaign.id, phone: '+34600000002', active_call_id: 'call-2', preview_agent_id: 'agent-2' },
      NOW - 1000,
    );
    rows.addPreviewRequest(
      { id: 'first', campaign_id: campaign.id, phone: '+34600000001', active_call_id: 'call-1', preview_agent_id: 'agent-1', attempts: 2 },
      NOW - 2000,
    );

    await placer.placeRequests();

    expect(telephony.originated.map((call) => [call.callId, call.to])).toEqual([
      ['call-1', '+34600000001'],
      ['call-2', '+34600000002'],
    ]);
    expect(reports.ofKind('create')[0]).toMatchObject({
      callId: 'call-1',
      contactId: 'first',
      campaignId: campaign.id,
      attempt: 2,
      abandonThresholdMs: 2500,
    });
    expect(rows.contacts.get('first')!.dialer_owner).toBe('dialer-test');

    // Claimed: the next round finds nothing left to place.
    await placer.placeRequests();
    expect(telephony.originated).toHaveLength(2);
  });

  it('leaves a request another dialer claimed', async () => {
    const { rows, telephony, reports, placer, campaign } = setUp();
    rows.addPreviewRequest({
      id: 'first',
      campaign_id: campaign.id,
      phone: '+34600000001',
      active_call_id: 'call-1',
      preview_agent_id: 'agent-1',
    });
    // Another dialer process claims it between this one's read and its claim.
    const previewRequests = rows.previewRequests.bind(rows);
    rows.previewRequests = async (tenantIds) => {
      const requests = await previewRequests(tenantIds);
      rows.contacts.get('first')!.dialer_owner = 'dialer-other';
      return requests;
    };

    await placer.placeRequests();

    expect(telephony.originated).toEqual([]);
    expect(reports.jobs).toEqual([]);
  });

  it('waits for a line when the trunk is full, tells the agent once, and places the call when a line frees', async () => {
    const { rows, telephony, reports, placer, campaign, busyLine } = setUp({ lines: 1 });
    busyLine('busy-0001');
    rows.addPreviewRequest({
      id: 'asked',
      campaign_id: campaign.id,
      phone: '+34600000001',
      active_call_id: 'call-1',
      preview_agent_id: 'agent-1',
    });

    await placer.placeRequests();
    await placer.placeRequests();

    expect(telephony.originated).toEqual([]);
    expect(placer.awaitingLine.get('call-1')).toBe('trunk-1');
    expect(rows.contacts.get('asked')).toMatchObject({ dialer_owner: 'preview', preview_line_wait_since: NOW });
    expect(reports.ofKind('previewAwaitingLine').map((job) => job.callId)).toEqual(['call-1']);

    rows.contacts.get('busy-0001')!.active_call_id = null;
    await placer.placeRequests();

    expect(telephony.originated.map((call) => call.callId)).toEqual(['call-1']);
    expect(placer.awaitingLine.has('call-1')).toBe(false);
    expect(rows.contacts.get('asked')).toMatchObject({ dialer_owner: 'dialer-test', preview_line_wait_since: null });
  });

  it('gives the last free line to the first asked and holds the next', async () => {
    const { rows, telephony, placer, campaign, busyLine } = setUp({ lines: 2 });
    busyLine('busy-0001');
    rows.addPreviewRequest(
      { id: 'first', campaign_id: campaign.id, phone: '+34600000001', active_call_id: 'call-1', preview_agent_id: 'agent-1' },
      NOW - 2000,
    );
    rows.addPreviewRequest(
      { id: 'second', campaign_id: campaign.id, phone: '+34600000002', active_call_id: 'call-2', preview_agent_id: 'agent-2' },
      NOW - 1000,
    );

    await placer.placeRequests();

    expect(telephony.originated.map((call) => call.callId)).toEqual(['call-1']);
    expect([...placer.awaitingLine]).toEqual([['call-2', 'trunk-1']]);
  });

  it('fails the call with the code when the campaign cannot dial, rather than keep the agent waiting', async () => {
    const { rows, telephony, reports, placer } = setUp({ lines: null, kind: 'drachtio' });
    const lost = rows.addCampaign({ id: 'campaign-lost', tenant_id: TENANT, mode: 'preview', trunk_id: 'trunk-gone' });
    rows.addPreviewRequest({
      id: 'asked',
      campaign_id: lost.id,
      phone: '+34600000001',
      active_call_id: 'call-1',
      preview_agent_id: 'agent-1',
    });

    await placer.placeRequests();

    expect(telephony.originated).toEqual([]);
    expect(reports.ofKind('failed')).toEqual([expect.objectContaining({ callId: 'call-1', reason: 'dialer.trunkUnavailable' })]);
  });
});
