/**
 * "This campaign's board changed" inside one API process: the writers of message-campaign rows
 * (the service, the timer sweeper, the channel intake's receipts and quality updates) say so here,
 * and MessageCampaignBoardService pushes the board, coalesced. A plain module-level registry rather
 * than an injected service because the intake (ChannelsModule) applies receipts through free
 * functions of campaign-inbound.ts and must not import this module (it imports ChannelsModule).
 */
type Listener = (campaignId: string) => void;
const listeners = new Set<Listener>();

export function campaignBoardChanged(...campaignIds: string[]): void {
  for (const id of new Set(campaignIds)) for (const listener of listeners) listener(id);
}

/** Subscribes; answers the unsubscribe. */
export function onCampaignBoardChanged(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
