import { randomInt } from 'node:crypto';
import type { ChannelAccountView, ChannelTemplateView, MessageCampaignView } from '@centralita/contracts';
import { startWhatsAppFake, type WhatsAppFake, type WhatsAppFakeOptions } from '../../../../test/fakes/whatsapp-cloud';
import { connectChannelAccount, webhookUrlOf, type ChannelDesk } from '../channels/support/channel-e2e';
import { data } from '../support/realtime';
import { bearer, type TestApp } from '../support/test-app';

/**
 * What the message-campaign e2e suites share: the suite's admin over HTTP, a WhatsApp Cloud API fake
 * with ids of its own and its account connected, a phone list written as an import would, and a
 * template submitted and approved through the fake. Each suite keeps its own particulars (the
 * templates it drafts, its list columns, its worker).
 */

/** The worker's campaign lock, stall check and reconcile window, short so a SIGKILL is recovered in seconds (production: 30 s, 30 s, 2 min). */
export const CAMPAIGN_WORKER_ENV = {
  MESSAGE_CAMPAIGN_LOCK_MS: '3000',
  MESSAGE_CAMPAIGN_STALLED_MS: '1000',
  MESSAGE_CAMPAIGN_RECONCILE_MS: '3000',
};

/** The suite's admin over HTTP; `scope` is read on each call (the API and desk are made in beforeAll). */
export function campaignHttp(scope: () => { api: TestApp; desk: ChannelDesk }) {
  const admin = () => bearer(scope().desk.adminToken);
  const post = (path: string, body: unknown = {}) =>
    scope()
      .api.http()
      .post(path)
      .set(admin())
      .send(body as object);
  const get = (path: string) => scope().api.http().get(path).set(admin());
  const board = async (id: string) => data<MessageCampaignView>(await get(`/api/message-campaigns/${id}`));
  return { admin, post, get, board };
}
export type CampaignHttp = ReturnType<typeof campaignHttp>;

/** A random Meta-style id (an app id for the fake, say). */
export const metaId = () => String(randomInt(100_000_000_000, 999_999_999_999));

/** A Cloud API fake with a phone number and WABA (and any other option given) of its own, no templates. */
export function startCampaignWhatsAppFake(options: WhatsAppFakeOptions = {}): Promise<WhatsAppFake> {
  return startWhatsAppFake({ phoneNumberId: metaId(), wabaId: metaId(), ...options, templates: [] });
}

/** The fake's number connected as the tenant's WhatsApp account, its webhooks pointed at the API. */
export async function connectWhatsAppAccount(
  api: TestApp,
  desk: ChannelDesk,
  wa: WhatsAppFake,
  name: string,
  settings: Record<string, string> = {},
): Promise<ChannelAccountView> {
  const account = await connectChannelAccount(api, desk, {
    kind: 'whatsapp',
    name,
    externalAccountId: wa.phoneNumberId,
    settings: { wabaId: wa.wabaId, ...settings },
    secrets: { accessToken: wa.accessToken, appSecret: wa.appSecret },
  });
  wa.setWebhookUrl(webhookUrlOf(api, account));
  return account;
}

/** A phone list of the given phones (line = row number, name "Cliente <line>") written as an import would. */
export async function insertPhoneList(api: TestApp, tenantId: string, name: string, phones: string[]): Promise<string> {
  const [list] = (await api.dataSource.query(`INSERT INTO phone_lists (client_id, name, entry_count) VALUES ($1, $2, $3) RETURNING id`, [
    tenantId,
    name,
    phones.length,
  ])) as { id: string }[];
  await api.dataSource.query(
    `INSERT INTO phone_list_entries (list_id, client_id, phone, name, line)
     SELECT $1, $2, phone, 'Cliente ' || ord, ord FROM unnest($3::text[]) WITH ORDINALITY AS t(phone, ord)`,
    [list!.id, tenantId, phones],
  );
  return list!.id;
}

/**
 * Submits a draft, has the fake approve it and waits (with the suite's `eventually`) until the API
 * shows it APPROVED. Returns the submit response too, for the suite's own checks of it.
 */
export async function submitAndApprove(
  http: CampaignHttp,
  wa: WhatsAppFake,
  draft: ChannelTemplateView,
  eventually: <T>(assertion: () => T | Promise<T>) => Promise<T>,
): Promise<{ submitted: { status: number; body: unknown }; approved: ChannelTemplateView }> {
  const submitted = await http.post(`/api/message-templates/${draft.id}/submit`);
  await wa.reviewTemplate(draft.name, draft.language, 'APPROVED');
  const approved = await eventually(async () => {
    const template = data<ChannelTemplateView>(await http.get(`/api/message-templates/${draft.id}`));
    expect(template.status).toBe('APPROVED');
    return template;
  });
  return { submitted, approved };
}
