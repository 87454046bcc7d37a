import { channelIdentity } from '../../desk/logic/channels';
import { useChannelLabel } from '../../desk/useChannelLabel';

/** X is the channel's name now; the platform still keys it as 'twitter' (spec §9 id 6). Other names as the desk shows them. */
export function useKindLabel(): (kind: string) => string {
  const channelLabel = useChannelLabel();
  return (kind) => (kind === 'twitter' ? 'X (Twitter)' : channelLabel(kind));
}

/** A channel's icon in its colour and its name (brand names are not translated). */
export function ChannelBadge({ kind, iconOnly = false }: { kind: string; iconOnly?: boolean }) {
  const identity = channelIdentity(kind);
  const kindLabel = useKindLabel();
  return (
    <span className="channel-badge" data-kind={identity.key}>
      <i
        className={identity.icon}
        style={{ color: identity.color }}
        aria-hidden={!iconOnly}
        aria-label={iconOnly ? kindLabel(kind) : undefined}
      />
      {!iconOnly && <span className="channel-badge__label">{kindLabel(kind)}</span>}
    </span>
  );
}
