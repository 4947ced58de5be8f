/**
 * A session host's configuration: the user's layers with its workspace's project layer (read
 * now, for this workspace: design §8.1), tightened. What the host's broker, gate, budgets,
 * context files and model client use; the runtime keeps the user-level configuration for the
 * workspace-independent parts.
 *
 * @module
 */
import type { DenyRule } from "../config/deny_rule.ts";
import { type MergedConfig, originOf, type ValueOrigin } from "../config/merge_config_layers.ts";
import type { ProjectMcpServer } from "../config/mcp_servers.ts";
import type { OdekConfig } from "../config/odek_config.ts";
import { readProjectLayer } from "../config/read_project_layer.ts";
import { type LayerFileReport, mergeUserLayers } from "../config/resolve_config.ts";
import { tightenProjectLayer } from "../config/tighten_project_layer.ts";
import type { Settings } from "./compose.ts";

/** What {@linkcode resolveHostConfig} resolved for one workspace. */
export interface HostConfig {
  /** The effective configuration of the host. */
  config: OdekConfig;
  /** The merge with each value's origin (`odek config show`). */
  merged: MergedConfig;
  /** The deny rules of every layer, each with its layer and file. */
  denyRules: DenyRule[];
  /** Context files of every layer, each with its origin (read for a new session). */
  contextFiles: { path: string; origin: ValueOrigin }[];
  /** The project file and its MCP servers, inert until approved (`approveProjectMcpServers`). */
  project: { file: string; read: boolean; mcpServers: Record<string, ProjectMcpServer> };
  /** Every layer file looked at, user and project (`odek doctor`). */
  files: LayerFileReport[];
  /** For the operator: the user layers' warnings, then each ignored project key by name. */
  warnings: string[];
}

/**
 * Read `<workspace>/odek.jsonc` and merge it, tightened, after the user's file: defaults →
 * `secrets.env` → `ODEK_HOME/config.jsonc` → the project file → `ODEK_*` → flags.
 *
 * @param settings the runtime's settings (its user layers)
 * @param workspace the validated workspace (real path)
 * @returns the host's configuration
 * @throws {OdekError} `CONFIG_INVALID` for a project file that cannot be read or is invalid,
 *   naming the file, the key path, the value and the expected shape
 *
 * @example Through the runtime (`runtime.configFor` calls it)
 * ```ts ignore
 * const host = await runtime.configFor(workspace);
 * for (const warning of host.warnings) console.error(`odek: warning: ${warning}`);
 * console.log(host.config.budgets.maxIterations, host.denyRules.length);
 * ```
 */
export async function resolveHostConfig(
  settings: Settings,
  workspace: string,
): Promise<HostConfig> {
  const read = await readProjectLayer(workspace);
  const warnings = [...settings.warnings, ...read.warnings];
  const base = mergeUserLayers(settings.layers);
  let merged = base;
  let noEgress = false;
  let mcpServers: Record<string, ProjectMcpServer> = {};
  if (read.layer) {
    // Compared with what the layers below it give: defaults, secrets.env, the user's file.
    const [secrets, user] = settings.layers.layers;
    const below = mergeUserLayers({ ...settings.layers, layers: [secrets, user] }).config;
    const tightened = tightenProjectLayer(read.layer, below, read.file);
    warnings.push(...tightened.warnings);
    mcpServers = tightened.mcpServers;
    merged = mergeUserLayers(settings.layers, {
      kind: "project",
      source: read.file,
      layer: tightened.layer,
    });
    noEgress = tightened.noEgress &&
      originOf(merged, ["network", "allowDomains"]).kind === "project";
  }
  const denyRules = denyRulesOf(merged);
  if (noEgress) {
    denyRules.push({
      kind: "domain",
      pattern: "*",
      layer: "project",
      source: read.file,
      note: "its network.allowDomains has no entry in common with yours, so there is no egress",
    });
  }
  const contextFiles = merged.config.contextFiles.map((path, i) => ({
    path,
    origin: merged.itemOrigins.contextFiles?.[i] ?? { kind: "default" as const, source: "default" },
  }));
  return {
    config: merged.config,
    merged,
    denyRules,
    contextFiles,
    project: { file: read.file, read: read.layer !== undefined, mcpServers },
    files: [...settings.layers.files, ...read.files],
    warnings,
  };
}

function denyRulesOf(merged: MergedConfig): DenyRule[] {
  const out: DenyRule[] = [];
  const kinds = [["commands", "command"], ["paths", "path"], ["domains", "domain"]] as const;
  for (const [key, kind] of kinds) {
    const origins = merged.itemOrigins[`deny.${key}`] ?? [];
    merged.config.deny[key].forEach((pattern, i) => {
      const origin = origins[i];
      const layer = origin?.kind === "project"
        ? "project"
        : origin?.kind === "user"
        ? "user"
        : "flags";
      out.push({ kind, pattern: pattern.trim(), layer, source: origin?.source ?? "flags" });
    });
  }
  return out;
}
