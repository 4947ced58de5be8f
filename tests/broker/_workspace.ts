/**
 * Helpers for the in-process tests of the tool children's tools: a throw-away workspace and an
 * outside directory, a matcher for `ToolFailure`s, and a handler called the way its child calls
 * it.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { ToolHandler } from "../../tools/_catalogue/child_server.ts";
import { type BuiltinToolName, findBuiltinTool } from "../../tools/_catalogue/mod.ts";
import { toChildError, ToolFailure } from "../../tools/_catalogue/tool_failure.ts";

/**
 * A tool's handler as its child calls it: the raw arguments validated against the tool's
 * catalogue schema first (defaults applied; invalid ones reject with the child's
 * `invalid_arguments` failure), then the handler.
 *
 * @param name the tool
 * @param handler its handler
 * @returns `(workspace, args, roots?) => output`
 */
export function viaCatalogue(
  name: BuiltinToolName,
  handler: ToolHandler,
): (
  workspace: string,
  args: Record<string, unknown>,
  roots?: readonly string[],
) => Promise<string> {
  return async (workspace, args, roots = []) => {
    const parsed = validated(name, args);
    return await handler(parsed, {
      workspace,
      roots,
      signal: new AbortController().signal,
    });
  };
}

/**
 * {@linkcode viaCatalogue} for a synchronous handler (a compute tool): invalid arguments throw.
 *
 * @param name the tool
 * @param handler its synchronous handler
 * @returns `(workspace, args) => output`
 */
export function viaCatalogueSync(
  name: BuiltinToolName,
  handler: (args: never, context: never) => string,
): (workspace: string, args: Record<string, unknown>) => string {
  const run = handler as (args: unknown, context: unknown) => string;
  return (workspace, args) =>
    run(validated(name, args), {
      workspace,
      roots: [],
      signal: new AbortController().signal,
    });
}

/** The arguments as the child's schema check leaves them, or its `invalid_arguments` failure. */
function validated(
  name: BuiltinToolName,
  args: Record<string, unknown>,
): unknown {
  const parsed = findBuiltinTool(name)!.args.safeParse(args);
  if (parsed.success) return parsed.data;
  throw new ToolFailure(
    "invalid_arguments",
    toChildError(name, parsed.error).message,
  );
}

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
