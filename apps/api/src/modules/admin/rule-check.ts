import { describeIssue, type RuleIssue } from '@centralita/contracts';
import { AppException } from '../../common/app.exception';

/** Throws the envelope's validation error for the shared rules' issues (same shape as the DTO pipe's). */
export function assertRules(issues: RuleIssue[]): void {
  if (!issues.length) return;
  const fields: Record<string, string[]> = {};
  for (const issue of issues) (fields[issue.field] ??= []).push(describeIssue(issue));
  throw new AppException('validation', {
    message: Object.values(fields).flat().join('; '),
    data: { fields, issues },
  });
}

/** PostgreSQL unique violation (23505), optionally of one named constraint. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as { code?: string; constraint?: string; driverError?: { code?: string; constraint?: string } };
  const code = e?.driverError?.code ?? e?.code;
  const name = e?.driverError?.constraint ?? e?.constraint;
  return code === '23505' && (!constraint || name === constraint);
}
