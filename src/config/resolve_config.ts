/**
 * Layered configuration: `ODEK_HOME/config.jsonc`, then `ODEK_*` environment variables, then
 * flags (highest). Each layer is validated on its own so an error names its source.
 *
 * @module
 */
import { parse, type ParseError, printParseErrorCode } from "jsonc-parser";
import type { z } from "zod";
import { OdekError } from "../_util/odek_error.ts";
import {
  type ConfigLayer,
  ConfigLayerSchema,
  DEFAULT_CONFIG,
  type OdekConfig,
} from "./odek_config.ts";
import { PROVIDER_PRESETS } from "./provider_presets.ts";

/** Largest config file read, in bytes (5 MiB, odek-go §2.1). */
export const MAX_CONFIG_BYTES = 5 * 1024 * 1024;

/** Where each environment variable goes. Values are parsed as numbers where the key wants one. */
const ENV_KEYS: readonly [string, string][] = [
  ["ODEK_MODEL", "model"],
  ["ODEK_BASE_URL", "baseUrl"],
  ["ODEK_PROVIDER", "provider"],
  ["ODEK_CONTEXT_WINDOW", "contextWindow"],
  ["ODEK_SANDBOX", "sandbox"],
  ["ODEK_SANDBOX_MAX_PROCESSES", "sandboxMaxProcesses"],
  ["ODEK_SANDBOX_TMPFS_MIB", "sandboxTmpfsMiB"],
  ["ODEK_TRUST_LEVEL", "trustLevel"],
  ["ODEK_REQUEST_TIMEOUT_SECONDS", "timeouts.requestSeconds"],
  ["ODEK_SHELL_TIMEOUT_SECONDS", "timeouts.shellSeconds"],
  ["ODEK_CONNECT_TIMEOUT_SECONDS", "timeouts.connectSeconds"],
  ["ODEK_STREAM_IDLE_SECONDS", "timeouts.streamIdleSeconds"],
  ["ODEK_RETRY_MAX_ATTEMPTS", "retry.maxAttempts"],
  ["ODEK_RETRY_BASE_MS", "retry.baseMs"],
  ["ODEK_MAX_ITERATIONS", "budgets.maxIterations"],
  ["ODEK_MAX_TOOL_PARALLEL", "budgets.maxToolParallel"],
  ["ODEK_COMPACTION", "context.compaction"],
  ["ODEK_MAX_RUNTIME_SECONDS", "budgets.maxRuntimeSeconds"],
  ["ODEK_MAX_TOOL_CALLS", "budgets.maxToolCalls"],
  ["ODEK_MAX_INPUT_TOKENS", "budgets.maxInputTokens"],
  ["ODEK_MAX_OUTPUT_TOKENS", "budgets.maxOutputTokens"],
  ["ODEK_MAX_COST_USD", "budgets.maxCostUsd"],
  ["ODEK_TOOL_OUTPUT_MAX_BYTES", "toolOutput.maxBytes"],
  ["ODEK_TOOL_OUTPUT_HEAD_BYTES", "toolOutput.headBytes"],
  ["ODEK_TOOL_OUTPUT_TAIL_BYTES", "toolOutput.tailBytes"],
  ["ODEK_ALLOW_DOMAINS", "network.allowDomains"],
];
/** Keys whose environment value `true`/`1` or `false`/`0` becomes a boolean. */
const BOOLEAN = new Set(["context.compaction"]);
/** Keys whose environment value is a comma-separated list. */
const LISTS = new Set(["network.allowDomains"]);
const NUMERIC = new Set([
  "contextWindow",
  "sandboxMaxProcesses",
  "sandboxTmpfsMiB",
  "timeouts.requestSeconds",
  "timeouts.shellSeconds",
  "timeouts.connectSeconds",
  "timeouts.streamIdleSeconds",
  "retry.maxAttempts",
  "retry.baseMs",
  "budgets.maxIterations",
  "budgets.maxToolParallel",
  "budgets.maxRuntimeSeconds",
  "budgets.maxToolCalls",
  "budgets.maxInputTokens",
  "budgets.maxOutputTokens",
  "budgets.maxCostUsd",
  "toolOutput.maxBytes",
  "toolOutput.headBytes",
  "toolOutput.tailBytes",
]);

/** Inputs of {@linkcode resolveConfig}. */
export interface ResolveConfigOptions {
  /** Path of the config file; a missing file is an empty layer. */
  configFile: string;
  /** The environment to read `ODEK_*` (and `OPENAI_BASE_URL`) from. */
  env: Record<string, string>;
  /** The flag layer, already shaped like a config layer (keys set only for given flags). */
  flags?: ConfigLayer;
}

