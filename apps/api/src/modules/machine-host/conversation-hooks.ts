import type { EntityManager } from 'typeorm';
import type { OutboxEffect } from './outbox';
import type { ConversationRow } from './views';

/**
 * What a customer whose conversation an agent left is told, written in the re-queuing transaction
 * (the conversations module registers it: RequeueNoticeService). Answers the effects to write.
 */
export type RequeueNotifier = (manager: EntityManager, conversation: ConversationRow) => Promise<OutboxEffect[]>;

/**
 * Run in the transaction of a step whose agent lets go of a conversation (closed, transferred,
 * re-queued), with the row as it was: what hangs on the agent handling it ends with it (the video
 * module ends a live call; the voice module drops a transferred call's agent leg). `after` is the row
 * as the step leaves it (where it went: Closed, LiningUp, Active with another agent). Answers the
 * effects to write with the step.
 */
export type ConversationReleaseHook = (
  manager: EntityManager,
  conversation: ConversationRow,
  after: ConversationRow,
) => Promise<OutboxEffect[]>;

/**
 * Called in the step's transaction when a conversation leaves for good (Closed, or Inquest after a
 * close), with the row as the step leaves it: what lives outside the conversation ends with it (the
 * voice module hangs up a live call). Answers the effects to write with the step.
 */
export type ConversationCloseHook = (manager: EntityManager, conversation: ConversationRow) => Promise<OutboxEffect[]>;

/**
 * What other modules hang on a conversation's steps (registered at start-up through the host's on*
 * methods): the host itself knows no channel, call or video.
 */
export class ConversationHooks {
  private readonly releaseHooks: ConversationReleaseHook[] = [];
  private readonly closeHooks: ConversationCloseHook[] = [];
  private requeueNotifier: RequeueNotifier | null = null;

  onReleased(hook: ConversationReleaseHook): void {
    this.releaseHooks.push(hook);
  }

  onClosed(hook: ConversationCloseHook): void {
    this.closeHooks.push(hook);
  }

  onRequeued(notifier: RequeueNotifier): void {
    this.requeueNotifier = notifier;
  }

  async released(manager: EntityManager, before: ConversationRow, after: ConversationRow): Promise<OutboxEffect[]> {
    const effects: OutboxEffect[] = [];
    for (const hook of this.releaseHooks) effects.push(...(await hook(manager, before, after)));
    return effects;
  }

  async closed(manager: EntityManager, after: ConversationRow): Promise<OutboxEffect[]> {
    const effects: OutboxEffect[] = [];
    for (const hook of this.closeHooks) effects.push(...(await hook(manager, after)));
    return effects;
  }

  /** What the re-queued customer is told; none when no notifier is registered. */
  requeued(manager: EntityManager, conversation: ConversationRow): Promise<OutboxEffect[]> | null {
    return this.requeueNotifier ? this.requeueNotifier(manager, conversation) : null;
  }
}
