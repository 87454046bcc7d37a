/*
 * Machine-readable forms of the API's refusals (issue 24 item 8), so the console words them in the
 * user's language instead of showing the server's English `errorMessage`.
 *
 * - A request body or query refused by its DTO answers 400 'validation' with `data.issues`: one
 *   ValidationIssue per field, `rule` being the class-validator constraint that failed (isEmail,
 *   maxLength, isIn…) and `params` its constraint values. The console translates
 *   `validation.rules.<rule>`. (The shared admin rules of admin.ts list RuleIssue {field, key,
 *   values} in the same `data.issues`; the console translates those as `validation.<key>`.)
 * - A hand-written refusal of an admin form (a duplicate name, a built-in role) carries
 *   `data.messageKey` (one of API_MESSAGE_KEYS) and `data.messageParams`; the console translates
 *   `apiMessages.<key>`. When it concerns one field, `data.fields` names it.
 *
 * `errorMessage` and `data.fields` stay as they were (English), for API clients and logs.
 */

/** One problem of a refused request, as the DTO validation found it. */
export interface ValidationIssue {
  /** The field's path in the request ("name", "address.city", "items.0.phone"). */
  field: string;
  /** The class-validator constraint name: isNotEmpty, isEmail, maxLength, isIn, isUuid, matches, whitelistValidation… */
  rule: string;
  /** The constraint's values, named (maxLength → {max}, length → {min, max}, isIn → {values}); none for most rules. */
  params?: Record<string, string | number | boolean | (string | number)[]>;
}

/** Keys of hand-written refusals the console translates (`apiMessages.<key>`). */
export const API_MESSAGE_KEYS = [
  // users
  'userPasswordOnCreate',
  'userNothingToChange',
  'cannotDeactivateSelf',
  'cannotChangeOwnRole',
  // roles
  'builtInRoleCode',
  'ownRolesManage',
  'builtInRoleDelete',
  'roleInUse',
  'roleCodeTaken',
  // campaigns, attention lines, customers and resellers
  'campaignIdentifierTaken',
  'attentionLineNameTaken',
  'customerNameTaken',
  'resellerNameTaken',
  'organisationSetByReseller',
  // polls
  'pollAnswerEachOnce',
  'pollAlreadyAnswered',
  // admin lists
  'unknownSortField',
  // outbound, softphone, IVRs, invitations
  'dncAlreadyListed',
  'extensionTaken',
  'ivrInUse',
  'ivrHasNumbers',
  'inboundNumberTaken',
  'inboundNumberUnavailable',
  'invitationPending',
  'changedMeanwhile',
  // reports
  'rangeEndBeforeStart',
  'rangeTooLong',
  'exportExpired',
  'exportNotReady',
  // channel accounts (ChannelsAdmin)
  'channelSecretRequired',
  'channelKindFixed',
  'channelKindNotOffered',
  'channelLineNotFound',
  'channelAccountConnected',
  'channelWebhookManual',
  'channelNoTemplates',
  'channelNoEncryptionKey',
  // supervisor monitoring of a live call (voice)
  'monitorCallNotConnected',
  'monitorInUse',
  'monitorNoSoftphone',
  'monitorNotActive',
  // attended transfer of a live call (voice)
  'consultNotConnected',
  'consultInProgress',
  'consultNotActive',
  'consultTargetUnavailable',
  'consultNoSoftphone',
  'consultTargetFull',
  // a phone conversation has no text path to the caller
  'phoneNoText',
  // call recordings
  'audioNotFound',
] as const;
export type ApiMessageKey = (typeof API_MESSAGE_KEYS)[number];

/** Values a keyed message interpolates (`{{options}}`…). */
export type ApiMessageParams = Record<string, string | number>;

export function isApiMessageKey(value: unknown): value is ApiMessageKey {
  return typeof value === 'string' && (API_MESSAGE_KEYS as readonly string[]).includes(value);
}
