/**
 * The child's fast check of a message from the core, without zod: a tool child starts without
 * loading zod (its import is about half of a child's start-up), and the lines a child receives are
 * written by the core, so nearly all of them are well formed.
 *
 * {@linkcode acceptCoreMessage} only ever says yes to a message that `CoreMessageSchema`
 * (`child_protocol.ts`) accepts unchanged; for anything else it says "not sure" and the caller
 * checks the message with the schema itself (loading zod then), so a malformed line is refused
 * exactly as before, with zod's description of what is wrong. `tests/catalogue/
 * core_message_check_test.ts` checks that agreement on valid messages and on thousands of
 * mutated ones.
 *
 * @module
 */
import type { CoreMessage } from "./child_protocol.ts";

const CALL_KEYS = new Set([
  "type",
  "id",
  "tool",
  "args",
  "workspace",
  "roots",
  "grants",
  "protect",
]);
const CANCEL_KEYS = new Set(["type", "id", "reason"]);

/**
 * The message, when it certainly fits `CoreMessageSchema` (a `call`, `cancel` or `preload` with
 * exactly the schema's keys and value shapes); `undefined` when it may not — then check it with
 * the schema.
 *
 * @param json a parsed line (`JSON.parse` output)
 * @returns the same value, typed, or `undefined`
 *
 * @example
 * ```ts
 * import { acceptCoreMessage } from "./core_message_check.ts";
 * const call = { type: "call", id: 1, tool: "read_file", args: { path: "a" }, workspace: "/w" };
 * if (acceptCoreMessage(call) !== call) throw new Error("a call is accepted");
 * if (acceptCoreMessage({ ...call, workspace: "w" }) !== undefined) throw new Error("relative");
 * ```
 */
export function acceptCoreMessage(json: unknown): CoreMessage | undefined {
  if (!isPlainObject(json)) return undefined;
  switch (json.type) {
    case "call":
      return onlyKeys(json, CALL_KEYS) && isCallId(json.id) &&
          isToolName(json.tool) &&
          isPlainObject(json.args) && !Object.hasOwn(json.args, "__proto__") &&
          isAbsolute(json.workspace) && optionalList(json.roots, isAbsolute) &&
          optionalList(json.grants, isAbsolute) &&
          optionalList(json.protect, (v) => typeof v === "string")
        ? json as CoreMessage
        : undefined;
    case "cancel":
      return onlyKeys(json, CANCEL_KEYS) && isCallId(json.id) &&
          (json.reason === "aborted" || json.reason === "timeout")
        ? json as CoreMessage
        : undefined;
    case "preload":
      return Object.keys(json).length === 1 ? json as CoreMessage : undefined;
    default:
      return undefined;
  }
}

/** An object as `JSON.parse` makes it: not null, not an array, no other prototype. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null &&
    Object.getPrototypeOf(value) === Object.prototype;
}

function onlyKeys(
  value: Record<string, unknown>,
  allowed: ReadonlySet<string>,
): boolean {
  return Object.keys(value).every((key) => allowed.has(key));
}

function isCallId(value: unknown): boolean {
  return typeof value === "number" && Number.isSafeInteger(value) &&
    value >= 0 &&
    !Object.is(value, -0);
}

function isToolName(value: unknown): boolean {
  return typeof value === "string" && value.length >= 1 && value.length <= 128;
}

function isAbsolute(value: unknown): boolean {
  return typeof value === "string" && value.startsWith("/");
}

function optionalList(value: unknown, item: (v: unknown) => boolean): boolean {
  return value === undefined || (Array.isArray(value) && value.every(item));
}
