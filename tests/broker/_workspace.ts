/**
 * Helpers for the in-process tests of the tool children's tools: a throw-away workspace and an
 * outside directory, and a matcher for `ToolFailure`s.
 *
 * @module
 */
import assert from "node:assert/strict";
import { ToolFailure } from "../../tools/_protocol.ts";

/**
 * Run `fn` with a fresh realpathed workspace and an outside directory, deleted afterwards.
 *
 * @param fn the test body
 */
export async function withWorkspace(
  fn: (ws: string, outside: string) => Promise<void>,
): Promise<void> {
  const ws = await Deno.realPath(await Deno.makeTempDir());
  const outside = await Deno.realPath(await Deno.makeTempDir());
  try {
    await fn(ws, outside);
  } finally {
    await Deno.remove(ws, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
}

/**
 * An `assert.rejects` validator: a `ToolFailure` of `kind` whose message matches `pattern`.
 *
 * @param kind the expected failure kind
 * @param pattern what the message must say
 * @returns the validator
 */
export function failsWith(kind: string, pattern: RegExp): (error: unknown) => true {
  return (error: unknown) => {
    assert.ok(error instanceof ToolFailure, String(error));
    assert.equal(error.kind, kind);
    assert.match(error.message, pattern);
    return true;
  };
}
