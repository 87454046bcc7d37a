import { useEffect, type Dispatch, type SetStateAction } from 'react';
import type { Socket } from 'socket.io-client';
import { MESSAGE_CAMPAIGN_SOCKET_EVENTS, type MessageCampaignBoardPush, type MessageCampaignView } from '@centralita/contracts';
import { useServices } from '../../app/ServicesContext';
import { connectStaff } from '../../desk/realtime/socket-client';

/** A campaign's view with a pushed board laid over it. */
export function withBoard(view: MessageCampaignView, push: MessageCampaignBoardPush): MessageCampaignView {
  const { at: _at, id: _id, ...board } = push;
  return { ...view, ...board };
}

/**
 * The message campaigns' live boards (issue 21): the API pushes a campaign's board to the tenant
 * room whenever its counters or state change (`messageCampaign.board`), as the dialer's board; the
 * list is read again over REST after a (re)connection that may have missed pushes, and when a push
 * names a campaign the list does not hold yet. No polling, as the dialer's board.
 */
export function useLiveMessageCampaigns(
  setCampaigns: Dispatch<SetStateAction<MessageCampaignView[] | null>>,
  load: () => Promise<void>,
): void {
  const { session } = useServices();
  useEffect(() => {
    const connection = connectStaff(() => session.getAccessToken(), { onResync: () => void load() });
    const socket = connection.socket as unknown as Socket;
    const newest = new Map<string, number>();
    socket.on(MESSAGE_CAMPAIGN_SOCKET_EVENTS.board, (push: MessageCampaignBoardPush) => {
      // Pushes from the API and the worker may cross: the newest reading wins.
      if ((newest.get(push.id) ?? 0) > push.at) return;
      newest.set(push.id, push.at);
      let known = true;
      setCampaigns((held) => {
        if (!held) return held;
        known = held.some((campaign) => campaign.id === push.id);
        return known ? held.map((campaign) => (campaign.id === push.id ? withBoard(campaign, push) : campaign)) : held;
      });
      if (!known) void load();
    });
    return () => connection.close();
  }, [session, load, setCampaigns]);
}
