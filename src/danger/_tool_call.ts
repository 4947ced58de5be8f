/**
 * The parts of a tool call, from the tool's classification rule (declarative data in its
 * catalogue entry, or a tool provider's): file tools by path, web tools by host, commands by
 * their Bash parse, MCP tools by server.
 *
 * @module
 */
import { findBuiltinTool } from "../../tools/_catalogue/mod.ts";
import type { ClassificationRule } from "../../tools/_catalogue/tool_entry.ts";
import type { ClassifiedToolCall, ClassifyContext } from "./classifier.ts";
import { HOST_RUNS_DETAIL } from "./_parts.ts";
import { PathScope } from "./_paths.ts";
import type { VerdictPart } from "./verdict.ts";

function part(
  riskClass: VerdictPart["riskClass"],
  subject: string,
  detail: string,
  targets: string[] = [],
): VerdictPart {
  return { riskClass, subject, targets, detail };
}

function readPart(name: string, raw: string, paths: PathScope, ws: string): VerdictPart {
  const place = paths.locate(raw, ws);
  const subject = `${name} ${raw}`;
  if (place.kind === "protected") {
    return part("blocked", subject, "reads a protected root", [place.path]);
  }
  if (place.kind === "secret") {
    return part("system_write", subject, "reads a secret-bearing path", [place.path]);
  }
  return part("read", subject, "reads", [place.path]);
}

function writePart(name: string, raw: string, paths: PathScope, ws: string): VerdictPart {
  const place = paths.locate(raw, ws);
  const subject = `${name} ${raw}`;
  switch (place.kind) {
    case "workspace":
    case "workspace_root":
      return part("local_write", subject, "writes in the workspace", [place.path]);
    case "scratch":
      return part("local_write", subject, "writes in the private scratch", [place.path]);
    case "host_runs":
      return part("system_write", subject, `${HOST_RUNS_DETAIL} (${place.reason})`, [place.path]);
    case "protected":
      return part("blocked", subject, "writes into a protected root", [place.path]);
    case "device":
      return part("blocked", subject, "writes to a block device", [place.path]);
    case "kernel":
    case "sink":
      return part("privileged", subject, "writes to a kernel interface", [place.path]);
    case "startup":
      return part("system_write", subject, "writes a shell startup file", [place.path]);
    default:
      return part("system_write", subject, "writes outside the workspace", [place.path]);
  }
}

/** The static directory a glob pattern starts in (`../x/**` → `../x`). */
function globBase(pattern: string): string {
  const segments = pattern.split("/");
  const stop = segments.findIndex((s) => /[*?[{]/.test(s));
  return (stop < 0 ? segments : segments.slice(0, stop)).join("/") ||
    (pattern.startsWith("/") ? "/" : ".");
}

function hostOf(url: unknown): string {
  try {
    return typeof url === "string" ? new URL(url).hostname : "";
  } catch {
    return "";
  }
}

/**
 * The rule a call is classified by: the caller's (a tool provider's), else the built-in tool's
 * catalogue entry's.
 *
 * @param call the call
 * @returns the rule, or `undefined` for a name no built-in tool has
 */
export function ruleOf(call: ClassifiedToolCall): ClassificationRule | undefined {
  return call.rule ?? findBuiltinTool(call.name)?.rule;
}

/**
 * The parts of a tool call, by its rule (see {@linkcode ruleOf}): `path` reads or writes the path
 * argument (its default, else `unknown` when absent), `glob` reads the pattern's static base under
 * its base argument, `command` is the Bash parse of the command argument (plus an `unknown` part
 * when its `alwaysAsk` condition holds), `url` is `network` on the URL's host, `fixed` is one part
 * of its class, `access` a `read` or `local_write` part plus `network` when declared. A name
 * with no rule is an MCP tool (`server__tool`: `code_execution` when the
 * server is trusted, else `unknown`) or `unknown`.
 */
export function toolCallParts(
  call: ClassifiedToolCall,
  context: ClassifyContext,
  classifyShell: (command: string) => VerdictPart[],
): VerdictPart[] {
  const { name, args } = call;
  const rule = ruleOf(call);
  if (rule === undefined) return unknownToolParts(name, context);
  const ws = context.workspace;
  const paths = new PathScope(ws, context.home, context.protectedRoots, context.addDirs, {
    ...(context.scratchDir ? { scratchDir: context.scratchDir } : {}),
    ...(context.repository ? { protectedExtra: context.repository.protectedExtra } : {}),
    ...(context.repository ? { repositories: context.repository.repositories } : {}),
  });
  const str = (key: string) => (typeof args[key] === "string" ? args[key] as string : undefined);
  switch (rule.kind) {
    case "path": {
      const path = str(rule.arg) ?? rule.default;
      if (path === undefined) return [part("unknown", name, `no ${rule.arg}`)];
      return [
        rule.access === "read" ? readPart(name, path, paths, ws) : writePart(name, path, paths, ws),
      ];
    }
    case "glob": {
      const base = str(rule.base) ?? ".";
      const pattern = str(rule.pattern) ?? "*";
      const start = pattern.startsWith("/") ? globBase(pattern) : `${base}/${globBase(pattern)}`;
      return [readPart(name, start.replace(/\/\.$/, ""), paths, ws)];
    }
    case "command": {
      const command = str(rule.arg);
      const parts = command === undefined
        ? [part("unknown", name, `no ${rule.arg}`)]
        : classifyShell(command);
      const ask = rule.alwaysAsk;
      return ask !== undefined && args[ask.arg] === ask.equals
        ? [...parts, part("unknown", `${name} (${ask.label})`, ask.detail)]
        : parts;
    }
    case "url": {
      const host = hostOf(args[rule.arg]);
      return [
        part("network", host ? `${name} ${host}` : name, "reaches the network", host ? [host] : []),
      ];
    }
    case "fixed":
      return [part(rule.class, name, rule.detail)];
    case "access": {
      const workspace = rule.workspace === "write"
        ? part("local_write", name, "writes in the workspace (its declared access)")
        : part("read", name, "reads the workspace (its declared access)");
      return rule.network
        ? [workspace, part("network", name, "reaches the network (its declared access)")]
        : [workspace];
    }
    default: {
      const unreachable: never = rule;
      throw new TypeError(`Unknown classification rule: ${JSON.stringify(unreachable)}`);
    }
  }
}

function unknownToolParts(name: string, context: ClassifyContext): VerdictPart[] {
  const separator = name.indexOf("__");
  if (separator > 0) {
    const server = name.slice(0, separator);
    return (context.trustedMcpServers ?? []).includes(server)
      ? [part("code_execution", name, `a tool of the trusted MCP server ${server}`)]
      : [part("unknown", name, `a tool of the MCP server ${server}, which is not trusted`)];
  }
  return [part("unknown", name, "not a known tool")];
}
