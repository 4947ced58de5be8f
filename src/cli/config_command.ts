/**
 * `odek config show`: the configuration a run in the workspace would use — every value with the
 * layer it came from (default, `secrets.env`, the user file, the project file, an `ODEK_*`
 * variable, a flag) — the layer files read, where the API key comes from, the project's MCP
 * servers and whether each is approved, and the warnings. No secret value is printed.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { OdekError } from "../_util/odek_error.ts";
import { McpApprovalStore, mcpServerHash } from "../config/mcp_approval_store.ts";
import {
  ADDITIVE_KEYS,
  formatKeyPath,
  originOf,
  type ValueOrigin,
} from "../config/merge_config_layers.ts";
import type { HostConfig } from "../runtime/host_config.ts";
import type { SecretsSummary } from "../runtime/runtime.ts";
import type { CliIO } from "./cli_io.ts";
import { cliRuntime } from "./cli_runtime.ts";
import { EXIT } from "./exit_code.ts";
import { flagError } from "./flag_error.ts";
import { HELP_TEXT } from "./help_text.ts";
import { terminalSafe } from "./terminal_safe.ts";

/** One value as `odek config show` reports it. */
export interface ShownValue {
  /** Its key path (`budgets.maxIterations`). */
  key: string;
  /** Its value (a base URL's password masked). */
  value: unknown;
  /** The layer: default, secrets, user, project, env, flags. */
  layer: ValueOrigin["kind"];
  /** The file, variable or flag. */
  source: string;
}

/** What `odek config show --json` prints. */
export interface ConfigReport {
  workspace: string;
  files: HostConfig["files"];
  values: ShownValue[];
  secrets: SecretsSummary;
  /** The project's MCP servers: none starts until approved for its current entry. */
  projectMcpServers: { name: string; approved: boolean }[];
  warnings: string[];
}

/**
 * Run `odek config` with its arguments: `show` (the only subcommand), `--workspace <dir>`
 * (default the current directory), `--json`.
 *
 * @param args the arguments after `config`
 * @param io the CLI's streams and environment
 * @returns 0
 * @throws {OdekError} `USAGE` for a bad subcommand or flag; `CONFIG_INVALID` and
 *   `WORKSPACE_INVALID` from the runtime
 *
 * @example Help
 * ```ts
 * import { configCommand } from "./config_command.ts";
 * let out = "";
 * const io = { stdout: { write: (t: string) => (out += t) }, stderr: { write() {} } } as never;
 * if (await configCommand(["--help"], io) !== 0 || !out.includes("show")) throw new Error(out);
 * ```
 */
export async function configCommand(args: string[], io: CliIO): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        workspace: { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw flagError(error, "config");
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(`${HELP_TEXT.config}\n`);
    return EXIT.ok;
  }
  if (positionals.length !== 1 || positionals[0] !== "show") {
    throw new OdekError(
      "USAGE",
      `odek config takes one subcommand, show; got ${
        positionals.length === 0 ? "none" : JSON.stringify(positionals.join(" "))
      }. Run "odek config --help".`,
    );
  }
  await using runtime = await cliRuntime(io);
  const { workspace } = await runtime.resolveWorkspace({
    ...(values.workspace !== undefined ? { workspace: values.workspace } : {}),
    dedicated: values.workspace === undefined ? runtime.config.dedicatedWorkspace : false,
  });
  const host = await runtime.configFor(workspace);
  const store = McpApprovalStore.inHome(runtime.paths.odekHome);
  const projectMcpServers = [];
  for (const [name, entry] of Object.entries(host.project.mcpServers)) {
    const approved = await store.isApproved(workspace, name, await mcpServerHash(name, entry));
    projectMcpServers.push({ name, approved });
  }
  const report: ConfigReport = {
    workspace,
    files: host.files,
    values: shownValues(host, runtime.redact),
    secrets: runtime.secretsSummary,
    projectMcpServers,
    warnings: host.warnings,
  };
  io.stdout.write(
    values.json ? `${JSON.stringify(report, null, 2)}\n` : terminalSafe(renderConfigReport(report)),
  );
  return EXIT.ok;
}

