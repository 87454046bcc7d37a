import { SECRET_MASK } from '@centralita/contracts';

/**
 * Editing one write-only channel secret. The API reads the mask as "keep", '' as "clear" and any
 * other value as "replace". Focusing a stored secret empties the box for typing; leaving it empty
 * puts the mask back (keep) unless the administrator asked to clear it.
 */
export interface SecretDraft {
  value: string;
  /** The administrator pressed "clear": an empty box now means "remove the stored secret". */
  clearing: boolean;
}

export const secretDraft = (value: string): SecretDraft => ({ value, clearing: false });

/** A stored secret comes from the server as the mask; an unset one as ''. */
export const isStored = (stored: string): boolean => stored === SECRET_MASK;

export function onSecretFocus(draft: SecretDraft): SecretDraft {
  return draft.value === SECRET_MASK ? { ...draft, value: '' } : draft;
}

export function onSecretBlur(draft: SecretDraft, stored: string): SecretDraft {
  return draft.value === '' && isStored(stored) && !draft.clearing ? { ...draft, value: SECRET_MASK } : draft;
}

export function onSecretTyped(value: string): SecretDraft {
  return { value, clearing: false };
}

/** "Clear": sends '' on save. */
export function clearSecret(): SecretDraft {
  return { value: '', clearing: true };
}

/** "Keep" (undo clear): back to the stored secret. */
export function keepSecret(stored: string): SecretDraft {
  return { value: isStored(stored) ? SECRET_MASK : '', clearing: false };
}

/** The secrets object the API expects. */
export function secretsBody(drafts: Record<string, SecretDraft>): Record<string, string> {
  return Object.fromEntries(Object.entries(drafts).map(([key, draft]) => [key, draft.value]));
}
