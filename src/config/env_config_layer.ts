/**
 * The `ODEK_*` environment variables as a configuration layer.
 *
 * @module
 */
import { validateLayer } from "./_validate_layer.ts";
import { type ConfigLayer, ConfigLayerSchema } from "./odek_config.ts";

/** Where each environment variable goes. Values are parsed as numbers where the key wants one. */
export const ENV_KEYS: readonly [string, string][] = [
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
  ["ODEK_CHECKPOINTS", "checkpoints.enabled"],
  ["ODEK_QUEUE_URL", "queue.url"],
];
/** Keys whose environment value `true`/`1` or `false`/`0` becomes a boolean. */
const BOOLEAN = new Set(["context.compaction", "checkpoints.enabled"]);
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

/** The layer and the variable each key path came from. */
export interface EnvConfigLayer {
  layer: ConfigLayer;
  /** Key path (`budgets.maxIterations`) → variable (`ODEK_MAX_ITERATIONS`). */
  names: Record<string, string>;
}

/**
 * Turn `ODEK_*` variables (and `OPENAI_BASE_URL`, after `ODEK_BASE_URL` and unless
 * `ODEK_PROVIDER` is set) into a validated layer.
 *
 * @param env the variables
 * @param where how to name the variables' origin in errors @default "environment variable"
 * @returns the layer and the variable of each key path
 * @throws {OdekError} `CONFIG_INVALID` naming the variable, the value and the expected shape
 *
 * @example
 * ```ts
 * import { envConfigLayer } from "./env_config_layer.ts";
 * const { layer, names } = envConfigLayer({ ODEK_MAX_ITERATIONS: "5" });
 * if (layer.budgets?.maxIterations !== 5 || names["budgets.maxIterations"] !== "ODEK_MAX_ITERATIONS") throw new Error();
 * ```
 */
export function envConfigLayer(
  env: Readonly<Record<string, string | undefined>>,
  where = "environment variable",
): EnvConfigLayer {
  const layer: Record<string, unknown> = {};
  const names: Record<string, string> = {};
  // OPENAI_BASE_URL is a fallback other tools share: ODEK_PROVIDER's preset wins over it.
  const baseUrl = env.ODEK_BASE_URL ?? (env.ODEK_PROVIDER ? undefined : env.OPENAI_BASE_URL);
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
    names[path] = name === "ODEK_BASE_URL" && env.ODEK_BASE_URL === undefined
      ? "OPENAI_BASE_URL"
      : name;
  }
  // A list item's issue path ends in its index (network.allowDomains.1): name the list's variable.
  const sourceOf = (path: string) => names[path] ?? names[path.replace(/\.\d+$/, "")] ?? path;
  return {
    layer: validateLayer(layer, ConfigLayerSchema, (path) => `${where} ${sourceOf(path)}`),
    names,
  };
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split(".");
  let node = target;
  for (const key of keys.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
  node[keys[keys.length - 1]] = value;
}
