/**
 * How long a provider asks to wait: `Retry-After` (RFC 9110 §10.2.3: delay-seconds or an
 * HTTP-date), OpenAI's `retry-after-ms`, the `x-ratelimit-reset-*` of an exhausted limit, and
 * "try again in 1.5s" in an error message.
 *
 * @module
 */

/**
 * The wait in milliseconds a response asks for, or `undefined` when it names none (or only a
 * time already past). Sources, first found wins: `retry-after-ms`, `retry-after`, then the
 * largest `x-ratelimit-reset-<name>` whose `x-ratelimit-remaining-<name>` is `0`.
 *
 * @param headers the response headers
 * @param nowMs the current time (Unix ms), for HTTP dates
 */
export function retryAfterMs(headers: Headers, nowMs: number): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\s*\d+(\.\d+)?\s*$/.test(ms)) {
    const value = Number(ms);
    if (value > 0) return Math.ceil(value);
  }
  const after = headers.get("retry-after");
  if (after !== null) {
    const value = parseRetryAfter(after, nowMs);
    if (value !== undefined && value > 0) return value;
  }
  let reset: number | undefined;
  for (const [name, value] of headers) {
    const match = /^x-ratelimit-reset-(.+)$/.exec(name);
    if (!match || headers.get(`x-ratelimit-remaining-${match[1]}`)?.trim() !== "0") continue;
    const wait = parseResetValue(value, nowMs);
    if (wait !== undefined && wait > 0) reset = Math.max(reset ?? 0, wait);
  }
  return reset;
}

/**
 * A `Retry-After` value in milliseconds: delay-seconds (`"120"`; decimals are accepted) or an
 * HTTP-date (`"Wed, 21 Oct 2015 07:28:00 GMT"`, measured from `nowMs`, 0 when past).
 *
 * @returns the wait, or `undefined` when the value is neither form
 */
export function parseRetryAfter(value: string, nowMs: number): number | undefined {
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  // An HTTP-date always names a weekday and GMT; anything else (e.g. "-5", "soon") is refused.
  if (!/^[A-Za-z]{3},? .*\bGMT$/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * A rate-limit reset in milliseconds: a Go-style duration (`"6m0s"`, `"1.5s"`, `"20ms"`,
 * `"2h"`), plain seconds (`"30"`), Unix seconds (`"1767225600"`), or an RFC 3339 / HTTP date.
 */
export function parseResetValue(value: string, nowMs: number): number | undefined {
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) {
    const n = Number(text);
    // Values after 2001 in seconds are timestamps, not durations.
    return n > 1e9 ? Math.max(0, n * 1000 - nowMs) : Math.ceil(n * 1000);
  }
  const duration = parseDuration(text);
  if (duration !== undefined) return duration;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * The wait an error message names, in milliseconds: "Please try again in 6ms", "try again in
 * 1m30s", "Please retry in 13.5s" (OpenAI, Gemini), "Your quota will reset in 12 hours", "retry
 * after 2 minutes and 30 seconds", and, when `nowMs` is given, a moment: "resets at
 * 2026-05-01T00:00:00Z" (measured from `nowMs`).
 *
 * @param message the provider's error message
 * @param nowMs the current time (Unix ms), to read a named moment; without it only waits count
 * @returns the wait, or `undefined` when the message names none (or a moment already past)
 *
 * @example
 * ```ts
 * import { messageRetryHintMs } from "./_retry_after.ts";
 * const wait = messageRetryHintMs("You exceeded your daily quota. Your quota will reset in 12 hours.");
 * if (wait !== 12 * 3_600_000) throw new Error(String(wait));
 * ```
 */
export function messageRetryHintMs(message: string, nowMs?: number): number | undefined {
  const lead = String.raw`\b(?:try again|retry|resets?|available again|(?:be )?lifted)`;
  const compact = new RegExp(
    String.raw`${lead} (?:in|after) ((?:\d+(?:\.\d+)?(?:ms|h|m|s))+)\b`,
    "i",
  )
    .exec(message);
  if (compact) {
    const ms = parseDuration(compact[1]);
    if (ms !== undefined) return ms;
  }
  const amount = String
    .raw`(?:\d+(?:\.\d+)?\s*|\ban?\s+)(?:milliseconds?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d)\b`;
  const spoken = new RegExp(
    String
      .raw`${lead} (?:in|after) (?:about |approximately |~)?(${amount}(?:(?:\s*,\s*|\s+and\s+|\s+)${amount})*)`,
    "i",
  ).exec(message);
  if (spoken) {
    const ms = spokenDuration(spoken[1]);
    if (ms !== undefined) return ms;
  }
  if (nowMs === undefined) return undefined;
  const moment = new RegExp(
    String.raw`${lead} (?:at|after|on) ([0-9A-Za-z][0-9A-Za-z:,+. -]{7,40}?)(?:[.;)]?\s*$|[.;)]\s)`,
    "i",
  )
    .exec(message);
  if (!moment) return undefined;
  const at = Date.parse(moment[1].trim());
  return Number.isNaN(at) || at <= nowMs ? undefined : at - nowMs;
}

const SPOKEN_UNITS: [RegExp, number][] = [
  [/^(?:milliseconds?|ms)$/i, 1],
  [/^(?:seconds?|secs?|s)$/i, 1000],
  [/^(?:minutes?|mins?|m)$/i, 60_000],
  [/^(?:hours?|hrs?|h)$/i, 3_600_000],
  [/^(?:days?|d)$/i, 86_400_000],
];

/** "12 hours", "2 minutes and 30 seconds", "an hour" in milliseconds. */
function spokenDuration(text: string): number | undefined {
  let total = 0;
  for (const [, article, n, unit] of text.matchAll(/(?:\b(an?)\s+|(\d+(?:\.\d+)?)\s*)([a-z]+)/gi)) {
    const factor = SPOKEN_UNITS.find(([pattern]) => pattern.test(unit))?.[1];
    if (factor === undefined) return undefined;
    total += (article ? 1 : Number(n)) * factor;
  }
  return total > 0 ? Math.ceil(total) : undefined;
}

function parseDuration(text: string): number | undefined {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== text) return undefined;
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  return Math.ceil(parts.reduce((sum, [, n, u]) => sum + Number(n) * unit[u], 0));
}
