import type { ChannelAccountView, MessagingKind } from '@centralita/contracts';

/** A channel_accounts row as PostgreSQL answers it (secrets: ConfigCrypto ciphertexts by name). */
export interface ChannelAccountRow {
  id: string;
  tenant_id: string;
  kind: MessagingKind;
  name: string;
  external_account_id: string;
  attention_line_id: string;
  settings: Record<string, string>;
  secrets: Record<string, string>;
  verify_token: string;
  enabled: boolean;
  last_check: { ok: boolean; at: string; message: string | null } | null;
  last_event_at: Date | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

/** The path a provider posts to for one account (relative to the public URL). */
export function webhookPath(kind: string, accountId: string): string {
  return `/api/channels/${kind}/${accountId}/webhook`;
}

/** The account as administrators see it: which secrets are set, never their values. */
export function channelAccountView(row: ChannelAccountRow, publicUrl: string): ChannelAccountView {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    externalAccountId: row.external_account_id,
    attentionLineId: row.attention_line_id,
    settings: { ...row.settings },
    secretsSet: Object.keys(row.secrets ?? {}).sort(),
    webhookUrl: `${publicUrl}${webhookPath(row.kind, row.id)}`,
    verifyToken: row.verify_token,
    enabled: row.enabled,
    lastCheck: row.last_check,
    lastEventAt: row.last_event_at ? new Date(row.last_event_at).toISOString() : null,
    createdAt: new Date(row.created_at).toISOString(),
  };
}
