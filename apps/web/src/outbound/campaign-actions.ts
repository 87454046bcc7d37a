import type { CampaignAction } from './outbound-api';

/** Which actions the dialer-campaign machine accepts in each state (the server is the judge). */
export const ACTIONS_BY_STATUS: Record<string, CampaignAction[]> = {
  draft: ['start', 'cancel'],
  scheduled: ['start', 'cancel'],
  running: ['pause', 'cancel'],
  paused: ['resume', 'cancel'],
  completed: [],
  cancelled: [],
};
