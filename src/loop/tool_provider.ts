/**
 * The seam for tools that are not built in: MCP servers' tools, `delegate_tasks`, a library
 * user's tools. The composition root builds the providers and passes them in a
 * {@linkcode ToolSet}; the loop looks their tools up beside the catalogue's, validates each call
 * once against the tool's schema, has it classified by the provider's rule and runs it through
 * the provider.
 *
 * @module
 */
import type { ArgsSchema, ClassificationRule, RiskClass } from "../../tools/_catalogue/mod.ts";
import type { ToolInvocation, ToolResult } from "../broker/tool_broker.ts";
import type { RunEventData, RunEventType } from "./run_event.ts";

/**
 * What a provider's call may use of the run it is part of: the run's spend budgets (which count
 * the session's whole spend), a way to charge tokens spent on the run's behalf (a sub-agent's
 * model turns, relayed by `delegate_tasks`), and the run's events.
 *
 * @example Charge what a relayed turn used, unless the budget is spent
 * ```ts
 * import type { ProvidedCallContext } from "./tool_provider.ts";
 * async function relay(context: ProvidedCallContext): Promise<boolean> {
 *   if (context.left().input_tokens === 0) return false;
 *   await context.charge({ inputTokens: 120, outputTokens: 30 });
 *   return true;
 * }
 * let charged = 0;
 * const context: ProvidedCallContext = {
 *   left: () => ({ input_tokens: 1000 }),
 *   charge: (usage) => Promise.resolve(void (charged += usage.inputTokens + usage.outputTokens)),
 *   emit: () => {},
 * };
 * if (!(await relay(context)) || charged !== 150) throw new Error("charged");
 * ```
 */
export interface ProvidedCallContext {
  /**
   * What is left of each spend budget that is on (tokens, tool calls, cost in USD), counting
   * what the session spent before this run; a budget that is off is absent.
   */
  left(): Partial<Record<"input_tokens" | "output_tokens" | "tool_calls" | "cost_usd", number>>;
  /**
   * Count tokens spent on the run's behalf: they go into the run's usage (its stats and its
   * budgets) and the session's journal (a `usage` record, so a resume counts them too).
   */
  charge(usage: { inputTokens: number; outputTokens: number }): Promise<void>;
  /** Emit one of the run's events (redacted like the loop's own). */
  emit<T extends RunEventType>(type: T, data: RunEventData[T]): void;
}

/**
 * One tool a provider offers: what the model is told, and the schema its calls must fit.
 *
 * @example One tool with a zod schema
 * ```ts
 * import { z } from "zod";
 * import type { ProvidedTool } from "./tool_provider.ts";
 * const tool: ProvidedTool = {
 *   name: "github__create_issue",
 *   description: "Open an issue.",
 *   args: z.strictObject({ title: z.string(), body: z.string().optional() }),
 * };
 * if (tool.classWithoutGate !== undefined) throw new Error("unknown without a gate");
 * ```
 */
export interface ProvidedTool {
  /** The name the model calls, unique in the run (`^[A-Za-z0-9_-]{1,64}$`), e.g. `github__create_issue`. */
  readonly name: string;
  /** What the model is told about the tool. */
  readonly description: string;
  /** The arguments' schema: a zod 4 schema, or any Standard-Schema-shaped validator with JSON Schema. */
  readonly args: ArgsSchema;
  /**
   * The class a call has when the run has no gate; only `read`, `local_write` and
   * `code_execution` run then. @default "unknown" (refused without a gate)
   */
  readonly classWithoutGate?: RiskClass;
}

/**
 * A validated call as a provider classifies it.
 *
 * @example Classify by the arguments
 * ```ts
 * import type { ClassificationRule } from "../../tools/_catalogue/mod.ts";
 * import type { ProvidedCall } from "./tool_provider.ts";
 * function classify(call: ProvidedCall): ClassificationRule {
 *   return call.args.dryRun === true
 *     ? { kind: "fixed", class: "read", detail: "a dry run changes nothing" }
 *     : { kind: "fixed", class: "unknown", detail: "changes the remote repository" };
 * }
 * if (classify({ name: "deploy", args: { dryRun: true } }).kind !== "fixed") throw new Error("rule");
 * ```
 */
export interface ProvidedCall {
  /** The tool's name. */
  readonly name: string;
  /** The arguments, validated against the tool's schema (its output). */
  readonly args: Record<string, unknown>;
}

/**
 * A source of tools besides the catalogue. Implementations must be safe to call concurrently.
 *
 * @example A provider with one tool that needs no child
 * ```ts
 * import { z } from "zod";
 * import type { ToolProvider } from "./tool_provider.ts";
 * const clock: ToolProvider = {
 *   name: "clock",
 *   list: () => [{ name: "now", description: "The time.", args: z.strictObject({}), classWithoutGate: "read" }],
 *   classify: () => ({ kind: "fixed", class: "read", detail: "reads the clock" }),
 *   run: () => Promise.resolve({ ok: true, output: new Date(0).toISOString() }),
 * };
 * if (clock.list()[0].name !== "now") throw new Error("no tool");
 * ```
 */
export interface ToolProvider {
  /** Names the provider in messages, e.g. `MCP server github`. */
  readonly name: string;
  /** The tools it offers; read once when the run's tool set is built. */
  list(): readonly ProvidedTool[];
  /**
   * How a validated call of one of its tools is classified: a rule the classifier interprets
   * (for an MCP tool typically `{ kind: "fixed", class: "unknown" }`, or `code_execution` for a
   * trusted server). Pure and synchronous; a throw classifies the call as `unknown`.
   */
  classify(call: ProvidedCall): ClassificationRule;
  /**
   * Run one validated call that was approved (its `verdict` decides what it may do). Failures,
   * refusals and timeouts are results, never thrown; `signal` aborts the call. `context` is the
   * run's (its budgets, usage and events), given by odek's loop.
   */
  run(
    invocation: ToolInvocation,
    signal: AbortSignal,
    context?: ProvidedCallContext,
  ): Promise<ToolResult>;
}
