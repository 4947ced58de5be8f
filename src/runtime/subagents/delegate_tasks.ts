/**
 * `delegate_tasks` and `artifact_read` (docs/subagents.md): a tool provider factory that runs up
 * to 8 sub-agents per call, each a loop in a Deno process with no permission, no key and no
 * hands, whose every model turn and tool call its parent relays, classifies, approves and runs
 * (`_run_subagent_task.ts`). A sub-agent's trust level and workspace access never exceed its
 * parent's; its tokens count in the parent's usage and session-wide budgets.
 *
 * @module
 */
import { z } from "zod";
import type { ClassificationRule } from "../../../tools/_catalogue/mod.ts";
import { TOOL_CATALOGUE } from "../../../tools/_catalogue/mod.ts";
import type { ToolInvocation, ToolResult } from "../../broker/tool_broker.ts";
import type { Verdict } from "../../danger/verdict.ts";
import type { ProvidedCallContext, ToolProvider } from "../../loop/tool_provider.ts";
import { ToolSet } from "../../loop/tool_set.ts";
import type { ToolProviderFactory, ToolProviderHost } from "../tool_provider_source.ts";
import { subagentHostParts } from "./_subagent_host.ts";
import { readArtifact } from "./subagent_sessions.ts";
import { runTasks, type TaskArgs, type WriteTurn } from "./_run_tasks.ts";

const TRUST = z.enum(["untrusted", "standard", "trusted"]);

const TaskSchema = z.strictObject({
  goal: z.string().min(1).max(20_000).describe("What the sub-agent is to do, on its own."),
  context: z.string().max(100_000).optional().describe(
    "What it needs to know: files, findings, constraints (it sees nothing of this conversation).",
  ),
  trust_level: TRUST.optional().describe(
    "untrusted (default: reads only), standard (contained writes and programs) or trusted; never above yours.",
  ),
  workspace_access: z.enum(["read", "write"]).optional().describe(
    "read (default) or write. Sub-agents that write take turns on the workspace.",
  ),
  budgets: z.strictObject({
    max_iterations: z.int().min(1).max(200).optional(),
    max_tool_calls: z.int().min(1).max(10_000).optional(),
    max_input_tokens: z.int().min(1).optional(),
    max_output_tokens: z.int().min(1).optional(),
    max_runtime_seconds: z.int().min(1).max(86_400).optional(),
  }).optional(),
});

const DelegateArgs = z.strictObject({
  tasks: z.array(TaskSchema).min(1).max(8).describe("1 to 8 independent tasks, run concurrently."),
});

const ArtifactArgs = z.strictObject({
  id: z.string().min(1).max(128).describe("The artifact_id a delegate_tasks result gave."),
  offset: z.int().min(0).optional().describe("Characters to skip (default 0)."),
  limit: z.int().min(1).max(100_000).optional().describe("Characters to return (default 20000)."),
});

/**
 * Options for {@linkcode delegateTasks}.
 *
 * @example Two sub-agents at once at most
 * ```ts
 * import type { DelegateTasksOptions } from "./delegate_tasks.ts";
 * const options: DelegateTasksOptions = { maxConcurrency: 2 };
 * if (options.maxConcurrency !== 2) throw new Error("options");
 * ```
 */
export interface DelegateTasksOptions {
  /** Sub-agents of one call that run at once. @default config `subagents.maxConcurrency` (3) */
  maxConcurrency?: number;
  /**
   * The verdict of a sub-agent's call instead of its gate's (`undefined`: the gate's).
   * @internal a test seam: containment tests force an allow to show the sandbox refuses
   */
  classify?: (call: { name: string; args: Record<string, unknown> }) => Verdict | undefined;
}

/**
 * The `delegate_tasks` provider: a factory to pass in `openSession(target, { tools })` (the CLI
 * does). Each host gets its own provider; closing the host stops its sub-agents.
 *
 * @param options concurrency and test seams
 * @returns a factory of the provider for each host
 *
 * @example Offer delegate_tasks in a session
 * ```ts
 * import { createRuntime } from "../create_runtime.ts";
 * import { delegateTasks } from "./delegate_tasks.ts";
 * import { ScriptedModel } from "../../testing/scripted_model.ts";
 * const home = await Deno.makeTempDir();
 * const workspace = await Deno.makeTempDir();
 * try {
 *   await using runtime = await createRuntime({
 *     env: { HOME: home, PATH: "/usr/bin:/bin" },
 *     config: { sandbox: "none" },
 *     modelFactory: () =>
 *       new ScriptedModel((request) => ({
 *         text: request.tools.map((t) => t.function.name).filter((n) => n.includes("_t")).join(" "),
 *       })),
 *   });
 *   await using host = await runtime.openSession({ task: "plan the release" }, {
 *     workspace,
 *     tools: [delegateTasks({ maxConcurrency: 2 })],
 *   });
 *   const outcome = await (await host.startRun()).result;
 *   if (outcome.type !== "completed" || !outcome.text?.includes("delegate_tasks")) {
 *     throw new Error(JSON.stringify(outcome));
 *   }
 * } finally {
 *   await Deno.remove(home, { recursive: true });
 *   await Deno.remove(workspace, { recursive: true });
 * }
 * ```
 */
