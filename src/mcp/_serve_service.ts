/**
 * The engine behind `odek mcp serve` (private to `mcp/`), independent of the transport: direct
 * calls of built-in tools run one at a time as one-step runs (`startRun({ toolCall })`) on one
 * session host in the dedicated workspace, opened on the first call; each `run_task` is a new
 * session host whose run streams progress and returns the final answer and the changed files.
 * Every call is classified, approved and sandboxed like a model's: the operator of both hosts is
 * the MCP client of the request ({@linkcode McpOperator}).
 *
 * @module
 */
import { realpath } from "node:fs/promises";
import { OdekError } from "../_util/odek_error.ts";
import type { FileChangeData } from "../loop/run_event.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { SessionHost } from "../runtime/session_host.ts";
import type { ToolProviderSource } from "../runtime/tool_provider_source.ts";
import type { ToolProvider } from "../loop/tool_provider.ts";
import { ToolSet } from "../loop/tool_set.ts";
import { type McpAsker, McpOperator } from "./_serve_operator.ts";
import { RUN_TASK, runTaskTool, servedBuiltins, type ServedTool } from "./_serve_tools.ts";

/** What a tool call answers (an MCP `CallToolResult`). */
export interface ServedResult {
  content: { type: "text"; text: string }[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
}

/** The request a call belongs to. */
export interface ServedCall {
  /** Who answers approvals and questions. */
  asker: McpAsker;
  /** Sends a progress notification (when the client passed a progress token). */
  progress?: (progress: number, message: string) => Promise<void>;
  /** Aborted when the client cancels the request or the server stops. */
  signal: AbortSignal;
}

/** Options of the service. */
export interface McpServiceOptions {
  runtime: Runtime;
  /** Workspaces `run_task` may name (absolute), besides the dedicated one. */
  workspaces: readonly string[];
  /** More tools for the hosts (a library caller's; a ready provider's tools are offered too). @default none */
  tools?: readonly ToolProviderSource[];
  /** Receives each host's warnings (no bwrap, no egress proxy, project keys ignored). @default dropped */
  warn?: (message: string) => void;
}

/** Lists only (the tools run through the hosts' own providers). */
const UNRUNNABLE: Omit<ToolProvider, "list"> = {
  name: "tools listed up front",
  classify: () => ({ kind: "fixed", class: "unknown", detail: "listed only" }),
  run: () =>
    Promise.resolve({ ok: false, error: { kind: "unknown_tool", message: "listed only" } }),
};

const STOPPING = "odek mcp serve is stopping";

/** What a call the stop kept from running answers. */
const stopped = (): ServedResult => text(`error (not run): ${STOPPING}`, true);

const DIRECT_TASK = "Tool calls of an MCP client (odek mcp serve)";

/** Serves odek's tools and tasks to MCP clients. */
export class McpService implements AsyncDisposable {
  readonly #options: McpServiceOptions;
  readonly #builtins: ServedTool[];
  readonly #names: Set<string>;
  readonly #operator = new McpOperator();
  readonly #closing = new AbortController();
  readonly #tasks = new Set<SessionHost>();
  /** Every call still running (a host opening included): disposal waits for each to end. */
  readonly #calls = new Set<Promise<unknown>>();
  #direct: Promise<SessionHost> | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: McpServiceOptions) {
    this.#options = options;
    // Ready providers' tools are offered too, and a factory's that lists them up front (`list`);
    // another factory's tools are known only once a host opens.
    const ready = (options.tools ?? []).flatMap((t): ToolProvider[] => {
      if (typeof t !== "function") return [t];
      const list = (t as { list?: ToolProvider["list"] }).list;
      return list ? [{ ...UNRUNNABLE, list }] : [];
    });
    const provided = new ToolSet({ builtins: [], providers: ready }).specs.map((spec) => ({
      name: spec.function.name,
      description: spec.function.description,
      inputSchema: { type: "object" as const, ...spec.function.parameters },
    }));
    this.#builtins = [...servedBuiltins(), ...provided];
    this.#names = new Set(this.#builtins.map((t) => t.name));
  }

