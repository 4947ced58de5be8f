/**
 * What a project file (`odek.jsonc` in the workspace, untrusted) may do with each configuration
 * key: only tighten what the earlier layers give, or nothing at all (docs/configuration.md, "The
 * project layer"). One table; a key it does not list is refused, so a key added to the schema
 * without a decision here can never loosen anything.
 *
 * @module
 */

/** How the project layer's value for a key is combined with the earlier layers' value. */
export type ProjectKeyRule =
  /** Ignored with a warning, whatever its value. */
  | { type: "refuse"; why: string }
  /** A number: the lower of the two wins. */
  | { type: "lower" }
  /** A budget where 0 means off (the loosest): the lower non-zero value wins. */
  | { type: "lower_non_zero" }
  /** `untrusted` < `standard` < `trusted`: the lower wins. */
  | { type: "trust" }
  /** A list the project adds to (deny rules, context files). */
  | { type: "union" }
  /** A list the project narrows: only entries both allow remain; an empty result is no egress. */
  | { type: "intersect" }
  /** No bearing on what a call may reach or what a run may spend beyond its budgets: taken. */
  | { type: "free" };

const ENDPOINT =
  "a project may not choose where model requests (and your API key) go: set it in ODEK_HOME/config.jsonc, ODEK_BASE_URL or --base-url";

/**
 * The rule of each key path (dotted; `*` stands for one key of a record, e.g. a model id).
 * Keys a project file may carry that the user schema does not have (`apiKey`, `system`, `hooks`,
 * `approvalPolicy`) are listed so a project setting them is warned about by name.
 */
export const PROJECT_KEY_RULES: Readonly<Record<string, ProjectKeyRule>> = {
  model: { type: "free" },
  baseUrl: { type: "refuse", why: ENDPOINT },
  provider: { type: "refuse", why: ENDPOINT },
  apiKey: {
    type: "refuse",
    why: "API keys come only from your environment or ODEK_HOME/secrets.env",
  },
  system: { type: "refuse", why: "the system prompt is the operator's (--system)" },
  hooks: { type: "refuse", why: "a project may not make odek run programs outside the sandbox" },
  approvalPolicy: {
    type: "refuse",
    why: "what runs without asking is yours to decide (--yes, the terminal, trustedClasses)",
  },
  contextWindow: { type: "free" },
  sandbox: {
    type: "refuse",
    why: "a project may not choose the sandbox: set it in ODEK_HOME/config.jsonc or ODEK_SANDBOX",
  },
  sandboxMaxProcesses: { type: "lower" },
  sandboxTmpfsMiB: { type: "lower" },
  trustLevel: { type: "trust" },
  trustedClasses: {
    type: "refuse",
    why: "pre-approved risk classes are the operator's choice (ODEK_HOME/config.jsonc)",
  },
  addDirs: {
    type: "refuse",
    why: "a project may not grant directories besides the workspace (--add-dir)",
  },
  "mcpServe.workspaces": {
    type: "refuse",
    why: "which directories an MCP client's tasks may work in is the operator's choice",
  },
  dedicatedWorkspace: {
    type: "refuse",
    why: "the workspace is chosen before its odek.jsonc is read",
  },
  "timeouts.requestSeconds": { type: "lower" },
  "timeouts.connectSeconds": { type: "lower" },
  "timeouts.streamIdleSeconds": { type: "lower" },
  "timeouts.shellSeconds": { type: "lower" },
  "retry.maxAttempts": { type: "lower" },
  "retry.baseMs": { type: "lower" },
  "retry.maxMs": { type: "lower" },
  "retry.retryAfterCapSeconds": { type: "lower" },
  "budgets.maxIterations": { type: "lower" },
  "budgets.maxToolParallel": { type: "lower" },
  "budgets.maxRuntimeSeconds": { type: "lower_non_zero" },
  "budgets.maxToolCalls": { type: "lower_non_zero" },
  "budgets.maxInputTokens": { type: "lower_non_zero" },
  "budgets.maxOutputTokens": { type: "lower_non_zero" },
  "budgets.maxCostUsd": { type: "lower_non_zero" },
  "stall.hintAfter": { type: "lower" },
  "stall.stopAfter": { type: "lower_non_zero" },
  "models.*.contextWindow": { type: "free" },
  "models.*.inputCostPerMillionUsd": {
    type: "refuse",
    why: "prices set by a project could defeat your cost budget (odek-go refuses them too)",
  },
  "models.*.outputCostPerMillionUsd": {
    type: "refuse",
    why: "prices set by a project could defeat your cost budget (odek-go refuses them too)",
  },
  "context.compaction": { type: "free" },
  "context.keepRecentToolResults": { type: "free" },
  "context.reserveTokens": { type: "free" },
  "context.triggerRatio": { type: "free" },
  "context.targetRatio": { type: "free" },
  "context.compactionTimeoutSeconds": { type: "lower" },
  "context.compactionMaxTokens": { type: "lower" },
  "toolOutput.maxBytes": { type: "lower" },
  "toolOutput.headBytes": { type: "lower" },
  "toolOutput.tailBytes": { type: "lower" },
  "network.allowDomains": { type: "intersect" },
  "queue.url": {
    type: "refuse",
    why: "where runs and sessions go is yours to decide (ODEK_HOME/config.jsonc or ODEK_QUEUE_URL)",
  },
  "checkpoints.enabled": {
    type: "refuse",
    why:
      "whether your changes can be undone is yours to decide (ODEK_HOME/config.jsonc or ODEK_CHECKPOINTS)",
  },
  "serve.maxConcurrentRuns": {
    type: "refuse",
    why: "odek serve's settings are the operator's (ODEK_HOME/config.jsonc or its flags)",
  },
  "serve.workspaceRoots": {
    type: "refuse",
    why: "a project may not widen where odek serve's sessions work (ODEK_HOME/config.jsonc)",
  },
  "checkpoints.maxFiles": { type: "lower" },
  "checkpoints.maxMiB": { type: "lower" },
  "checkpoints.maxFileMiB": { type: "lower" },
  "subagents.maxConcurrency": { type: "lower" },
  "network.allowHostPorts": {
    type: "refuse",
    why:
      "a project may not open your host's services to its sandboxes: grant a port with --allow-host-port or in ODEK_HOME/config.jsonc",
  },
  "deny.commands": { type: "union" },
  "deny.paths": { type: "union" },
  "deny.domains": { type: "union" },
  contextFiles: { type: "union" },
};

