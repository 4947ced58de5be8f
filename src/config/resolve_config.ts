/**
 * The user's configuration layers (design §8.1: everything but the project layer, which each
 * session host reads for its workspace): `ODEK_HOME/secrets.env` → `ODEK_HOME/config.jsonc` →
 * `ODEK_*` environment variables → flags (highest). Each layer is validated on its own so an error
 * names its source.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { validateLayer } from "./_validate_layer.ts";
import { envConfigLayer } from "./env_config_layer.ts";
import { mergeConfigLayers, type MergedConfig, type SourcedLayer } from "./merge_config_layers.ts";
import { type ConfigLayer, ConfigLayerSchema, type OdekConfig } from "./odek_config.ts";
import { readConfigFile } from "./read_config_file.ts";
import { readSecretsEnv, type SecretsEnv, unsetOnly } from "./read_secrets_env.ts";

export { MAX_CONFIG_BYTES } from "./read_config_file.ts";

/** Inputs of {@linkcode resolveConfig} and {@linkcode loadConfigLayers}. */
export interface ResolveConfigOptions {
  /** Path of the config file; a missing file is an empty layer. */
  configFile: string;
  /** The environment to read `ODEK_*` (and `OPENAI_BASE_URL`) from. */
  env: Record<string, string>;
  /** The flag layer, already shaped like a config layer (keys set only for given flags). */
  flags?: ConfigLayer;
  /** `secrets.env`. @default none: no secrets layer */
  secretsFile?: string;
}

/** How one layer file fared, for `odek doctor` and `odek config show`. */
export interface LayerFileReport {
  kind: "secrets" | "user" | "project";
  path: string;
  /** `read`; `absent`; `ignored` (see `detail`); `misnamed` (a file odek does not read, reported). */
  status: "read" | "absent" | "ignored" | "misnamed";
  detail?: string;
}

/** The user's layers, read and validated, before any project layer. */
export interface ConfigLayers {
  /** `secrets.env` as read (its values stay here: never in an environment a child gets). */
  secrets: SecretsEnv;
  /** The variables `secrets.env` fills: those the environment does not set. */
  filled: Record<string, string>;
  /** Lowest first: `secrets` (its `ODEK_*` variables), `user`, `env`, `flags`. */
  layers: SourcedLayer[];
  /** The files looked at. */
  files: LayerFileReport[];
  /** For the operator: a misnamed file, an ignored `secrets.env`, a skipped line. */
  warnings: string[];
}

/**
 * Read and validate the user's layers.
 *
 * @throws {OdekError} `CONFIG_INVALID` naming the file or variable, the key path, the value and
 *   the expected shape; `USAGE` (exit code 2) with the same details when the value came from a
 *   flag
 *
 * @example Nothing configured
 * ```ts
 * import { loadConfigLayers } from "./resolve_config.ts";
 * const layers = await loadConfigLayers({ configFile: "/nonexistent/config.jsonc", env: {} });
 * if (layers.layers.length !== 4 || layers.files[0].status !== "absent") throw new Error();
 * ```
 */
export async function loadConfigLayers(options: ResolveConfigOptions): Promise<ConfigLayers> {
  const secrets = options.secretsFile === undefined
    ? { file: "", status: "absent" as const, vars: {}, warnings: [] }
    : await readSecretsEnv(options.secretsFile);
  const filled = unsetOnly(secrets.vars, options.env);
  const secretLayer = envConfigLayer(filled, `${secrets.file}: variable`);
  const file = await readConfigFile(options.configFile, ConfigLayerSchema);
  const env = envConfigLayer(options.env);
  const flags = validateLayer(
    options.flags ?? {},
    ConfigLayerSchema,
    (path) => `flag ${flagName(path)}`,
    "USAGE",
  );
  const warnings = [...secrets.warnings];
  const files: LayerFileReport[] = [];
  if (options.secretsFile !== undefined) {
    files.push({
      kind: "secrets",
      path: secrets.file,
      status: secrets.status,
      ...(secrets.status === "ignored" ? { detail: secrets.warnings[0] } : {}),
      ...(secrets.status === "read"
        ? {
          detail: `${Object.keys(secrets.vars).length} variables, ${
            Object.keys(filled).length
          } not already set`,
        }
        : {}),
    });
  }
  files.push({ kind: "user", path: options.configFile, status: file ? "read" : "absent" });
  const json = join(dirname(options.configFile), "config.json");
  if (json !== options.configFile && await exists(json)) {
    const detail =
      `${json} is not read: odek reads ${options.configFile} (JSONC). Rename it, or merge it into that file.`;
    files.push({ kind: "user", path: json, status: "misnamed", detail });
    warnings.push(detail);
  }
  return {
    secrets,
    filled,
    layers: [
      { kind: "secrets", source: secrets.file, layer: secretLayer.layer, names: secretLayer.names },
      { kind: "user", source: options.configFile, layer: file ?? {} },
      { kind: "env", source: "environment", layer: env.layer, names: env.names },
      { kind: "flags", source: "flags", layer: flags, names: flagNames(flags) },
    ],
    files,
    warnings,
  };
}

/**
 * Merge the user's layers (and a project layer, after the user file) over the defaults.
 *
 * @param layers what {@linkcode loadConfigLayers} read
 * @param project the project layer, already tightened (`tightenProjectLayer`)
 * @returns the configuration and each value's origin
 * @throws {OdekError} `CONFIG_INVALID` for an inconsistent `toolOutput`
 */
export function mergeUserLayers(layers: ConfigLayers, project?: SourcedLayer): MergedConfig {
  const [secrets, user, ...rest] = layers.layers;
  return mergeConfigLayers(project ? [secrets, user, project, ...rest] : layers.layers);
}

/**
 * Read, validate and merge the user's layers, then apply defaults.
 *
 * @returns the resolved configuration
 * @throws {OdekError} `CONFIG_INVALID` naming the file or variable, the key path, the value and
 *   the expected shape; `USAGE` (exit code 2) with the same details when the value came from a
 *   flag.
 *
 * @example Environment over defaults
 * ```ts
 * import { resolveConfig } from "./resolve_config.ts";
 * const config = await resolveConfig({ configFile: "/nonexistent/config.jsonc", env: { ODEK_MAX_ITERATIONS: "5" } });
 * if (config.budgets.maxIterations !== 5) throw new Error("env layer ignored");
 * ```
 */
export async function resolveConfig(options: ResolveConfigOptions): Promise<OdekConfig> {
  return mergeUserLayers(await loadConfigLayers(options)).config;
}

const FLAG_NAMES: Record<string, string> = {
  model: "--model",
  baseUrl: "--base-url",
  provider: "--provider",
  trustLevel: "--trust",
  dedicatedWorkspace: "--dedicated-workspace",
  "budgets.maxIterations": "--max-iterations",
  "budgets.maxRuntimeSeconds": "--max-runtime",
  "budgets.maxToolCalls": "--max-tool-calls",
  "budgets.maxInputTokens": "--max-input-tokens",
  "budgets.maxOutputTokens": "--max-output-tokens",
  "budgets.maxCostUsd": "--max-cost-usd",
};

function flagName(path: string): string {
  return FLAG_NAMES[path] ?? path;
}

function flagNames(layer: ConfigLayer): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [path, name] of Object.entries(FLAG_NAMES)) {
    const [head, tail] = path.split(".");
    const value = (layer as Record<string, unknown>)[head];
    const set = tail === undefined
      ? value !== undefined
      : (value as Record<string, unknown> | undefined)?.[tail] !== undefined;
    if (set) out[path] = name;
  }
  return out;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
