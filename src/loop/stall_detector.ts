/**
 * Stall detection (odek-go §3.5, PR #123): the same tool call, with the same arguments, several
 * times in a row means the run is looping. The loop answers with a hint to the model; it never
 * aborts the run.
 *
 * @module
 */
import type { ToolCall } from "../_util/chat_message.ts";
import { jsonDepth, MAX_ARGUMENT_DEPTH } from "../_util/json_depth.ts";

/** A detected stall: the repeated tool and how many times in a row it was called. */
export interface Stall {
  name: string;
  repeats: number;
}

/**
 * Counts consecutive identical tool calls across batches, in call order. Two calls are
 * identical when their names match and their arguments are equal as JSON values (key order and
 * whitespace ignored; arguments that are not JSON are compared as text). After a stall is
 * reported the streak starts again, so a run that keeps looping gets another hint after another
 * `threshold` calls.
 *
 * @example Three identical calls
 * ```ts
 * import { StallDetector } from "./stall_detector.ts";
 * const d = new StallDetector();
 * const call = (args: string) => ({ id: "c", type: "function" as const, function: { name: "glob", arguments: args } });
 * const stall = d.observe([call('{"a":1,"b":2}'), call('{"b":2, "a":1}'), call('{"a":1,"b":2}')]);
 * if (stall?.repeats !== 3) throw new Error("missed the stall");
 * ```
 */
export class StallDetector {
  readonly #threshold: number;
  #last: string | undefined;
  #count = 0;

  /**
   * @param threshold identical calls in a row that make a stall (at least 2)
   * @throws {RangeError} when `threshold` is below 2
   */
  constructor(threshold = 3) {
    if (!Number.isInteger(threshold) || threshold < 2) {
      throw new RangeError(
        `A stall threshold must be a whole number of at least 2, got ${threshold}`,
      );
    }
    this.#threshold = threshold;
  }

  /**
   * Feed the calls of one batch, in call order.
   *
   * @returns the first stall the batch completes, if any
   */
  observe(calls: readonly ToolCall[]): Stall | undefined {
    let found: Stall | undefined;
    for (const call of calls) {
      const key = `${call.function.name}\u0000${canonicalArguments(call.function.arguments)}`;
      this.#count = key === this.#last ? this.#count + 1 : 1;
      this.#last = key;
      if (this.#count >= this.#threshold) {
        found ??= { name: call.function.name, repeats: this.#count };
        this.#count = 0;
        this.#last = undefined;
      }
    }
    return found;
  }
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
