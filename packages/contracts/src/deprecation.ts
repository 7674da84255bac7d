import { controlCharacterProblem } from '@svc/methodology';

/**
 * Deprecating a route (docs/compatibility.md): announced on one day, it keeps answering unchanged until its sunset
 * day, at least six calendar months later. The definition rides on the endpoint's contract; the API sends it on
 * every answer of the route as `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and `Link: <…>; rel="deprecation"`, and
 * the OpenAPI document marks the operation `deprecated: true`.
 */
export interface Deprecation {
  /** The day the deprecation is announced, `YYYY-MM-DD` (UTC): the route is deprecated from its start. */
  announced: string;
  /** The first day the route may no longer answer, `YYYY-MM-DD` (UTC): at least six months after `announced`. */
  sunset: string;
  /** Where the deprecation is explained (its API changelog entry): an absolute http(s) URL, or a path on this site. */
  link: string;
  /** What to use instead, in words. */
  replacement?: string;
}

/** The shortest notice: between the announcement and the sunset, at least this many calendar months. */
export const MINIMUM_NOTICE_MONTHS = 6;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The start (00:00 UTC) of a `YYYY-MM-DD` day; null when the text is not a calendar date. */
export function dayStart(date: string): Date | null {
  const match = DAY.exec(date);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const at = new Date(Date.UTC(year, month - 1, day));
  // Date.UTC rolls 2027-02-30 into March and reads years below 100 as 19xx: neither is the date written.
  const same = at.getUTCFullYear() === year && at.getUTCMonth() === month - 1 && at.getUTCDate() === day;
  return same ? at : null;
}

/**
 * The earliest sunset of a deprecation announced on `announced`: the same day of the month six months later, or,
 * when that month is too short for it (31 August, 31 February), the first day of the month after.
 */
export function earliestSunset(announced: Date): Date {
  const year = announced.getUTCFullYear();
  const month = announced.getUTCMonth() + MINIMUM_NOTICE_MONTHS;
  const day = announced.getUTCDate();
  const sameDay = new Date(Date.UTC(year, month, day));
  return sameDay.getUTCDate() === day ? sameDay : new Date(Date.UTC(year, month + 1, 1));
}

/** True when both days are dates and the sunset falls at least six calendar months after the announcement. */
export function noticeIsLongEnough(deprecation: Pick<Deprecation, 'announced' | 'sunset'>): boolean {
  const announced = dayStart(deprecation.announced);
  const sunset = dayStart(deprecation.sunset);
  return announced !== null && sunset !== null && sunset.getTime() >= earliestSunset(announced).getTime();
}

/** Characters a URL in a Link header cannot carry besides controls: a target ends at `>`, a space splits it. */
const UNSAFE_IN_LINK = /[\s<>"\\^`{|}]/;

/** Every problem of a deprecation's definition, in words; none when it can be announced. */
export function deprecationProblems(deprecation: Deprecation): string[] {
  const problems: string[] = [];
  const announced = dayStart(deprecation.announced);
  const sunset = dayStart(deprecation.sunset);
  if (!announced) problems.push(`announced must be a date YYYY-MM-DD, not ${JSON.stringify(deprecation.announced)}`);
  if (!sunset) problems.push(`sunset must be a date YYYY-MM-DD, not ${JSON.stringify(deprecation.sunset)}`);
  if (announced && sunset && !noticeIsLongEnough(deprecation)) {
    const earliest = earliestSunset(announced).toISOString().slice(0, 10);
    problems.push(
      `sunset ${deprecation.sunset} is less than ${MINIMUM_NOTICE_MONTHS} months after the announcement on ${deprecation.announced}: the earliest sunset is ${earliest}`,
    );
  }
  if (!isLinkTarget(deprecation.link)) {
    problems.push(
      `link must be an absolute http(s) URL or a path on this site starting with one "/", with no spaces, quotes or angle brackets, not ${JSON.stringify(deprecation.link)}`,
    );
  }
  const { replacement } = deprecation;
  if (replacement !== undefined && (replacement.trim() === '' || controlCharacterProblem(replacement) !== null)) {
    problems.push('replacement, when given, must be one line of text');
  }
  return problems;
}

function isLinkTarget(link: string): boolean {
  if (link.length === 0 || link.length > 2048 || UNSAFE_IN_LINK.test(link) || controlCharacterProblem(link)) {
    return false;
  }
  if (link.startsWith('/')) return !link.startsWith('//');
  try {
    const url = new URL(link);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** The definition as it is, or an error naming the route and every problem: a route is never deprecated on short notice. */
export function checkedDeprecation(operationId: string, deprecation: Deprecation): Deprecation {
  const problems = deprecationProblems(deprecation);
  if (problems.length > 0) {
    throw new Error(`the deprecation of ${operationId} cannot be announced: ${problems.join('; ')}`);
  }
  return deprecation;
}

/** The three headers of every answer of a deprecated route, with their values. */
export interface DeprecationHeaders {
  /** RFC 9745: a structured-field date, `@` and the Unix seconds of the announcement day's start. */
  Deprecation: string;
  /** RFC 8594: an HTTP-date (IMF-fixdate) of the sunset day's start. */
  Sunset: string;
  /** RFC 8288: the page that explains it, with the `deprecation` relation. */
  Link: string;
}

/** The header values of a checked deprecation. */
export function deprecationHeaders(deprecation: Deprecation): DeprecationHeaders {
  const announced = dayStart(deprecation.announced);
  const sunset = dayStart(deprecation.sunset);
  if (!announced || !sunset) throw new Error('deprecationHeaders needs a checked deprecation');
  return {
    Deprecation: `@${announced.getTime() / 1000}`,
    Sunset: sunset.toUTCString(),
    Link: `<${deprecation.link}>; rel="deprecation"`,
  };
}