/** Every leaf of the configuration with its origin (list items of additive keys one by one). */
function shownValues(host: HostConfig, redact: (text: string) => string): ShownValue[] {
  const out: ShownValue[] = [];
  // Defence in depth: a value that holds a registered secret (or looks like one) is masked.
  const masked = (value: unknown) => {
    if (typeof value === "string") return redact(value);
    const text = JSON.stringify(value) ?? "null";
    return redact(text) === text ? value : "[REDACTED]";
  };
  const visit = (node: unknown, keys: string[]) => {
    const dotted = keys.join(".");
    if (ADDITIVE_KEYS.includes(dotted) && Array.isArray(node)) {
      const origins = host.merged.itemOrigins[dotted] ?? [];
      if (node.length === 0) {
        out.push({ key: dotted, value: [], layer: "default", source: "default" });
      }
      node.forEach((item, i) => {
        const origin = origins[i] ?? { kind: "default", source: "default" };
        out.push({
          key: `${dotted}[${i}]`,
          value: masked(item),
          layer: origin.kind,
          source: origin.source,
        });
      });
      return;
    }
    if (typeof node === "object" && node !== null && !Array.isArray(node) && keys.length < 4) {
      const entries = Object.entries(node);
      if (entries.length > 0) {
        for (const [key, value] of entries) visit(value, [...keys, key]);
        return;
      }
    }
    const origin = originOf(host.merged, keys);
    const value = keys.length === 1 && keys[0] === "baseUrl" ? maskPassword(String(node)) : node;
    out.push({
      key: formatKeyPath(keys),
      value: masked(value),
      layer: origin.kind,
      source: origin.source,
    });
  };
  for (const [key, value] of Object.entries(host.config)) visit(value, [key]);
  return out;
}

function maskPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === "") return url;
    parsed.password = "****";
    return parsed.toString();
  } catch {
    return url;
  }
}

/**
 * The report as text: the layers, then one line per value (`key  value  layer source`), the API
 * key's origin, `secrets.env`'s names, project MCP servers and warnings.
 *
 * @param report what `odek config show` gathered
 * @returns the text, ending with a newline
 */
export function renderConfigReport(report: ConfigReport): string {
  const lines = [
    `configuration for the workspace ${report.workspace} (later layers win)`,
    "layers:",
  ];
  lines.push("  default");
  for (const file of report.files) {
    const name = file.kind === "secrets" ? "secrets.env" : file.kind;
    lines.push(
      `  ${name.padEnd(12)} ${file.path} · ${file.status}${file.detail ? ` (${file.detail})` : ""}`,
    );
  }
  lines.push("  env          ODEK_* variables", "  flags", "values:");
  const width = Math.min(44, Math.max(...report.values.map((v) => v.key.length)) + 2);
  for (const value of report.values) {
    const from = value.layer === "default"
      ? "default"
      : `${value.layer} ${value.source === value.layer ? "" : value.source}`.trim();
    lines.push(`  ${value.key.padEnd(width)} ${JSON.stringify(value.value)}  · ${from}`);
  }
  const { secrets } = report;
  const key = secrets.apiKey;
  lines.push(
    key
      ? `api key: from ${key.variable} (${key.from}); its value is never shown`
      : "api key: none set (ODEK_API_KEY, the provider's variable, or OPENAI_API_KEY)",
  );
  lines.push(
    secrets.status === "read"
      ? `secrets.env: ${secrets.names.join(", ") || "(no variables)"}; values hidden${
        secrets.filled.length < secrets.names.length
          ? `; already set in the environment, so not used: ${
            secrets.names.filter((n) => !secrets.filled.includes(n)).join(", ")
          }`
          : ""
      }`
      : `secrets.env: ${secrets.status}`,
  );
  if (report.projectMcpServers.length > 0) {
    lines.push("project MCP servers (none starts until approved):");
    for (const server of report.projectMcpServers) {
      lines.push(
        `  ${server.name}: ${server.approved ? "approved for its current entry" : "not approved"}`,
      );
    }
  }
  if (report.warnings.length > 0) {
    lines.push("warnings:");
    for (const warning of report.warnings) lines.push(`  ${warning}`);
  }
  return `${lines.join("\n")}\n`;
}
