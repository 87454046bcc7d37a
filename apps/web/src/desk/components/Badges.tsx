import { useTranslation } from 'react-i18next';
import { channelIdentity } from '../logic/channels';
import { useChannelLabel } from '../useChannelLabel';
import { agentStatusColor, conversationStatusColor } from '../logic/status-colors';

export function ChannelBadge({ channel, compact = false }: { channel: string | number | null; compact?: boolean }) {
  const identity = channelIdentity(channel);
  const label = useChannelLabel()(identity);
  return (
    <span className="desk-channel" style={{ color: identity.color }} title={label} data-testid="channel-badge" data-channel={identity.key}>
      <i className={identity.icon} aria-hidden="true" />
      {compact ? <span className="sr-only">{label}</span> : <span>{label}</span>}
    </span>
  );
}

export function ConversationStatusBadge({ status }: { status: string }) {
  const { t } = useTranslation();
  const color = conversationStatusColor(status);
  return (
    <span className="desk-status" style={{ color, borderColor: color }} data-testid="conversation-status" data-status={status}>
      <span className="desk-status__dot" style={{ background: color }} aria-hidden="true" />
      {t(`desk.conversationStatus.${status}`, { defaultValue: status })}
    </span>
  );
}

export function AgentStatusBadge({ status, reason }: { status: string; reason?: string | null }) {
  const { t } = useTranslation();
  const color = agentStatusColor(status);
  return (
    <span className="desk-status" style={{ color, borderColor: color }} data-testid="agent-status" data-status={status}>
      <span className="desk-status__dot" style={{ background: color }} aria-hidden="true" />
      {t(`desk.agentStatus.${status}`, { defaultValue: status })}
      {reason ? (
        <span className="desk-status__reason" data-testid="agent-pause-reason">
          {' '}
          · {t(`desk.pauseReasons.${reason}`, { defaultValue: reason })}
        </span>
      ) : null}
    </span>
  );
}
