import type { ChannelEndpoints } from './adapter';

export const DEFAULT_CHANNEL_ENDPOINTS: ChannelEndpoints = {
  metaGraphUrl: 'https://graph.facebook.com',
  metaGraphVersion: 'v23.0',
  telegramApiUrl: 'https://api.telegram.org',
  xApiUrl: 'https://api.x.com',
};

/** The providers' API roots from the environment (META_GRAPH_URL, META_GRAPH_VERSION, TELEGRAM_API_URL, X_API_URL). */
export function channelEndpointsFromEnv(env: NodeJS.ProcessEnv = process.env): ChannelEndpoints {
  const url = (name: string, fallback: string) => (env[name]?.trim() || fallback).replace(/\/+$/, '');
  return {
    metaGraphUrl: url('META_GRAPH_URL', DEFAULT_CHANNEL_ENDPOINTS.metaGraphUrl),
    metaGraphVersion: env.META_GRAPH_VERSION?.trim() || DEFAULT_CHANNEL_ENDPOINTS.metaGraphVersion,
    telegramApiUrl: url('TELEGRAM_API_URL', DEFAULT_CHANNEL_ENDPOINTS.telegramApiUrl),
    xApiUrl: url('X_API_URL', DEFAULT_CHANNEL_ENDPOINTS.xApiUrl),
  };
}