export function delegateTasks(options: DelegateTasksOptions = {}): ToolProviderFactory {
  return (host) => new DelegateTasksProvider(host, options);
}

class DelegateTasksProvider implements ToolProvider, AsyncDisposable {
  readonly name = "delegate_tasks";
  readonly #host: ToolProviderHost;
  readonly #options: DelegateTasksOptions;
  readonly #closing = new AbortController();
  readonly #running = new Set<Promise<unknown>>();
  /** Sub-agents with write access take turns on the workspace. */
  #writer: Promise<void> = Promise.resolve();
  #writers = 0;

  constructor(host: ToolProviderHost, options: DelegateTasksOptions) {
    this.#host = host;
    this.#options = options;
  }

  list() {
    return [
      {
        name: "delegate_tasks",
        description:
          "Run 1-8 independent tasks with sub-agents, concurrently. Each starts with no memory of this conversation: give it a goal and the context it needs. It runs with the trust level and workspace access you ask for, never above yours (default: untrusted, read-only). Returns one JSON result per task: status (completed, budget_exceeded, stalled, interrupted, failed), summary (or artifact_id for a long one: read it with artifact_read), files_changed, usage, session_id.",
        args: DelegateArgs,
        classWithoutGate: "read" as const,
      },
      {
        name: "artifact_read",
        description:
          "Read a long sub-agent result by its artifact_id (from delegate_tasks), in pages.",
        args: ArtifactArgs,
        classWithoutGate: "read" as const,
      },
    ];
  }

  classify(call: { name: string; args: Record<string, unknown> }): ClassificationRule {
    if (call.name === "artifact_read") {
      return { kind: "fixed", class: "read", detail: "reads a sub-agent's result" };
    }
    const tasks = (call.args.tasks ?? []) as { workspace_access?: string }[];
    // Each of the sub-agents' calls is classified and approved on its own, at a trust level no
    // higher than this run's; a writer's changes are checkpointed like the run's own.
    return tasks.some((t) => t.workspace_access === "write")
      ? { kind: "fixed", class: "local_write", detail: "sub-agents that may write the workspace" }
      : { kind: "fixed", class: "read", detail: "read-only sub-agents" };
  }

  async run(
    invocation: ToolInvocation,
    signal: AbortSignal,
    context?: ProvidedCallContext,
  ): Promise<ToolResult> {
    const parts = subagentHostParts(this.#host);
    if (!parts) {
      return failure("delegate_tasks needs a session host opened by odek's runtime");
    }
    if (invocation.name === "artifact_read") {
      const args = invocation.args as z.infer<typeof ArtifactArgs>;
      return await readArtifact(parts.store, this.#host.sessionId, args);
    }
    const { tasks } = invocation.args as { tasks: TaskArgs[] };
    const stop = AbortSignal.any([signal, this.#closing.signal]);
    const work = runTasks(tasks, {
      callId: invocation.id,
      host: this.#host,
      parts,
      context,
      maxConcurrency: this.#options.maxConcurrency ?? parts.maxConcurrency,
      toolsFor: (access) => subagentTools(access),
      takeWriteTurn: () => this.#takeWriteTurn(),
      ...(this.#options.classify ? { classify: this.#options.classify } : {}),
    }, stop);
    this.#running.add(work);
    try {
      const results = await work;
      return { ok: true, output: JSON.stringify({ results }, null, 2) };
    } finally {
      this.#running.delete(work);
    }
  }

  /**
   * A turn on the workspace for a sub-agent with write access: `busy` when another writer holds
   * or waits for it, `ready` once the turn is this one's; `release` gives it back (also before
   * `ready`, for a task stopped while it waited).
   */
  #takeWriteTurn(): WriteTurn {
    const busy = this.#writers > 0;
    this.#writers++;
    let resolve = () => {};
    const mine = new Promise<void>((r) => (resolve = r));
    const ready = this.#writer;
    this.#writer = ready.then(() => mine);
    let released = false;
    return {
      busy,
      ready,
      release: () => {
        if (released) return;
        released = true;
        this.#writers--;
        resolve();
      },
    };
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.#closing.abort();
    await Promise.allSettled([...this.#running]);
  }
}

/** The built-in tools a sub-agent is offered: no delegation, no background jobs, no clarify. */
function subagentTools(access: "read" | "write"): ToolSet {
  const writing = new Set(["write_file", "patch", "shell"]);
  const builtins = TOOL_CATALOGUE.filter((entry) =>
    !entry.name.startsWith("bg_") && entry.name !== "clarify" &&
    (access === "write" || !writing.has(entry.name))
  );
  return new ToolSet({ builtins });
}

function failure(message: string): ToolResult {
  return { ok: false, error: { kind: "failed", message } };
}
