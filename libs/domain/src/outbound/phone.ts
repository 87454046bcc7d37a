/**
 * Phone numbers for dialing: normalisation to E.164 and the contact's time zone derived from the
 * number. No dependency: a compact prefix table (below) and the runtime's Intl time zone data.
 */

/** E.164: '+', a country code not starting with 0, 8 to 15 digits in all (we refuse shorter ones). */
const E164 = /^\+[1-9]\d{7,14}$/;

export function isE164(phone: string): boolean {
  return E164.test(phone);
}

export interface NormalizePhoneOptions {
  /** Calling code (digits, e.g. '34') for numbers written in national form (no '+' or '00'). */
  defaultCallingCode?: string;
}

/** Countries whose national numbers keep their leading 0 after the country code (Italy's fixed lines). */
const KEEPS_TRUNK_ZERO = new Set(['39']);

/**
 * The number in E.164, or null when it cannot be one. Accepts spaces, dots, dashes, parentheses,
 * a leading '+' or '00', and national numbers when a default calling code is given (dropping the
 * national trunk prefix: a leading 0, or Russia's 8).
 */
export function normalizePhone(raw: string, options: NormalizePhoneOptions = {}): string | null {
  const compact = raw.trim().replace(/[\s.\-()/]/g, '');
  if (!/^\+?\d+$/.test(compact)) return null;
  let candidate: string;
  if (compact.startsWith('+')) candidate = compact;
  else if (compact.startsWith('00')) candidate = `+${compact.slice(2)}`;
  else {
    const code = options.defaultCallingCode;
    if (code === undefined || !/^[1-9]\d{0,2}$/.test(code)) return null;
    let national = compact;
    if (code === '7' && national.length === 11 && national.startsWith('8')) national = national.slice(1);
    else if (national.startsWith('0') && !KEEPS_TRUNK_ZERO.has(code)) national = national.slice(1);
    candidate = `+${code}${national}`;
  }
  return isE164(candidate) ? candidate : null;
}

/**
 * Country (or region) prefix → IANA zone, longest prefix wins. One zone per country unless the
 * country spans zones and the numbering plan tells them apart; then the listed areas get their
 * own zone and the rest of the country takes the documented default (its most populous zone):
 *
 * - NANP (+1, US/CA): area codes below for Pacific, Mountain, Arizona, Central, Atlantic,
 *   Newfoundland, Alaska, Hawaii; every other area code defaults to America/New_York (Eastern).
 *   Mobile numbers keep their area code when people move, so this is a best guess.
 * - ES (+34): Canary Islands (822, 828, 922, 928) on Atlantic/Canary; default Europe/Madrid.
 * - MX (+52): Baja California (646, 664, 665, 686), Sonora (662), Quintana Roo (983, 984, 998);
 *   default America/Mexico_City.
 * - RU (+7): a few regional capitals east of Moscow; default Europe/Moscow. +76/+77 is
 *   Kazakhstan (Asia/Almaty).
 * - AR, CL, CO, PE, GB, DE, IT, GR, RS: one zone each (Chile's Easter Island is ignored).
 */
/** Area codes as space-separated lists, to keep the table compact. */
const NANP_ZONES: Record<string, string> = {
  'America/Los_Angeles':
    '206 209 213 253 310 323 360 408 415 424 425 503 509 510 530 541 559 562 619 626 650 657 661 702 707 714 725 747 760 775 805 818 831 858 909 916 925 949 951 971 236 250 604 672 778',
  'America/Denver': '208 303 307 385 406 435 505 575 719 720 801 970 403 587 780 825',
  'America/Phoenix': '480 520 602 623 928',
  'America/Chicago':
    '205 210 214 217 218 224 254 256 262 281 309 312 314 316 318 319 320 331 334 346 361 402 405 409 414 417 430 432 469 479 501 504 507 512 515 563 573 601 608 612 615 618 620 630 636 651 682 708 713 715 731 737 763 773 785 816 817 830 832 847 901 903 913 915 918 920 931 936 940 952 956 972 979 204 306 431 639',
  'America/Halifax': '782 902 506',
  'America/St_Johns': '709',
  'America/Anchorage': '907',
  'Pacific/Honolulu': '808',
  'America/Puerto_Rico': '787 939',
};

const PREFIX_ZONES: ReadonlyMap<string, string> = new Map<string, string>([
  ['1', 'America/New_York'],
  ...Object.entries(NANP_ZONES).flatMap(([zone, areaCodes]) =>
    areaCodes.split(' ').map((areaCode): [string, string] => [`1${areaCode}`, zone]),
  ),
  ['34', 'Europe/Madrid'],
  ...['822', '828', '922', '928'].map((area): [string, string] => [`34${area}`, 'Atlantic/Canary']),
  ['52', 'America/Mexico_City'],
  ...['646', '664', '665', '686'].map((area): [string, string] => [`52${area}`, 'America/Tijuana']),
  ['52662', 'America/Hermosillo'],
  ...['983', '984', '998'].map((area): [string, string] => [`52${area}`, 'America/Cancun']),
  ['54', 'America/Argentina/Buenos_Aires'],
  ['56', 'America/Santiago'],
  ['57', 'America/Bogota'],
  ['51', 'America/Lima'],
  ['44', 'Europe/London'],
  ['49', 'Europe/Berlin'],
  ['39', 'Europe/Rome'],
  ['30', 'Europe/Athens'],
  ['381', 'Europe/Belgrade'],
  ['7', 'Europe/Moscow'],
  ['7343', 'Asia/Yekaterinburg'],
  ['7383', 'Asia/Novosibirsk'],
  ['7391', 'Asia/Krasnoyarsk'],
  ['7395', 'Asia/Irkutsk'],
  ['7423', 'Asia/Vladivostok'],
  ['74012', 'Europe/Kaliningrad'],
  ['76', 'Asia/Almaty'],
  ['77', 'Asia/Almaty'],
]);

const LONGEST_PREFIX = Math.max(...[...PREFIX_ZONES.keys()].map((prefix) => prefix.length));

/** The IANA time zone of an E.164 number, or null when the country is not in the table. */
export function timeZoneForPhone(phoneE164: string): string | null {
  if (!isE164(phoneE164)) return null;
  const digits = phoneE164.slice(1);
  for (let length = Math.min(LONGEST_PREFIX, digits.length); length > 0; length--) {
    const zone = PREFIX_ZONES.get(digits.slice(0, length));
    if (zone !== undefined) return zone;
  }
  return null;
}
