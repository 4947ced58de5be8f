/**
 * Stall detection (issue 14, case 5; odek-go §3.5, PR #123): a cycle of one to three tool calls
 * that comes back with the same results, over and over, means the run is looping. The loop
 * answers the first sighting with a hint to the model, and ends the run `stalled` when the cycle
 * goes on after it.
 *
 * @module
 */
import type { ToolCall } from "../_util/chat_message.ts";
import { jsonDepth, MAX_ARGUMENT_DEPTH } from "../_util/json_depth.ts";

/** Thresholds of a {@linkcode StallDetector}. */
export interface StallOptions {
  /** Repetitions of a cycle that get a hint (at least 2). @default 3 */
  hintAfter?: number;
  /** Further repetitions after the hint that end the run; 0 = never (a hint each time). @default 3 */
  stopAfter?: number;
}

/** One tool call as the detector sees it: the call and what makes its result the same as another's. */
export interface StallEntry {
  call: ToolCall;
  /** Equal for equal results (a digest of the result, or a tool's own `stallKey`). */
  result: string;
}

/**
 * A detected stall.
 *
 * @example Say what repeated
 * ```ts
 * import type { Stall } from "./stall_detector.ts";
 * const stall: Stall = { action: "stop", names: ["read_file", "shell"], name: "read_file, shell", repeats: 6 };
 * if (`${stall.name} x${stall.repeats}` !== "read_file, shell x6") throw new Error("stall");
 * ```
 */
export interface Stall {
  /** `hint`: tell the model; `stop`: end the run. */
  action: "hint" | "stop";
  /** The tool names of one cycle, in order (one to three). */
  names: string[];
  /** `names` joined with `, ` (the one name of a single repeated call). */
  name: string;
  /** Times the cycle came back in a row, its first time included. */
  repeats: number;
}

/** Longest cycle looked for, in calls. */
const MAX_CYCLE = 3;

/**
 * Watches the tool calls of a run, in call order across batches. A cycle is one to three calls
 * that repeat with equal names, equal arguments (compared as JSON values: key order and
 * whitespace ignored; arguments that are not JSON are compared as text) and equal results;
 * calls whose results differ never count, so polling a job whose output grows is no stall. When
 * a cycle has come `hintAfter` times in a row the detector reports a `hint`, once per cycle;
 * when it comes `stopAfter` more times after that, a `stop`.
 *
 * @example The same call with the same result, three times
 * ```ts
 * import { StallDetector } from "./stall_detector.ts";
 * const d = new StallDetector();
 * const entry = (args: string) => ({
 *   call: { id: "c", type: "function" as const, function: { name: "glob", arguments: args } },
 *   result: "no files",
 * });
 * const stall = d.observe([entry('{"a":1,"b":2}'), entry('{"b":2, "a":1}'), entry('{"a":1,"b":2}')]);
 * if (stall?.action !== "hint" || stall.repeats !== 3) throw new Error("missed the stall");
 * ```
 */
export class StallDetector {
  readonly #hintAfter: number;
  readonly #stopAfter: number;
  readonly #keys: string[] = [];
  readonly #names: string[] = [];
  /** How many entries were observed in all (the history keeps only the newest). */
  #total = 0;
  /** Hinted cycles (by their canonical key) and the entry count at the hint. */
  readonly #hinted = new Map<string, number>();

  /**
   * @param options the thresholds
   * @throws {RangeError} when `hintAfter` is below 2 or `stopAfter` below 0 (or not integers)
   */
  constructor(options: StallOptions = {}) {
    const hintAfter = options.hintAfter ?? 3;
    const stopAfter = options.stopAfter ?? 3;
    if (!Number.isInteger(hintAfter) || hintAfter < 2 || hintAfter > 1000) {
      throw new RangeError(`stall.hintAfter must be an integer from 2 to 1000, got ${hintAfter}`);
    }
    if (!Number.isInteger(stopAfter) || stopAfter < 0 || stopAfter > 1000) {
      throw new RangeError(`stall.stopAfter must be an integer from 0 to 1000, got ${stopAfter}`);
    }
    this.#hintAfter = hintAfter;
    this.#stopAfter = stopAfter;
  }

  /**
   * Feed the calls of one batch, in call order, with their results.
   *
   * @returns the stall the batch completes, if any
   */
  observe(entries: readonly StallEntry[]): Stall | undefined {
    for (const { call, result } of entries) {
      this.#keys.push(
        `${call.function.name}\u0000${canonicalArguments(call.function.arguments)}\u0000${result}`,
      );
      this.#names.push(call.function.name);
      this.#total++;
    }
    const keep = MAX_CYCLE * (this.#hintAfter + Math.max(this.#stopAfter, 1) + 1);
    if (this.#keys.length > keep) {
      this.#keys.splice(0, this.#keys.length - keep);
      this.#names.splice(0, this.#names.length - keep);
    }
    if (entries.length === 0) return undefined;
    for (let length = 1; length <= MAX_CYCLE; length++) {
      const stall = this.#check(length);
      if (stall) return stall;
    }
    return undefined;
  }

  /** The stall of the cycle of `length` calls that ends the history, if any. */
  #check(length: number): Stall | undefined {
    const run = this.#periodicSuffix(length);
    const repeats = Math.floor(run / length);
    if (repeats < 2) return undefined;
    const cycle = this.#keys.slice(-length);
    // A cycle made of one call repeated is that call's stall, found with length 1.
    if (length > 1 && cycle.every((key) => key === cycle[0])) return undefined;
    const key = canonicalCycle(cycle);
    const names = this.#names.slice(-length);
    const stall = { names, name: names.join(", "), repeats };
    const hintedAt = this.#hinted.get(key);
    if (hintedAt === undefined) {
      if (repeats < this.#hintAfter) return undefined;
      this.#hinted.set(key, this.#total);
      return { action: "hint", ...stall };
    }
    // Repetitions since the hint (or since the cycle came back, if it was broken off).
    const since = Math.floor((this.#total - Math.max(hintedAt, this.#total - run)) / length);
    if (this.#stopAfter === 0) {
      if (since < this.#hintAfter) return undefined;
      this.#hinted.set(key, this.#total);
      return { action: "hint", ...stall };
    }
    return since >= this.#stopAfter ? { action: "stop", ...stall } : undefined;
  }

  /** Length of the newest stretch of the history that repeats with period `length`. */
  #periodicSuffix(length: number): number {
    const keys = this.#keys;
    if (keys.length < length) return 0;
    let run = length;
    for (let i = keys.length - 1 - length; i >= 0 && keys[i] === keys[i + length]; i--) run++;
    return run;
  }
}

/** The smallest rotation of a cycle's keys, so a cycle is the same wherever it is entered. */
function canonicalCycle(keys: readonly string[]): string {
  let best: string | undefined;
  for (let start = 0; start < keys.length; start++) {
    const rotated = [...keys.slice(start), ...keys.slice(0, start)].join("\u0001");
    if (best === undefined || rotated < best) best = rotated;
  }
  return `${keys.length}\u0002${best}`;
}

/** The arguments as canonical JSON (sorted keys, no whitespace), or the raw text when not JSON. */
function canonicalArguments(text: string): string {
  if (jsonDepth(text) > MAX_ARGUMENT_DEPTH) return `raw:${text}`;
  let value: unknown;
  try {
    value = JSON.parse(text === "" ? "{}" : text);
  } catch {
    return `raw:${text}`;
  }
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    out[key] = sortKeys((value as Record<string, unknown>)[key]);
  }
  return out;
}
