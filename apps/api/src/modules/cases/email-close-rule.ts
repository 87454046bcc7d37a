import { CATALOGUE_MESSAGES } from '@centralita/contracts';
import type { Actor } from '@centralita/domain';
import type { EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';

/** Whether a step needs the email-case check at all (pure: no query for every other step). */
export function needsEmailCaseCheck(channel: string, eventType: string, actor: Pick<Actor, 'kind'>): boolean {
  // A person closing an email conversation; timeouts and system closes are not a person's choice.
  return (
    eventType === 'conversation.closed' && channel.toLowerCase() === 'email' && (actor.kind === 'agent' || actor.kind === 'supervisor')
  );
}

/**
 * Spec §5: "An email cannot be closed without creating its case." The machine host calls this on
 * every conversation step it plans, so every close path (agent, supervisor, batch) passes it.
 */
export async function assertEmailCloseHasCase(
  manager: EntityManager,
  conversation: { id: string; channel: string },
  eventType: string,
  actor: Pick<Actor, 'kind'>,
): Promise<void> {
  if (!needsEmailCaseCheck(conversation.channel, eventType, actor)) return;
  const linked: unknown[] = await manager.query(`SELECT 1 FROM case_conversations WHERE conversation_id = $1`, [conversation.id]);
  if (linked.length === 0)
    throw new AppException('conflict', { message: CATALOGUE_MESSAGES.emailNeedsCase, data: { reason: 'email_needs_case' } });
}
