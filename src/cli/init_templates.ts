/**
 * The files `odek init` writes: a commented user `config.jsonc` with every key at its default,
 * and a commented project `odek.jsonc` with only the keys a project may set, each with what it
 * may do. Every value line is commented out, so a new file changes nothing until edited.
 *
 * @module
 */
import { DEFAULT_CONFIG } from "../config/odek_config.ts";
import { type ProjectKeyRule, projectKeyRule } from "../config/project_key_rules.ts";

/** One line per top-level key (`odek init` and a test keep every key described). */
export const KEY_DESCRIPTIONS: Readonly<Record<string, string>> = {
  model: "Model id sent to the provider.",
  baseUrl:
    "OpenAI-compatible endpoint (the API key comes only from the environment or secrets.env).",
  provider: "A provider preset (docs/model_client.md#provider-presets), or auto.",
  contextWindow: 'Context window in tokens of models without their own, or "auto".',
  sandbox: 'Where programs run: "bwrap", "docker" or "none".',
  sandboxMaxProcesses: "Processes and threads one shell sandbox may hold.",
  sandboxTmpfsMiB: "Size cap, in MiB, of each sandbox's /tmp and home.",
  trustLevel: 'The trust level: "untrusted" (reads only), "standard" or "trusted".',
  trustedClasses: 'Risk classes that run without asking at trust level "trusted".',
  addDirs: 'Extra directories granted besides the workspace: "PATH" or "PATH:ro".',
  dedicatedWorkspace: "Work in the private directory beside ODEK_HOME.",
  timeouts: "Model request and shell timeouts, in seconds.",
  retry: "Model request retries.",
  budgets: "Limits of a session's runs (0 = off; exceeding one exits with code 4).",
  queue:
    "The durable queue: odek serve and odek worker use this PostgreSQL database (docs/scale_out.md).",
  stall: "Stall detection: a repeated cycle of tool calls gets a hint, then ends the run (exit 5).",
  models: "Per-model context window and prices (for cost budgets).",
  context: "Context management (docs/context.md).",
  toolOutput: "How much of each tool result reaches the model, in bytes.",
  network:
    "Approved network may reach only these domains (empty: any); host ports programs may reach.",
  checkpoints: "Checkpoints of the workspace around each writing step (odek undo, odek rewind).",
  serve: "odek serve: runs going at once, and roots its sessions may name workspaces under.",
  mcpServers:
    "MCP servers whose tools every run offers (docs/mcp.md): a sandboxed program or a URL.",
  subagents: "delegate_tasks: sub-agents of one call that run at once (docs/subagents.md).",
  mcpServe:
    "odek mcp serve: workspaces an MCP client's run_task may name besides the dedicated one.",
  deny: "Deny rules: no approval, not even --yes, runs what they name.",
  contextFiles: "Files read into a new session's first messages, besides AGENTS.md.",
};

/** Examples for keys whose default is empty. */
const EXAMPLES: Readonly<Record<string, unknown>> = {
  models: { "gpt-4.1-mini": { contextWindow: 128000 } },
  "network.allowDomains": ["github.com", "registry.npmjs.org"],
  "deny.commands": ["git push *", "npm publish *"],
  "deny.paths": ["secrets/**", "~/.config/**"],
  "deny.domains": ["*.pastebin.com"],
  contextFiles: ["docs/CONVENTIONS.md"],
  "serve.workspaceRoots": ["/srv/projects"],
  addDirs: ["/srv/shared:ro"],
  trustedClasses: ["network"],
  "queue.url": "postgres://odek@127.0.0.1:5432/odek",
};

const PROJECT_NOTES: Record<ProjectKeyRule["type"], string> = {
  refuse: "",
  lower: "a lower value than yours counts",
  lower_non_zero: "a lower non-zero value than yours counts",
  trust: "a lower trust level than yours counts",
  union: "added to yours",
  intersect: "intersected with yours; nothing in common means no egress",
  free: "",
};

/**
 * The commented file `odek init` writes.
 *
 * @param kind `user` (`ODEK_HOME/config.jsonc`, every key) or `project` (`odek.jsonc`, the keys a
 *   project may set, each with what counts)
 * @returns JSONC text that parses to an empty layer
 *
 * @example
 * ```ts
 * import { initTemplate } from "./init_templates.ts";
 * const text = initTemplate("project");
 * if (text.includes('"baseUrl"') || !text.includes('"maxIterations"')) throw new Error(text);
 * ```
 */
export function initTemplate(kind: "user" | "project"): string {
  const lines: string[] = kind === "user"
    ? [
      "// odek's configuration (docs/configuration.md). Every value is commented out: uncomment",
      "// and edit what you change. Layers, later wins: secrets.env, this file, the workspace's",
      "// odek.jsonc (which may only tighten), ODEK_* variables, flags. `odek config show` prints",
      "// the result and where each value came from.",
      "{",
    ]
    : [
      '// This project\'s odek configuration (docs/configuration.md, "The project layer").',
      "// odek treats it as untrusted: it may only tighten what each user's own configuration gives.",
      "// A looser value is ignored with a warning; keys a project may not set are not listed here.",
      "// `odek config show` prints what takes effect and where each value came from.",
      "{",
    ];
  const defaults = DEFAULT_CONFIG as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(defaults)) {
    const shown = kind === "user" ? value : projectView(key, value);
    if (shown === undefined) continue;
    lines.push(`  // ${KEY_DESCRIPTIONS[key] ?? "See docs/configuration.md."}`);
    if (isObject(shown) && Object.keys(shown).length > 0 && key !== "models") {
      lines.push(`  // ${JSON.stringify(key)}: {`);
      for (const [sub, subValue] of Object.entries(shown)) {
        const example = EXAMPLES[`${key}.${sub}`] ?? subValue;
        const note = kind === "project" ? projectNote([key, sub]) : "";
        lines.push(`  //   ${JSON.stringify(sub)}: ${JSON.stringify(example)},${note}`);
      }
      lines.push("  // },");
    } else {
      const example = EXAMPLES[key] ?? shown;
      const note = kind === "project"
        ? projectNote(key === "models" ? [key, "*", "contextWindow"] : [key])
        : "";
      lines.push(`  // ${JSON.stringify(key)}: ${JSON.stringify(example)},${note}`);
    }
  }
  lines.push("}", "");
  return lines.join("\n");
}

/** What of a default a project may set: the value, the allowed sub-keys, or nothing. */
function projectView(key: string, value: unknown): unknown {
  if (key === "models") return EXAMPLES.models;
  if (!isObject(value)) return allowed([key]) ? value : undefined;
  const kept = Object.fromEntries(
    Object.entries(value).filter(([sub]) => allowed([key, sub])),
  );
  return Object.keys(kept).length > 0 ? kept : undefined;
}

function allowed(keys: string[]): boolean {
  const rule = projectKeyRule(keys);
  return rule !== undefined && rule.type !== "refuse";
}

function projectNote(keys: string[]): string {
  const rule = projectKeyRule(keys);
  const note = rule ? PROJECT_NOTES[rule.type] : "";
  return note ? ` // ${note}` : "";
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}
