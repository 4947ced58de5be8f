/**
 * The rule for a project's MCP servers: inert until the operator approves each. Nothing else may
 * hand a project server to the MCP layer: only what {@linkcode approveProjectMcpServers} returns
 * as approved (an {@linkcode ApprovedProjectMcpServer} cannot be made elsewhere).
 *
 * @module
 */
import { type McpApprovalStore, mcpServerHash } from "./mcp_approval_store.ts";
import type { ProjectMcpServer } from "./mcp_servers.ts";

/** Only this module can make an {@linkcode ApprovedProjectMcpServer}. */
const MINT = Symbol("odek.approvedProjectMcpServer");

/**
 * A project server the operator approved: the only form in which one may reach the MCP client,
 * which should accept a project server only as `server instanceof ApprovedProjectMcpServer`.
 * Made by {@linkcode approveProjectMcpServers} alone (the constructor refuses any other caller);
 * frozen, with its entry copied at approval time, so what starts is exactly what was shown.
 *
 * @example Only an approval makes one; a forged one is refused
 * ```ts
 * import { ApprovedProjectMcpServer, approveProjectMcpServers } from "./approve_project_mcp_servers.ts";
 * import { McpApprovalStore } from "./mcp_approval_store.ts";
 * const home = await Deno.makeTempDir();
 * const { approved } = await approveProjectMcpServers({
 *   project: "/w", file: "/w/odek.jsonc", servers: { files: { command: "node", args: ["s.js"] } },
 *   store: McpApprovalStore.inHome(home), ask: () => Promise.resolve("once"),
 * });
 * await Deno.remove(home, { recursive: true });
 * if (!(approved[0] instanceof ApprovedProjectMcpServer) || approved[0].how !== "once") throw new Error();
 * let refused = false;
 * try {
 *   new ApprovedProjectMcpServer(Symbol("forged"), "x", { command: "node" }, "0", "once");
 * } catch { refused = true; }
 * if (!refused) throw new Error("forged");
 * ```
 */
export class ApprovedProjectMcpServer {
  /** Its name in the project file. */
  readonly name: string;
  /** Its entry, exactly as approved (a deep copy). */
  readonly entry: Readonly<ProjectMcpServer>;
  /** SHA-256 of the entry (what the approval is stored under). */
  readonly sha256: string;
  /** `stored`: approved earlier (same content); `always`: approved now and stored; `once`: now only. */
  readonly how: "stored" | "always" | "once";

  /**
   * Made by {@linkcode approveProjectMcpServers} only.
   *
   * @throws {TypeError} unless called by {@linkcode approveProjectMcpServers}
   */
  constructor(
    mint: symbol,
    name: string,
    entry: ProjectMcpServer,
    sha256: string,
    how: "stored" | "always" | "once",
  ) {
    if (mint !== MINT) {
      throw new TypeError("Only approveProjectMcpServers() approves a project MCP server");
    }
    this.name = name;
    this.entry = deepFreeze(structuredClone(entry));
    this.sha256 = sha256;
    this.how = how;
    Object.freeze(this);
  }
}

/**
 * What the operator is asked about one server.
 *
 * @example An `ask` that starts only servers run with node
 * ```ts
 * import type { McpServerAnswer, McpServerApprovalRequest } from "./approve_project_mcp_servers.ts";
 * const ask = (request: McpServerApprovalRequest): Promise<McpServerAnswer> =>
 *   Promise.resolve(request.entry.command === "node" ? "once" : "deny");
 * const request: McpServerApprovalRequest = {
 *   server: "files", file: "/w/odek.jsonc", project: "/w", entry: { command: "sh" },
 *   sha256: "0".repeat(64), text: "…",
 * };
 * if (await ask(request) !== "deny") throw new Error();
 * ```
 */
export interface McpServerApprovalRequest {
  /** Its name. */
  server: string;
  /** The project file that declares it. */
  file: string;
  /** The workspace's real path (what a stored approval is keyed by). */
  project: string;
  /** The entry as written. */
  entry: ProjectMcpServer;
  /** SHA-256 of the entry. */
  sha256: string;
  /**
   * The prompt: the command, its arguments, the environment's names (and the values of variables
   * that change what runs, such as `NODE_OPTIONS`), and the sandbox.
   */
  text: string;
}

