/**
 * What a tool handler throws to fail a call as data, and how anything thrown becomes the typed
 * error of the child protocol (`child_protocol.ts`).
 *
 * @module
 */
import type { ChildError } from "./child_protocol.ts";

/** How a tool call failed, as the model will be told. */
export type FailureKind = "denied" | "failed" | "invalid_arguments";

/**
 * A refusal or failure a tool reports to the model as data.
 *
 * @example Refuse a path
 * ```ts
 * import { ToolFailure } from "./tool_failure.ts";
 * const failure = new ToolFailure("denied", "a.txt is outside the workspace");
 * if (failure.kind !== "denied") throw new Error("unexpected kind");
 * ```
 */
export class ToolFailure extends Error {
  /** How the call failed. */
  readonly kind: FailureKind;

  /**
   * @param kind how the call failed
   * @param message what failed, why, the value, what to do
   */
  constructor(kind: FailureKind, message: string) {
    super(message);
    this.name = "ToolFailure";
    this.kind = kind;
  }
}

/** What the egress proxy refuses, as the model is told when a destination was refused. */
export const EGRESS_POLICY =
  "odek refuses every address that is not globally reachable (loopback, private (RFC 1918), link-local and cloud-metadata, CGNAT, unique-local, multicast, reserved and the other IANA special-purpose blocks, in any IPv6 form), this machine's own addresses, and hosts outside network.allowDomains when it is set";

/**
 * The egress proxy refused a destination, or could not reach it (through a tunnel the child
 * cannot tell which). A `denied` failure that carries the destination as fields, so the core
 * can add the proxy's own reason without reading this message.
 *
 * @example
 * ```ts
 * import { EgressRefusal } from "./tool_failure.ts";
 * const refusal = new EgressRefusal(new URL("https://[::1]:8443/x"), "the proxy refused it");
 * if (refusal.host !== "::1" || refusal.port !== 8443 || refusal.kind !== "denied") throw refusal;
 * ```
 */
export class EgressRefusal extends ToolFailure {
  /** The URL requested (the hop that was refused). */
  readonly url: string;
  /** Its host, an IPv6 literal without brackets. */
  readonly host: string;
  /** Its port (the scheme's default when the URL names none). */
  readonly port: number;

  /**
   * @param url the URL of the refused request
   * @param message what the child saw
   */
  constructor(url: URL, message: string) {
    super("denied", message);
    this.name = "EgressRefusal";
    this.url = url.href;
    this.host = url.hostname.replace(/^\[(.*)\]$/, "$1");
    this.port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  }
}

/**
 * Turn anything a handler threw into the protocol's typed error. A {@linkcode ToolFailure} keeps
 * its kind; an {@linkcode EgressRefusal} is `egress_refused` with its destination; invalid
 * arguments (a `ZodError`) are `invalid_arguments`; Deno denials (`NotCapable`), OS denials
 * (`PermissionDenied`, EACCES, EPERM) and writes to a read-only mount (EROFS) are `denied`; the
 * rest is `failed`.
 *
 * @param tool the tool name, used in the message
 * @param error what was thrown
 * @param prettify describes a `ZodError` (zod's `prettifyError`: this module loads no zod, so a
 *   child starts without it); without it the error's own message is used
 * @returns the error to send
 *
 * @example A Deno denial
 * ```ts
 * import { toChildError } from "./tool_failure.ts";
 * const error = toChildError("write_file", new Deno.errors.NotCapable("Requires write access"));
 * if (error.kind !== "denied") throw new Error(error.kind);
 * ```
 */
export function toChildError(
  tool: string,
  error: unknown,
  prettify?: (error: never) => string,
): ChildError {
  if (error instanceof EgressRefusal) {
    const { message, url, host, port } = error;
    return { kind: "egress_refused", message, url, host, port };
  }
  if (error instanceof ToolFailure) {
    return error.kind === "invalid_arguments"
      ? { kind: "invalid_arguments", message: error.message }
      : { kind: error.kind, message: error.message, name: error.name };
  }
  if (isZodError(error)) {
    const described = prettify ? prettify(error as never) : error.message;
    return {
      kind: "invalid_arguments",
      message: `Invalid arguments for ${tool}: ${described}`,
    };
  }
  const err = error instanceof Error ? error : new Error(String(error));
  const rawCode: unknown = (err as Error & { code?: unknown }).code;
  const code = typeof rawCode === "string" ? rawCode : undefined;
  const denied = err instanceof Deno.errors.NotCapable ||
    err instanceof Deno.errors.PermissionDenied || code === "EACCES" ||
    code === "EROFS" ||
    code === "EPERM";
  // EROFS is the file system's answer: a read-only mount of this call's scope, or a workspace on
  // a read-only file system; the core, which knows the scope, says which.
  const path = /['"`]([^'"`]+)['"`]\s*$/.exec(err.message)?.[1];
  const message = code === "EROFS" || /read-only file system/i.test(err.message)
    ? `${tool} failed: read-only file system: ${path ?? err.message}`
    : denied
    ? `${tool} was denied by the sandbox: ${err.message}. The scope of this call does not allow it.`
    : `${tool} failed: ${err.message}`;
  return {
    kind: denied ? "denied" : "failed",
    message,
    name: err.name,
    ...(code ? { code } : {}),
  };
}

/**
 * Whether a thrown value is a zod validation error (a `ZodError` of any zod copy: its name and
 * its `issues` list), told without loading zod.
 *
 * @param error what was thrown
 * @returns whether it is one
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { isZodError } from "./tool_failure.ts";
 * const parsed = z.string().safeParse(1);
 * if (parsed.success || !isZodError(parsed.error) || isZodError(new Error("x"))) throw new Error();
 * ```
 */
export function isZodError(
  error: unknown,
): error is Error & { issues: unknown[] } {
  return error instanceof Error && error.name === "ZodError" &&
    Array.isArray((error as { issues?: unknown }).issues);
}
