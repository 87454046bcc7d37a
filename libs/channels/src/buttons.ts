import { ChannelError, type ButtonCapability, type OutboundButton } from './adapter';

/**
 * The buttons of a message as a provider takes them: labels cut to the provider's length (by
 * characters, with an ellipsis), and refused (ChannelError, not retryable) when there are more
 * than the provider shows, a payload is empty or too long, or two share a payload or a label
 * (WhatsApp and Messenger refuse duplicates; a customer could not tell them apart anywhere).
 */
export function fitButtons(buttons: readonly OutboundButton[], capability: ButtonCapability): OutboundButton[] {
  if (buttons.length > capability.max) {
    throw new ChannelError(`at most ${capability.max} buttons fit in one message here (${buttons.length} given)`, {
      code: 'too_many_buttons',
      retryable: false,
    });
  }
  const fitted = buttons.map((button) => {
    const bytes = Buffer.byteLength(button.payload, 'utf8');
    if (bytes === 0 || bytes > capability.payloadMaxBytes) {
      throw new ChannelError(`a button payload must be 1-${capability.payloadMaxBytes} bytes (${bytes} given)`, {
        code: 'invalid_button',
        retryable: false,
      });
    }
    return { payload: button.payload, title: cutTitle(button.title, capability.titleMax) };
  });
  const payloads = new Set(fitted.map((button) => button.payload));
  const titles = new Set(fitted.map((button) => button.title));
  if (payloads.size !== fitted.length || titles.size !== fitted.length || fitted.some((button) => !button.title)) {
    throw new ChannelError('button labels and payloads must be non-empty and distinct', { code: 'invalid_button', retryable: false });
  }
  return fitted;
}

/** A label of at most `max` characters (code points): the whole label, or its start and an ellipsis. */
export function cutTitle(title: string, max: number): string {
  const characters = [...title.trim().replace(/\s+/g, ' ')];
  return characters.length <= max
    ? characters.join('')
    : `${characters
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`;
}