/**
 * The operator's answer: start it this once, start it and remember (this content), or not.
 *
 * @example Remember the approval of this entry
 * ```ts
 * import type { McpServerAnswer } from "./approve_project_mcp_servers.ts";
 * const answer: McpServerAnswer = "always";
 * if (!["once", "always", "deny"].includes(answer)) throw new Error();
 * ```
 */
export type McpServerAnswer = "once" | "always" | "deny";

/**
 * Asks the operator about one project server (`openSession(target, { askProjectMcpServer })`).
 *
 * @example Start servers run with node for this session only
 * ```ts
 * import type { AskProjectMcpServer } from "./approve_project_mcp_servers.ts";
 * const ask: AskProjectMcpServer = (request) =>
 *   Promise.resolve(request.entry.command === "node" ? "once" : "deny");
 * if (typeof ask !== "function") throw new Error();
 * ```
 */
export type AskProjectMcpServer = (
  request: McpServerApprovalRequest,
  signal?: AbortSignal,
) => Promise<McpServerAnswer>;

/** Options for {@linkcode approveProjectMcpServers}. */
export interface ApproveProjectMcpServersOptions {
  /** The workspace's real path. */
  project: string;
  /** The project file (`<workspace>/odek.jsonc`), shown in prompts and warnings. */
  file: string;
  /** The project file's `mcpServers` (from `tightenProjectLayer`). */
  servers: Readonly<Record<string, ProjectMcpServer>>;
  /** Where approvals are kept (`McpApprovalStore.inHome(ODEK_HOME)`). */
  store: McpApprovalStore;
  /**
   * Asks the operator about one server. @default nobody to ask: a server without a stored
   * approval of its current content stays inert, with a warning
   */
  ask?: AskProjectMcpServer;
  /** Names the user's own configuration gives servers: a project server may not take one. @default [] */
  reserved?: readonly string[];
  /**
   * The sandbox line of the prompt. @default the entry's keys besides command, args, env and url
   * (the MCP client's sandbox settings), as written, or "the MCP client's defaults"
   */
  describeSandbox?: (entry: ProjectMcpServer) => string;
  signal?: AbortSignal;
}

/** What {@linkcode approveProjectMcpServers} decided. */
export interface ProjectMcpServersDecision {
  /** The servers that may start. */
  approved: ApprovedProjectMcpServer[];
  /** The servers that stay inert, with why. */
  inert: { server: string; reason: string }[];
  /** One per inert server, naming it and the file (for `host.warnings`). */
  warnings: string[];
}

/** Variables whose value changes what a program runs: their values are shown too. */
const EXECUTION_VARIABLES =
  /^(LD_|DYLD_)|^(NODE_OPTIONS|NODE_PATH|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PERL5OPT|PERL5LIB|RUBYOPT|RUBYLIB|JAVA_TOOL_OPTIONS|BASH_ENV|ENV|PATH|DENO_DIR|NPM_CONFIG_.*)$/;

/**
 * Decide which of a project's MCP servers may start: one whose entry, as it is now, has a stored
 * approval for this project starts; any other is put to `ask` (the prompt shows the command,
 * arguments, environment names and sandbox) and starts only when approved — `always` stores the
 * approval under `ODEK_HOME` keyed by project path and the entry's SHA-256, so a changed entry
 * asks again. Without `ask`, or when the operator says no, the server stays inert. A project
 * server named like one of the user's own is refused (it may not replace it).
 *
 * @param options the servers, the store and the operator
 * @returns the approved servers (the only form the MCP layer accepts), the inert ones, warnings
 * @throws {OdekError} `CONFIG_INVALID` for an invalid approvals file; what `ask` throws (an abort)
 *
 * @example Nobody to ask: the server stays inert
 * ```ts
 * import { approveProjectMcpServers } from "./approve_project_mcp_servers.ts";
 * import { McpApprovalStore } from "./mcp_approval_store.ts";
 * const home = await Deno.makeTempDir();
 * const decision = await approveProjectMcpServers({
 *   project: "/w", file: "/w/odek.jsonc",
 *   servers: { files: { command: "node", args: ["server.js"] } },
 *   store: McpApprovalStore.inHome(home),
 * });
 * await Deno.remove(home, { recursive: true });
 * if (decision.approved.length !== 0 || decision.inert[0].server !== "files") throw new Error();
 * ```
 */
