/**
 * Parts of non-shell tool calls: file tools by path, web tools by host, MCP tools by server.
 *
 * @module
 */
import type { ClassifiedToolCall, ClassifyContext } from "./classifier.ts";
import { PathScope } from "./_paths.ts";
import type { VerdictPart } from "./verdict.ts";

const WEB_TOOLS = new Set(["http_request", "browser", "web_fetch", "fetch_url", "http_batch"]);

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
 * Parts of a tool call other than `shell` (which `classifyShell` handles). `read_file`,
 * `file_info`, `head_tail`, `search_files` and `tree` read their `path` (the last two default to
 * the workspace), `glob` reads its pattern's static base, `write_file` and `patch` write their
 * `path`; the compute tools are one `read` part with no targets (their child has no permissions).
 */
export function toolCallParts(
  call: ClassifiedToolCall,
  context: ClassifyContext,
  classifyShell: (command: string) => VerdictPart[],
): VerdictPart[] {
  const { name, args } = call;
  const ws = context.workspace;
  const paths = new PathScope(ws, context.home, context.protectedRoots, context.addDirs);
  const str = (key: string) => (typeof args[key] === "string" ? args[key] as string : undefined);
  switch (name) {
    case "shell": {
      const command = str("command");
      return command === undefined ? [part("unknown", name, "no command")] : classifyShell(command);
    }
    case "read_file":
    case "file_info":
    case "head_tail": {
      const path = str("path");
      return path === undefined
        ? [part("unknown", name, "no path")]
        : [readPart(name, path, paths, ws)];
    }
    case "search_files":
    case "tree":
      return [readPart(name, str("path") ?? ".", paths, ws)];
    case "math_eval":
    case "diff":
    case "json_query":
    case "checksum":
    case "base64":
      return [part("read", name, "computes in a child with no permissions; touches nothing")];
    case "glob": {
      const base = str("path") ?? ".";
      const pattern = str("pattern") ?? "*";
      const start = pattern.startsWith("/") ? globBase(pattern) : `${base}/${globBase(pattern)}`;
      return [readPart(name, start.replace(/\/\.$/, ""), paths, ws)];
    }
    case "bg_start": {
      const command = str("command");
      const parts = command === undefined
        ? [part("unknown", name, "no command")]
        : classifyShell(command);
      // A detached job outlives the run and every later approval: it always asks.
      return args.detach === true
        ? [...parts, part("unknown", `${name} (detached)`, "keeps running after the run ends")]
        : parts;
    }
    case "bg_list":
    case "bg_status":
    case "bg_output":
    case "bg_stop":
      return [part("read", name, "inspects or stops this run's background jobs")];
    case "plan":
    case "clarify":
      // Core tools: the plan is the run's own state; a question only reaches the operator.
      return [part("read", name, name === "plan" ? "updates the run's plan" : "asks the operator")];
    case "write_file":
    case "patch": {
      const path = str("path");
      return path === undefined
        ? [part("unknown", name, "no path")]
        : [writePart(name, path, paths, ws)];
    }
  }
  if (WEB_TOOLS.has(name) || name === "web_search") {
    const host = hostOf(args.url);
    return [
      part("network", host ? `${name} ${host}` : name, "reaches the network", host ? [host] : []),
    ];
  }
  const separator = name.indexOf("__");
  if (separator > 0) {
    const server = name.slice(0, separator);
    return (context.trustedMcpServers ?? []).includes(server)
      ? [part("code_execution", name, `a tool of the trusted MCP server ${server}`)]
      : [part("unknown", name, `a tool of the MCP server ${server}, which is not trusted`)];
  }
  return [part("unknown", name, "not a known tool")];
}
