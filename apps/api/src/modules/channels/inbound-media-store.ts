import type { InboundMediaRef } from '@centralita/channels';
import type { NewAttachment } from '../conversations/messages.service';

/** Where a customer's file goes: the file store and its checks (AttachmentsService), answered as the message's attachment. */
export interface InboundMediaStore {
  storeInboundFile(input: {
    tenantId: string;
    kind: InboundMediaRef['kind'];
    fileName: string;
    mimeType: string;
    bytes: Buffer;
  }): Promise<NewAttachment>;
  /** Removes stored files no message recorded (a delivery that lost the race for its message, or failed). */
  discard(fileIds: string[]): Promise<void>;
}
export const INBOUND_MEDIA_STORE = Symbol('INBOUND_MEDIA_STORE');
