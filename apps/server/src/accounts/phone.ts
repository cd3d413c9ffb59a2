import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import { AppError } from '../platform/errors.js';

/** The region a national number is read in when the request names none: the contract's default from `lang`. */
export function defaultRegion(locale: string): CountryCode | undefined {
  if (locale === 'zh-CN') return 'CN';
  if (locale === 'zh-TW') return 'TW';
  return undefined;
}

export interface ParsedMobile {
  /** E.164, as stored and as codes are keyed: `+8613800138000`. */
  e164: string;
  /** ISO 3166 region of the number (CN, US…), for the operator's allowed countries. */
  region: string;
}

/**
 * A number as typed (E.164, or national with `region`, else the language's default region), checked with
 * libphonenumber's full metadata (a number that can be a mobile's) and put in E.164; anything else is PHONE_FORMAT.
 */
export function parseMobile(raw: string | undefined, region: string | undefined, locale: string): ParsedMobile {
  // Full-width digits and spaces (a Chinese IME's) read as their ASCII forms.
  const text = (raw ?? '').normalize('NFKC').trim();
  if (!text) throw new AppError('PARAMETERS_NEEDED');
  if (text.length > 40 || !/^[+0-9 ()\-.]+$/.test(text)) throw new AppError('PHONE_FORMAT');
  const chosen = region?.trim().toUpperCase();
  const fallback = chosen && /^[A-Z]{2}$/.test(chosen) ? (chosen as CountryCode) : defaultRegion(locale);
  const number = parsePhoneNumberFromString(text, fallback);
  if (!number?.isValid()) throw new AppError('PHONE_FORMAT');
  const type = number.getType();
  // A landline cannot receive the code; types libphonenumber cannot tell apart (US, CN's some ranges) are let through.
  if (type !== undefined && !['MOBILE', 'FIXED_LINE_OR_MOBILE', 'PERSONAL_NUMBER'].includes(type))
    throw new AppError('PHONE_FORMAT');
  return { e164: number.number, region: number.country ?? '001' };
}