/**
 * Read, validate and merge the layers, then apply defaults.
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
  const fileLayer = await readConfigFile(options.configFile);
  const envLayer = envConfigLayer(options.env);
  const flagLayer = validateLayer(options.flags ?? {}, (path) => `flag ${flagName(path)}`, "USAGE");
  const layers = [fileLayer, envLayer, flagLayer].map(withPresetBaseUrl);
  const merged = layers.reduce<Record<string, unknown>>(
    (acc, layer) => deepMerge(acc, layer as Record<string, unknown>),
    structuredClone(DEFAULT_CONFIG) as unknown as Record<string, unknown>,
  );
  const config = merged as unknown as OdekConfig;
  const { maxBytes, headBytes, tailBytes } = config.toolOutput;
  if (headBytes + tailBytes > maxBytes) {
    throw new OdekError(
      "CONFIG_INVALID",
      `toolOutput.headBytes (${headBytes}) + toolOutput.tailBytes (${tailBytes}) exceed toolOutput.maxBytes (${maxBytes}): a cut result would be longer than the cap. Lower headBytes or tailBytes, or raise maxBytes.`,
    );
  }
  return config;
}

/**
 * A layer that names a provider preset also sets the preset's base URL, unless it sets `baseUrl`
 * itself: a later layer's `baseUrl` (e.g. `--base-url`) still wins, and a later `--provider`
 * wins over an earlier `baseUrl`.
 */
function withPresetBaseUrl(layer: ConfigLayer): ConfigLayer {
  if (layer.provider === undefined || layer.provider === "auto" || layer.baseUrl !== undefined) {
    return layer;
  }
  return { ...layer, baseUrl: PROVIDER_PRESETS[layer.provider].baseUrl };
}

async function readConfigFile(file: string): Promise<ConfigLayer> {
  let text: string;
  try {
    const info = await Deno.stat(file);
    if (!info.isFile) {
      throw new OdekError(
        "CONFIG_INVALID",
        `Cannot read ${file}: it is not a regular file. Replace it with a JSONC file or remove it.`,
      );
    }
    if (info.size > MAX_CONFIG_BYTES) {
      throw new OdekError(
        "CONFIG_INVALID",
        `Cannot read ${file}: it is ${info.size} bytes, more than the 5 MiB a config file may have. Shrink it.`,
      );
    }
    text = await Deno.readTextFile(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return {};
    if (error instanceof OdekError) throw error;
    throw new OdekError(
      "CONFIG_INVALID",
      `Cannot read ${file}: ${(error as Error).message}. Check its permissions.`,
      { cause: error },
    );
  }
  const errors: ParseError[] = [];
  let data: unknown;
  try {
    data = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  } catch (error) {
    throw new OdekError(
      "CONFIG_INVALID",
      `Cannot parse ${file}: it is nested too deeply (${(error as Error).message}). Fix the file.`,
      { cause: error },
    );
  }
  if (errors.length > 0) {
    const first = errors[0];
    const { line, column } = lineColumn(text, first.offset);
    // "CommaExpected" → "comma expected"
    const what = printParseErrorCode(first.error).replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
    throw new OdekError(
      "CONFIG_INVALID",
      `Cannot parse ${file} at line ${line}, column ${column}: ${what}. Fix the JSONC syntax there.`,
    );
  }
  if (data === undefined) return {};
  return validateLayer(data, () => file);
}

function envConfigLayer(env: Record<string, string>): ConfigLayer {
  const layer: Record<string, unknown> = {};
  const sources = new Map<string, string>();
  // OPENAI_BASE_URL is a fallback other tools share: ODEK_PROVIDER's preset wins over it.
  const baseUrl = env.ODEK_BASE_URL ??
    (env.ODEK_PROVIDER ? undefined : env.OPENAI_BASE_URL);
  for (const [name, path] of ENV_KEYS) {
    const raw = name === "ODEK_BASE_URL" ? baseUrl : env[name];
    if (raw === undefined || raw === "") continue;
    const value = LISTS.has(path)
      ? raw.split(",").map((item) => item.trim()).filter((item) => item !== "")
      : NUMERIC.has(path) && /^-?\d+(\.\d+)?$/.test(raw.trim())
      ? Number(raw)
      : BOOLEAN.has(path) && /^(true|1|false|0)$/i.test(raw.trim())
      ? /^(true|1)$/i.test(raw.trim())
      : raw;
    setPath(layer, path, value);
    sources.set(
      path,
      name === "ODEK_BASE_URL" && env.ODEK_BASE_URL === undefined ? "OPENAI_BASE_URL" : name,
    );
  }
  // A list item's issue path ends in its index (network.allowDomains.1): name the list's variable.
  const sourceOf = (path: string) =>
    sources.get(path) ?? sources.get(path.replace(/\.\d+$/, "")) ?? path;
  return validateLayer(layer, (path) => `environment variable ${sourceOf(path)}`);
}

function validateLayer(
  data: unknown,
  source: (path: string) => string,
  code: "CONFIG_INVALID" | "USAGE" = "CONFIG_INVALID",
): ConfigLayer {
  const result = ConfigLayerSchema.safeParse(data);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue.path.map(String).join(".");
  throw new OdekError(code, describeIssue(issue, data, source(path)));
}

function describeIssue(issue: z.core.$ZodIssue, data: unknown, where: string): string {
  const path = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((k) => (path ? `${path}.${k}` : k)).join(", ");
    const known = Object.keys(getPath(DEFAULT_CONFIG, issue.path.map(String)) as object ?? {});
    const guess = closest(issue.keys[0], known);
    const hint = guess ? ` Did you mean "${path ? `${path}.${guess}` : guess}"?` : "";
    return `Invalid configuration in ${where}: unknown key ${keys}.${hint} Remove it or check its spelling (see docs/configuration.md).`;
  }
  const value = JSON.stringify(getPath(data, issue.path.map(String)));
  return `Invalid configuration in ${where} at "${path || "(root)"}": got ${
    value ?? "nothing"
  }, expected ${expected(issue)}. See docs/configuration.md.`;
}