/** Keys the project schema accepts with any value only to refuse them by name. */
export const REFUSED_TOP_KEYS: readonly string[] = Object.entries(PROJECT_KEY_RULES)
  .filter(([path, rule]) => rule.type === "refuse" && !path.includes("."))
  .map(([path]) => path);

/**
 * The rule for a key path, or `undefined` when the table has none for it (a parent of ruled
 * keys, e.g. `budgets`).
 *
 * @param keys the path's keys (`["models", "gpt-4.1", "contextWindow"]`)
 * @returns the rule
 *
 * @example
 * ```ts
 * import { projectKeyRule } from "./project_key_rules.ts";
 * if (projectKeyRule(["models", "gpt-4.1", "inputCostPerMillionUsd"])?.type !== "refuse") throw new Error();
 * if (projectKeyRule(["budgets", "maxCostUsd"])?.type !== "lower_non_zero") throw new Error();
 * ```
 */
export function projectKeyRule(keys: readonly string[]): ProjectKeyRule | undefined {
  const exact = PROJECT_KEY_RULES[keys.join(".")];
  if (exact) return exact;
  for (const [pattern, rule] of Object.entries(PROJECT_KEY_RULES)) {
    const parts = pattern.split(".");
    if (parts.length === keys.length && parts.every((p, i) => p === "*" || p === keys[i])) {
      return rule;
    }
  }
  return undefined;
}

/**
 * Whether any rule lies below `keys` (so the walk descends into it rather than refusing it).
 *
 * @param keys a path's keys
 * @returns true when some rule's path starts with it
 */
export function hasRulesBelow(keys: readonly string[]): boolean {
  return Object.keys(PROJECT_KEY_RULES).some((pattern) => {
    const parts = pattern.split(".");
    return parts.length > keys.length &&
      keys.every((key, i) => parts[i] === "*" || parts[i] === key);
  });
}
