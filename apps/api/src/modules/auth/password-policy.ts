import { LIMITS, PASSWORD_POLICY, describeIssue, type RuleIssue } from '@centralita/contracts';
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';
import { AppException } from '../../common/app.exception';

/**
 * The one password rule of the platform (issue 17, QUALITY.md Security), checked by every place a
 * password is set: registration, reset, change of one's own password, an administrator setting a
 * password, and invitation acceptance.
 *
 * - at least LIMITS.minPasswordLength characters;
 * - not built from the account's own email or name (whatever its length);
 * - and either a long passphrase (PASSWORD_POLICY.passphraseLength characters or more: always
 *   allowed) or a password the zxcvbn estimator (maintained common-password lists and keyboard
 *   patterns of @zxcvbn-ts/language-common) scores PASSWORD_POLICY.minScore or better.
 *
 * The estimator only ever sees passwords shorter than the passphrase length, so its cost per
 * request stays bounded (a few milliseconds) whatever the caller sends.
 */
export interface PasswordContext {
  email?: string | null;
  name?: string | null;
}

export type PasswordProblem = 'minLength' | 'personalPassword' | 'weakPassword';

let estimator: ZxcvbnFactory | null = null;
function zxcvbn(): ZxcvbnFactory {
  estimator ??= new ZxcvbnFactory({ dictionary: { ...dictionary }, graphs: adjacencyGraphs });
  return estimator;
}

/** The account's own words: the whole email, its local part, its domain's first label, the name and its words. */
function personalInputs(context: PasswordContext): string[] {
  const out = new Set<string>();
  const email = (context.email ?? '').trim().toLowerCase();
  if (email) {
    out.add(email);
    const [local, domain] = email.split('@');
    if (local) out.add(local);
    const label = domain?.split('.')[0];
    if (label) out.add(label);
  }
  const name = (context.name ?? '').trim().toLowerCase();
  if (name) {
    out.add(name);
    for (const word of name.split(/\s+/)) out.add(word);
  }
  // Words of one or two letters are in every password by chance.
  return [...out].filter((word) => word.length >= 3).sort((a, b) => b.length - a.length);
}

/** The password with every occurrence of the account's own words taken out: what is left must still be a password. */
function withoutPersonal(password: string, inputs: string[]): string {
  let rest = password.toLowerCase();
  for (const word of inputs) rest = rest.split(word).join('');
  return rest;
}

/** Why a password is refused, or null when it passes. Pure: for tests and callers that collect issues. */
export function passwordProblem(password: string, context: PasswordContext = {}): PasswordProblem | null {
  if (typeof password !== 'string' || [...password].length < LIMITS.minPasswordLength) return 'minLength';
  const inputs = personalInputs(context);
  if (inputs.length && [...withoutPersonal(password, inputs)].length < LIMITS.minPasswordLength) return 'personalPassword';
  if ([...password].length >= PASSWORD_POLICY.passphraseLength) return null;
  const result = zxcvbn().check(password, inputs);
  return result.score >= PASSWORD_POLICY.minScore ? null : 'weakPassword';
}

/** The shared rule's issue for a field (default `password`), or none. */
export function passwordIssues(password: string, context: PasswordContext = {}, field = 'password'): RuleIssue[] {
  const problem = passwordProblem(password, context);
  if (!problem) return [];
  return [
    problem === 'minLength'
      ? { field, key: 'minLength', values: { count: LIMITS.minPasswordLength } }
      : { field, key: problem, values: { count: PASSWORD_POLICY.passphraseLength } },
  ];
}

/**
 * Throws the envelope's `weak_password` error (400) when the password breaks the rule. The answer
 * carries `data.fields` and `data.issues` like every validation error, so forms show it under the
 * field; the console translates `errors.weak_password` / `validation.<key>` into the user's language.
 */
export function assertStrongPassword(password: string, context: PasswordContext = {}, field = 'password'): void {
  const issues = passwordIssues(password, context, field);
  if (!issues.length) return;
  const message = describeIssue(issues[0]);
  throw new AppException(issues[0].key === 'minLength' ? 'validation' : 'weak_password', {
    message,
    data: { fields: { [field]: [message] }, issues },
  });
}
