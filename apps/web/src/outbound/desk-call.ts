import type { OutboundCallView, OutboundPreviewLineView } from '@centralita/contracts';
import type { AgentCall, PreviewRecord } from './outbound-api';

/**
 * What the agent desk holds after an `outbound.call` push. The call it holds takes the newer view
 * (pushes may arrive out of order: versions decide). Another call becomes the desk's only when it
 * connects to this agent: a supervisor's socket also hears every call of the tenant, and a call
 * connecting to someone else is not this desk's screen pop. `isNew` asks for the full screen pop
 * (campaign name, script) over REST.
 */
export function deskCallAfterPush(
  held: AgentCall | null,
  view: OutboundCallView,
  me: string | null,
): { call: AgentCall | null; isNew: boolean } {
  if (held && held.id === view.id) return { call: view.version >= held.version ? { ...held, ...view } : held, isNew: false };
  if (view.status === 'connected' && me !== null && view.agentId === me) return { call: { ...view, campaignName: '' }, isNew: true };
  return { call: held, isNew: false };
}

/** The previewed record after an `outbound.preview` push: pushes about another call change nothing. */
export function previewAfterLinePush(preview: PreviewRecord | null, view: OutboundPreviewLineView): PreviewRecord | null {
  if (!preview || preview.callId !== view.callId) return preview;
  return { ...preview, waitingForLineSince: view.waitingForLineSince };
}

/**
 * The previewed record after the answer to the agent's "dial". The dialer may already have found
 * every trunk line busy and pushed "waiting for a line" while that request was on its way back: the
 * answer, read before the dialer looked, must not turn the wait back into "dialling" (no second push
 * would come until a line frees).
 */
export function previewAfterDial(held: PreviewRecord | null, answered: PreviewRecord): PreviewRecord {
  if (held && held.callId === answered.callId && held.waitingForLineSince && !answered.waitingForLineSince)
    return { ...answered, waitingForLineSince: held.waitingForLineSince };
  return answered;
}