function expected(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.expected === "int" ? "a whole number" : `a ${issue.expected}`;
    case "too_big":
      return `a ${
        issue.origin === "string" ? "string of length" : "number"
      } at most ${issue.maximum}`;
    case "too_small":
      return `a ${
        issue.origin === "string" ? "string of length" : "number"
      } at least ${issue.minimum}`;
    case "invalid_value":
      return `one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "invalid_union": {
      // Each alternative's first problem, e.g. an MCP server without "command" and without "url".
      const branches = issue.errors.map((list) => list[0]).filter((i) => i !== undefined).map((
        i,
      ) => `${i.path.length > 0 ? `"${i.path.map(String).join(".")}": ` : ""}${expected(i)}`);
      return branches.length > 0 ? `either ${branches.join(", or ")}` : "one of the allowed shapes";
    }
    case "invalid_format":
      if (issue.format === "url") return "an http:// or https:// URL";
      return issue.format === "regex" ? issue.message : `a ${issue.format}`;
    default:
      return issue.message.replace(/^Invalid input: /, "").toLowerCase();
  }
}

/** The known key within edit distance 2 of `key` (case-insensitive), if any. */
function closest(key: string, known: string[]): string | undefined {
  const distance = (a: string, b: string): number => {
    const row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      let diagonal = row[0];
      row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const above = row[j];
        row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
        diagonal = above;
      }
    }
    return row[b.length];
  };
  const scored = known.map((k) => [k, distance(key.toLowerCase(), k.toLowerCase())] as const);
  const best = scored.sort((x, y) => x[1] - y[1])[0];
  return best && best[1] <= 2 ? best[0] : undefined;
}

function flagName(path: string): string {
  const map: Record<string, string> = {
    model: "--model",
    baseUrl: "--base-url",
    provider: "--provider",
    "budgets.maxIterations": "--max-iterations",
    "budgets.maxRuntimeSeconds": "--max-runtime",
    "budgets.maxToolCalls": "--max-tool-calls",
    "budgets.maxInputTokens": "--max-input-tokens",
    "budgets.maxOutputTokens": "--max-output-tokens",
    "budgets.maxCostUsd": "--max-cost-usd",
  };
  return map[path] ?? path;
}

function deepMerge(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
): Record<string, unknown> {
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    const current = base[key];
    base[key] = isPlainObject(value) && isPlainObject(current)
      ? deepMerge({ ...current }, value)
      : value;
  }
  return base;
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split(".");
  let node = target;
  for (const key of keys.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
  node[keys[keys.length - 1]] = value;
}

function getPath(data: unknown, keys: string[]): unknown {
  return keys.reduce<unknown>(
    (node, key) =>
      isPlainObject(node) ? node[key] : Array.isArray(node) ? node[Number(key)] : undefined,
    data,
  );
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: before[before.length - 1].length + 1 };
}
