/**
 * The shape of one catalogue entry: everything odek knows about a tool, declared once and shared
 * by the core and the tool children (design §1 "Tools"). This folder imports only zod and its own
 * files, so a child loads it without loading anything of the core.
 *
 * @module
 */
import type { z } from "zod";

/**
 * Risk class of one part of a call (design §3): what the part does, which decides whether it asks
 * and what scope approving it grants.
 *
 * @example The class of a workspace write
 * ```ts
 * import type { RiskClass } from "./tool_entry.ts";
 * const riskClass: RiskClass = "local_write";
 * if (riskClass !== "local_write") throw new Error("unreachable");
 * ```
 */
export type RiskClass =
  | "read"
  | "local_write"
  | "code_execution"
  | "network"
  | "system_write"
  | "destructive"
  | "privileged"
  | "unknown"
  | "blocked";

/** The risk classes of design §3, in the order the docs list them. */
export const RISK_CLASSES = [
  "read",
  "local_write",
  "code_execution",
  "network",
  "system_write",
  "destructive",
  "privileged",
  "unknown",
  "blocked",
] as const satisfies readonly RiskClass[];
// Every class is in the list (a class added to the type alone fails to compile here).
const _everyRiskClass: [Exclude<RiskClass, (typeof RISK_CLASSES)[number]>] extends [never] ? true
  : never = true;

/**
 * Categories whose tools run in a long-lived tool child, the program `tools/<category>.ts`:
 * `files` (one child per scope), `compute` (one child with no permissions at all), `web` (one
 * child per scope, network only through the egress proxy).
 */
export const CHILD_CATEGORIES = ["files", "compute", "web"] as const;
/** A category run by a tool child. */
export type ChildCategory = (typeof CHILD_CATEGORIES)[number];
/**
 * Where a tool runs: a tool child ({@linkcode ChildCategory}), `shell` as a program in a fresh
 * sandbox, `bg` in the broker's background-job manager (shell's sandbox), `core` in the core
 * itself (`plan`, `clarify`: they touch nothing outside the run).
 */
export type ToolCategory = ChildCategory | "shell" | "bg" | "core";

/**
 * How a call of the tool is classified, as data the classifier (`src/danger/`) interprets, so a
 * child never loads the classifier:
 * - `path`: one part on the path in argument `arg` (`read`, or `write`: `local_write` inside the
 *   workspace, `system_write` outside, `blocked` in a protected root); `default` when absent,
 *   else the part is `unknown`;
 * - `glob`: reads the static base of the pattern in `pattern`, under the directory in `base`;
 * - `command`: the shell command in `arg`, parsed and classified; `alwaysAsk` adds an `unknown`
 *   part and makes the call ask at every trust level when argument `arg` equals `equals`;
 * - `url`: one `network` part on the host of the URL in `arg`;
 * - `fixed`: one part of `class`, no targets (`detail` says why);
 * - `access`: what a library tool (`defineTool`) declares it needs, whatever its arguments: a
 *   `read` part (`workspace: "read"`) or a `local_write` part (`"write"`), and a `network` part
 *   when `network` is true; no targets.
 *
 * @example The rules of a reading, a writing and a library tool
 * ```ts
 * import type { ClassificationRule } from "./tool_entry.ts";
 * const rules: ClassificationRule[] = [
 *   { kind: "path", arg: "path", access: "read" },
 *   { kind: "path", arg: "path", access: "write" },
 *   { kind: "access", workspace: "read", network: true },
 * ];
 * if (rules.length !== 3) throw new Error("rules");
 * ```
 */
export type ClassificationRule =
  | {
    readonly kind: "path";
    readonly arg: string;
    readonly access: "read" | "write";
    readonly default?: string;
  }
  | { readonly kind: "glob"; readonly pattern: string; readonly base: string }
  | {
    readonly kind: "command";
    readonly arg: string;
    readonly alwaysAsk?: {
      readonly arg: string;
      readonly equals: boolean;
      /** Names the call in the part's subject, e.g. `detached` for `bg_start (detached)`. */
      readonly label: string;
      /** The part's detail, e.g. `keeps running after the run ends`. */
      readonly detail: string;
      /** Added to the verdict's reason, e.g. `a detached job always asks`. */
      readonly reason: string;
    };
  }
  | { readonly kind: "url"; readonly arg: string }
  | {
    readonly kind: "fixed";
    readonly class: RiskClass;
    readonly detail: string;
  }
  | {
    readonly kind: "access";
    readonly workspace: "read" | "write";
    readonly network?: boolean;
  };

/**
 * Where a tool child finds a tool's handler: `module`, a file directly in `tools/` (such as
 * `_read_file.ts`), and the name of its export (`default` for a default export). The handler is
 * imported on the tool's first call (or when the child is told to preload), never by the core.
 */
export interface HandlerRef {
  readonly module: string;
  readonly export: string;
}

/** An argument schema as the catalogue declares it: a zod schema of a JSON object. */
export type ArgsZod = z.ZodType<Record<string, unknown>>;

