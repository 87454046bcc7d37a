import {
  CARRIER_LEG_CALL_STATUSES,
  HUMAN_ANSWERED_CALL_STATUSES,
  sqlStatusList as sqlStatuses,
  UNANSWERED_CALL_STATUSES,
} from '@centralita/domain';

/** The outbound-call machine's status lists (libs/domain) as the dialer's queries use them. */
export const CARRIER_LEG_SQL = sqlStatuses(CARRIER_LEG_CALL_STATUSES);
export const UNANSWERED_SQL = sqlStatuses(UNANSWERED_CALL_STATUSES);
export const UNANSWERED_OR_CANCELLED_SQL = sqlStatuses([...UNANSWERED_CALL_STATUSES, 'cancelled']);
export const HUMAN_ANSWERED_SQL = sqlStatuses(HUMAN_ANSWERED_CALL_STATUSES);