export async function approveProjectMcpServers(
  options: ApproveProjectMcpServersOptions,
): Promise<ProjectMcpServersDecision> {
  const { project, file, store } = options;
  const reserved = new Set(options.reserved ?? []);
  const approved: ApprovedProjectMcpServer[] = [];
  const inert: ProjectMcpServersDecision["inert"] = [];
  for (const [server, entry] of Object.entries(options.servers)) {
    options.signal?.throwIfAborted();
    if (reserved.has(server)) {
      inert.push({
        server,
        reason: "your own configuration has a server of this name, which a project may not replace",
      });
      continue;
    }
    const sha256 = await mcpServerHash(server, entry);
    if (await store.isApproved(project, server, sha256)) {
      approved.push(make(server, entry, sha256, "stored"));
      continue;
    }
    if (!options.ask) {
      inert.push({
        server,
        reason:
          "it is not approved (or changed since it was), and there is no operator to ask: run odek in a terminal to approve it",
      });
      continue;
    }
    const text = describeProjectMcpServer(server, entry, file, options.describeSandbox);
    const answer = await options.ask(
      { server, file, project, entry, sha256, text },
      options.signal,
    );
    if (answer === "deny") {
      inert.push({ server, reason: "the operator did not approve it" });
      continue;
    }
    if (answer === "always") await store.approve(project, server, sha256);
    approved.push(make(server, entry, sha256, answer));
  }
  const warnings = inert.map(({ server, reason }) =>
    `${file}: MCP server "${server}" not started: ${reason}`
  );
  return { approved, inert, warnings };
}

/**
 * The prompt about one project server.
 *
 * @param server its name
 * @param entry its entry
 * @param file the project file
 * @param describeSandbox the sandbox line (see {@linkcode ApproveProjectMcpServersOptions})
 * @returns the text, several lines, every value JSON-quoted (no control character reaches a terminal)
 *
 * @example
 * ```ts
 * import { describeProjectMcpServer } from "./approve_project_mcp_servers.ts";
 * const text = describeProjectMcpServer("files", { command: "node", args: ["s.js"], env: { TOKEN: "x" } }, "/w/odek.jsonc");
 * if (!text.includes('"node"') || !text.includes("TOKEN") || text.includes('"x"')) throw new Error(text);
 * ```
 */
export function describeProjectMcpServer(
  server: string,
  entry: ProjectMcpServer,
  file: string,
  describeSandbox: (entry: ProjectMcpServer) => string = defaultSandbox,
): string {
  const env = Object.entries(entry.env ?? {});
  const names = env.map(([name, value]) =>
    EXECUTION_VARIABLES.test(name) ? `${name}=${JSON.stringify(value)}` : name
  );
  return [
    `The project file ${JSON.stringify(file)} asks to start the MCP server ${
      JSON.stringify(server)
    }:`,
    ...(entry.command !== undefined ? [`  command:     ${JSON.stringify(entry.command)}`] : []),
    ...(entry.url !== undefined ? [`  url:         ${JSON.stringify(entry.url)}`] : []),
    `  arguments:   ${JSON.stringify(entry.args ?? [])}`,
    `  environment: ${
      names.length === 0 ? "(none)" : `${names.join(", ")} (other values not shown)`
    }`,
    `  sandbox:     ${describeSandbox(entry)}`,
    "It starts only if you approve it; a change to this entry asks again.",
  ].join("\n");
}

function defaultSandbox(entry: ProjectMcpServer): string {
  const { command: _c, args: _a, env: _e, url: _u, ...rest } = entry;
  const keys = Object.entries(rest);
  return keys.length === 0
    ? "the MCP client's defaults"
    : keys.map(([key, value]) => `${key}: ${JSON.stringify(value)}`).join("; ");
}

function make(
  name: string,
  entry: ProjectMcpServer,
  sha256: string,
  how: ApprovedProjectMcpServer["how"],
): ApprovedProjectMcpServer {
  return new ApprovedProjectMcpServer(MINT, name, entry, sha256, how);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
