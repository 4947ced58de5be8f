/**
 * Whether a call may run at all, before any scope is derived (private to `broker/`): a known
 * tool, valid arguments, a valid workspace, a verdict that is not refused, and at `untrusted`
 * nothing but reads. Every refusal is data.
 *
 * @module
 */
import { z } from "zod";
import { OdekError } from "../_util/odek_error.ts";
import type { AddDir } from "../config/add_dirs.ts";
import { fixedVerdict } from "../danger/fixed_verdict.ts";
import type { TrustLevel, Verdict } from "../danger/verdict.ts";
import { findBuiltinTool, TOOL_CATALOGUE, type ToolEntry } from "../../tools/_catalogue/mod.ts";
import type { ToolInvocation, ToolResult } from "./tool_broker.ts";

/** A call that may run, with what it runs with. */
export interface AdmittedCall {
  tool: ToolEntry;
  args: Record<string, unknown>;
  workspace: string;
  addDirs: AddDir[];
  verdict: Verdict;
}

/**
 * Admit a call or refuse it.
 *
 * @param invocation the call
 * @param options the broker's workspace resolvers and trust level
 * @returns the admitted call, or the refusal as a tool result
 * @throws what `resolveWorkspace` throws other than `WORKSPACE_INVALID`
 */
export async function admitCall(
  invocation: ToolInvocation,
  options: AdmitScopeOptions,
): Promise<AdmittedCall | ToolResult> {
  const { name } = invocation;
  // The loop looked the call up and validated it (`entry`); other callers get both here.
  const tool = invocation.entry ?? findBuiltinTool(name);
  if (tool === undefined) {
    const names = TOOL_CATALOGUE.map((t) => t.name).join(", ");
    return failure("unknown_tool", `There is no tool named "${name}": the tools are ${names}`);
  }
  let args = invocation.args;
  if (invocation.entry === undefined) {
    const parsed = tool.args.safeParse(invocation.args);
    if (!parsed.success) {
      return failure(
        "invalid_arguments",
        `Invalid arguments for ${name}: ${z.prettifyError(parsed.error)}`,
      );
    }
    args = parsed.data;
  }
  const verdict = invocation.verdict ?? fixedVerdict({ name, args });
  const admitted = await admitScope(name, verdict, options);
  if ("ok" in admitted) return admitted;
  return { tool, args, ...admitted, verdict };
}

/** What {@linkcode admitScope} reads of the broker. */
export interface AdmitScopeOptions {
  resolveWorkspace: () => Promise<string>;
  resolveAddDirs?: () => Promise<AddDir[]>;
  trustLevel: TrustLevel;
}

/**
 * The checks every call passes once its verdict is known, a built-in's or a library tool's: the
 * workspace and the added directories validated now (never cached), then the verdict's refusals
 * (a `deny`, a `blocked` part, anything but reads in an `untrusted` run).
 *
 * @returns the workspace and added directories, or the `denied` refusal
 * @throws what `resolveWorkspace` throws other than `WORKSPACE_INVALID`
 */
export async function admitScope(
  name: string,
  verdict: Verdict,
  options: AdmitScopeOptions,
): Promise<{ workspace: string; addDirs: AddDir[] } | ToolResult> {
  let workspace: string;
  let addDirs: AddDir[];
  try {
    workspace = await options.resolveWorkspace();
    addDirs = (await options.resolveAddDirs?.()) ?? [];
  } catch (error) {
    if (error instanceof OdekError && error.code === "WORKSPACE_INVALID") {
      return failure("denied", `${name} was not run: ${error.message}`);
    }
    throw error;
  }
  const refused = verdict.decision === "deny" ||
    verdict.parts.some((part) => part.riskClass === "blocked");
  if (refused) return failure("denied", `${name} was refused: ${verdict.reason}`);
  if (options.trustLevel === "untrusted" && verdict.parts.some((p) => p.riskClass !== "read")) {
    const classes = verdict.parts.map((p) => p.riskClass).join(", ");
    return failure(
      "denied",
      `${name} was refused: an untrusted run may only read (this is ${classes})`,
    );
  }
  return { workspace, addDirs };
}

/** A failed tool result of `kind`. */
export function failure(
  kind: Exclude<ToolResult, { ok: true }>["error"]["kind"],
  message: string,
): ToolResult {
  return { ok: false, error: { kind, message } };
}