/** The fields every entry has. */
interface EntryFields<N extends string, S extends ArgsZod> {
  /** The tool name the model calls, e.g. `read_file`. */
  readonly name: N;
  /** What the model is told about the tool. */
  readonly description: string;
  /** The one schema of the tool's arguments: validated in the core, again in the child. */
  readonly args: S;
  /** How a call is classified (see {@linkcode ClassificationRule}). */
  readonly rule: ClassificationRule;
  /**
   * The class a call has when the run has no gate (no classifier, no approver): `read`,
   * `local_write` and `code_execution` run contained (design §3); any other class is refused.
   */
  readonly classWithoutGate: RiskClass;
}

/** A tool run by a tool child: the child serves it with its handler. */
export interface ChildToolEntry<
  N extends string = string,
  S extends ArgsZod = ArgsZod,
> extends EntryFields<N, S> {
  readonly category: ChildCategory;
  readonly handler: HandlerRef;
}

/** A tool the core runs itself (`core`) or as a program (`shell`, `bg`). */
export interface HostToolEntry<
  N extends string = string,
  S extends ArgsZod = ArgsZod,
> extends EntryFields<N, S> {
  readonly category: "shell" | "bg" | "core";
}

/** One catalogue entry. */
export type ToolEntry<N extends string = string, S extends ArgsZod = ArgsZod> =
  | ChildToolEntry<N, S>
  | HostToolEntry<N, S>;

/**
 * Declare an entry, keeping its literal name and schema type (so handlers can type their
 * arguments from it). The entry is frozen.
 *
 * @param entry the entry
 * @returns the same entry
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { toolEntry } from "./tool_entry.ts";
 * const entry = toolEntry({
 *   name: "word_count",
 *   description: "Count the words of a text.",
 *   args: z.strictObject({ text: z.string() }),
 *   category: "compute",
 *   handler: { module: "_word_count.ts", export: "wordCount" },
 *   rule: { kind: "fixed", class: "read", detail: "computes; touches nothing" },
 *   classWithoutGate: "read",
 * });
 * if (entry.name !== "word_count") throw new Error(entry.name);
 * ```
 */
export function toolEntry<const E extends ToolEntry>(entry: E): E {
  return Object.freeze(entry);
}

/** Whether an entry is run by a tool child. */
export function isChildEntry(entry: ToolEntry): entry is ChildToolEntry {
  return (CHILD_CATEGORIES as readonly string[]).includes(entry.category);
}

/**
 * One problem found while validating arguments (the Standard Schema issue shape).
 *
 * @example An issue at a nested key
 * ```ts
 * import type { ArgsIssue } from "./tool_entry.ts";
 * const issue: ArgsIssue = { message: "Expected a string", path: ["options", { key: "name" }] };
 * if (issue.path?.length !== 2) throw new Error("path");
 * ```
 */
export interface ArgsIssue {
  /** What is wrong, for the model. */
  readonly message: string;
  /** Where in the arguments, as keys (or path segments with a key). */
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>;
}

/**
 * The outcome of validating arguments.
 *
 * @example A success and a failure
 * ```ts
 * import type { ArgsResult } from "./tool_entry.ts";
 * const ok: ArgsResult<{ n: number }> = { value: { n: 1 } };
 * const bad: ArgsResult<{ n: number }> = { issues: [{ message: "n must be a number", path: ["n"] }] };
 * if (ok.issues !== undefined || bad.issues === undefined) throw new Error("results");
 * ```
 */
export type ArgsResult<T> =
  | { readonly value: T; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<ArgsIssue> };

/**
 * odek's own Standard-Schema-shaped argument schema (`~standard.validate` and
 * `~standard.jsonSchema`, standardschema.dev): zod 4 schemas satisfy it unchanged, and so can a
 * JSON-Schema validator of an MCP tool or a library user's schema. The loop validates every call
 * through it and tells the model its `jsonSchema.input`.
 *
 * @example A zod 4 schema is one, and so is a hand-written validator
 * ```ts
 * import { z } from "zod";
 * import type { ArgsSchema } from "./tool_entry.ts";
 * const fromZod: ArgsSchema<{ text: string }> = z.strictObject({ text: z.string() });
 * const byHand: ArgsSchema<{ text: string }> = {
 *   "~standard": {
 *     version: 1,
 *     vendor: "my-app",
 *     validate: (value) =>
 *       typeof (value as { text?: unknown })?.text === "string"
 *         ? { value: value as { text: string } }
 *         : { issues: [{ message: "text must be a string", path: ["text"] }] },
 *     jsonSchema: {
 *       input: () => ({ type: "object", properties: { text: { type: "string" } }, required: ["text"] }),
 *     },
 *   },
 * };
 * for (const schema of [fromZod, byHand]) {
 *   const result = await schema["~standard"].validate({ text: "hi" });
 *   if (result.issues !== undefined) throw new Error("valid arguments");
 * }
 * ```
 */
export interface ArgsSchema<T = Record<string, unknown>> {
  /** The Standard Schema properties (version 1) with the JSON Schema extension. */
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (
      value: unknown,
    ) => ArgsResult<T> | Promise<ArgsResult<T>>;
    readonly jsonSchema: {
      readonly input: (
        options: { readonly target: "draft-2020-12" },
      ) => Record<string, unknown>;
    };
  };
}