  /** Every tool offered, `run_task` first. */
  list(): ServedTool[] {
    return [runTaskTool(this.#options.workspaces), ...this.#builtins];
  }

  /** Whether `name` is a tool of this server. */
  has(name: string): boolean {
    return name === RUN_TASK || this.#names.has(name);
  }

  /**
   * Run one call. Tool failures, denials and bad arguments are error results, never thrown.
   *
   * @throws {OdekError} `USAGE` for a tool this server does not offer; what opening a host
   *   throws (no API key, no sandbox) as it is
   */
  async call(name: string, args: Record<string, unknown>, call: ServedCall): Promise<ServedResult> {
    if (name !== RUN_TASK && !this.#names.has(name)) {
      throw new OdekError("USAGE", `odek mcp serve has no tool named ${JSON.stringify(name)}`);
    }
    if (this.#closing.signal.aborted) return stopped();
    // One run at a time per host: direct calls wait for each other.
    const turn = name === RUN_TASK
      ? this.#runTask(args, call)
      : this.#queue.then(() => this.#directCall(name, args, call));
    if (name !== RUN_TASK) this.#queue = turn.catch(() => {});
    const settled = turn.catch(() => {});
    this.#calls.add(settled);
    try {
      return await turn;
    } finally {
      this.#calls.delete(settled);
    }
  }

  async #directCall(
    name: string,
    args: Record<string, unknown>,
    call: ServedCall,
  ): Promise<ServedResult> {
    call.signal.throwIfAborted();
    if (this.#closing.signal.aborted) return stopped();
    this.#direct ??= this.#open({ task: DIRECT_TASK }, undefined);
    const host = await this.#direct.catch((error) => {
      this.#direct = undefined;
      throw error;
    });
    // Opened while the server stopped: nothing runs on it (disposal closes it).
    if (this.#closing.signal.aborted) return stopped();
    const id = `mcp-${crypto.randomUUID()}`;
    const unbind = this.#operator.bind(call.asker);
    try {
      const run = await host.startRun({
        message: `The MCP client calls ${name}.`,
        toolCall: { id, name, args },
        signal: AbortSignal.any([call.signal, this.#closing.signal]),
      });
      const outcome = await run.result;
      const result = host.messages.find((m) => m.role === "tool" && m.tool_call_id === id);
      if (!result) {
        const why = outcome.type === "completed" ? "it produced no result" : outcome.error.message;
        return text(`error (not run): ${why}`, true);
      }
      const content = String(result.content);
      return text(content, /^error \(/.test(content));
    } finally {
      unbind();
    }
  }

  async #runTask(args: Record<string, unknown>, call: ServedCall): Promise<ServedResult> {
    const task = args.task;
    if (typeof task !== "string" || task.trim() === "") {
      return text("error (invalid arguments): task must be a non-empty string", true);
    }
    let workspace: string | undefined;
    if (args.workspace !== undefined) {
      const allowed = await this.#allowed(args.workspace);
      if (typeof allowed !== "string") return text(`error (denied): ${allowed.refused}`, true);
      workspace = allowed;
    }
    // The stop began while the workspace was checked: nothing is opened any more.
    if (this.#closing.signal.aborted) return stopped();
    const host = await this.#open({ task }, workspace);
    this.#tasks.add(host);
    if (this.#closing.signal.aborted) {
      // Opened while the server stopped: nothing runs on it (disposal waits for this close), and
      // its new session, whose task never ran, is not left for `odek continue`.
      this.#tasks.delete(host);
      await host.close();
      await this.#options.runtime.sessions.delete(host.sessionId).catch(() => {});
      return stopped();
    }
    const unbind = this.#operator.bind(call.asker);
    try {
      const run = await host.startRun({
        signal: AbortSignal.any([call.signal, this.#closing.signal]),
      });
      let files: Omit<FileChangeData, "diff">[] = [];
      for await (const event of run.events) {
        if (event.type === "run_files_changed") files = event.data.files;
        const line = progressLine(event.type, event.data as Record<string, unknown>);
        if (line && call.progress) await call.progress(event.seq, line).catch(() => {});
      }
      const outcome = await run.result;
      const changed = files.map((f) => `${f.change} ${f.path} (+${f.added} -${f.removed})`);
      const body = outcome.type === "completed"
        ? outcome.text ?? ""
        : outcome.type === "budget_exceeded"
        ? `${outcome.error.message}${outcome.partialSummary ? `\n\n${outcome.partialSummary}` : ""}`
        : outcome.error.message;
      const summary = changed.length > 0 ? `\n\nFiles changed:\n${changed.join("\n")}` : "";
      return {
        content: [{ type: "text", text: `${body}${summary}` }],
        ...(outcome.type === "completed" ? {} : { isError: true }),
        structuredContent: {
          outcome: outcome.type,
          sessionId: host.sessionId,
          workspace: host.workspace,
          filesChanged: files.map(({ path, change, added, removed }) => ({
            path,
            change,
            added,
            removed,
          })),
        },
      };
    } finally {
      unbind();
      this.#tasks.delete(host);
      await host.close();
    }
  }

  /** The real path of a workspace the configuration allows, or why not. */
  async #allowed(value: unknown): Promise<string | { refused: string }> {
    if (typeof value !== "string" || !value.startsWith("/")) {
      return { refused: "workspace must be an absolute path" };
    }
    const real = await realpath(value).catch(() => undefined);
    for (const entry of this.#options.workspaces) {
      const allowed = await realpath(entry).catch(() => undefined);
      if (real !== undefined && allowed === real) return real;
    }
    return {
      refused: `${
        JSON.stringify(value)
      } is not a workspace this server allows (mcpServe.workspaces in odek's configuration)`,
    };
  }

  async #open(target: { task: string }, workspace: string | undefined): Promise<SessionHost> {
    const host = await this.#options.runtime.openSession(target, {
      ...(workspace ? { workspace } : { dedicatedWorkspace: true }),
      approver: this.#operator,
      clarifier: this.#operator,
      reaskApprovals: false,
      ...(this.#options.tools ? { tools: this.#options.tools } : {}),
    });
    // Its calls need every part at once: waited for here, so their errors and warnings come with
    // the open, as they always did.
    await host.ready().catch(async (error) => {
      await host.close();
      throw error;
    });
    for (const warning of host.warnings) {
      this.#options.warn?.(`session ${host.sessionId}: ${warning}`);
    }
    return host;
  }

  /**
   * Cancel what runs, wait for every call to end (a `run_task` whose host is still opening
   * closes that host once it is open) and close every host. Calls made after this began are
   * answered with an error result and open nothing.
   */
  async [Symbol.asyncDispose](): Promise<void> {
    this.#closing.abort(new OdekError("INTERRUPTED", STOPPING));
    await Promise.all(this.#calls);
    const direct = await this.#direct?.catch(() => undefined);
    await Promise.all([direct, ...this.#tasks].map((h) => h?.close().catch(() => {})));
  }
}

function text(body: string, isError = false): ServedResult {
  return { content: [{ type: "text", text: body }], ...(isError ? { isError: true } : {}) };
}

/** A short line for a progress notification, or nothing for events not worth one. */
function progressLine(type: string, data: Record<string, unknown>): string | undefined {
  switch (type) {
    case "run_started":
      return "started";
    case "tool_call_started":
      return `calling ${String(data.name)}`;
    case "tool_call_completed":
      return `${String(data.name)} done`;
    case "tool_call_failed":
      return `${String(data.name)} failed (${String(data.error_class)})`;
    case "files_changed":
      return `changed ${(data.files as unknown[]).length} file(s)`;
    case "run_completed":
      return "completed";
    case "run_failed":
      return `ended: ${String(data.error_class)}`;
    default:
      return undefined;
  }
}
