/**
 * Flags shared by `odek run` and `odek continue`, parsed with `node:util` parseArgs.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { OdekError } from "../_util/odek_error.ts";
import { flagError } from "./flag_error.ts";
import { parseYesFlag } from "../approval/parse_yes_flag.ts";
import type { ConfigLayer } from "../config/odek_config.ts";
import {
  PROVIDER_PRESETS,
  type ProviderName,
  type ProviderPreset,
} from "../config/provider_presets.ts";
import type { RiskClass } from "../danger/verdict.ts";
import { parseDurationSeconds } from "./parse_duration_seconds.ts";

/** Parsed flags of `run`/`continue`/`chat`. */
export interface RunFlags {
  /**
   * The config layer the flags form (`--model`, `--base-url`, `--provider`, `--trust`,
   * `--max-iterations` and the other budgets).
   */
  layer: ConfigLayer;
  workspace?: string;
  /** `--add-dir PATH[:ro]`, repeatable, as given (relative to the caller's directory). */
  addDirs: string[];
  /** `--dedicated-workspace`: work in the private directory beside ODEK_HOME. */
  dedicatedWorkspace: boolean;
  session?: string;
  system?: string;
  json: boolean;
  record?: string;
  replay?: string;
  /** `--events-jsonl FILE`: the audit sink's path, as given. */
  eventsJsonl?: string;
  /** `--print` (`continue`): one run and exit, even at a terminal. */
  print: boolean;
  /** `--yes` (every ask but destructive/privileged/unknown) or `--yes=<class>,…` (exactly those). */
  yes?: "all" | RiskClass[];
  help: boolean;
  positionals: string[];
}

const SHARED = {
  model: { type: "string" },
  "base-url": { type: "string" },
  provider: { type: "string" },
  workspace: { type: "string" },
  "add-dir": { type: "string", multiple: true },
  "allow-host-port": { type: "string", multiple: true },
  "dedicated-workspace": { type: "boolean" },
  "max-iterations": { type: "string" },
  "max-runtime": { type: "string" },
  "max-tool-calls": { type: "string" },
  "max-input-tokens": { type: "string" },
  "max-output-tokens": { type: "string" },
  "max-cost-usd": { type: "string" },
  "events-jsonl": { type: "string" },
  json: { type: "boolean" },
  record: { type: "string" },
  replay: { type: "string" },
  trust: { type: "string" },
  yes: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;
const RUN_ONLY = { session: { type: "string" }, system: { type: "string" } } as const;
const CONTINUE_ONLY = { print: { type: "boolean" } } as const;
const CHAT_ONLY = { system: { type: "string" } } as const;

/**
 * Parse the flags of `run` (`command: "run"`), `continue` (with `--print`) or `chat` (with
 * `--system`).
 *
 * @throws {OdekError} `USAGE` for an unknown flag, a missing value, or a bad number.
 *
 * @example
 * ```ts
 * import { parseRunFlags } from "./parse_run_flags.ts";
 * const f = parseRunFlags(["--max-iterations", "3", "fix it"], "run");
 * if (f.layer.budgets?.maxIterations !== 3 || f.positionals[0] !== "fix it") throw new Error("parse");
 * ```
 */
export function parseRunFlags(
  args: string[],
  command: "run" | "continue" | "chat",
): RunFlags {
  let parsed;
  try {
    parsed = parseArgs({
      // A bare --yes means every askable class; parseArgs needs it spelled with a value.
      args: args.map((arg) => (arg === "--yes" ? "--yes=all" : arg)),
      options: command === "run"
        ? { ...SHARED, ...RUN_ONLY }
        : command === "chat"
        ? { ...SHARED, ...CHAT_ONLY }
        : { ...SHARED, ...CONTINUE_ONLY },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw flagError(error, command);
  }
  const v = parsed.values as Record<string, string | boolean | string[] | undefined>;
  if (v.record && v.replay) {
    throw new OdekError(
      "USAGE",
      `--record and --replay cannot be used together. Run "odek ${command} --help".`,
    );
  }
  if (v["events-jsonl"] === "") {
    throw new OdekError(
      "USAGE",
      `--events-jsonl takes a file path, got an empty one. Run "odek ${command} --help".`,
    );
  }
  if (typeof v.workspace === "string" && v["dedicated-workspace"] === true) {
    throw new OdekError(
      "USAGE",
      `--workspace and --dedicated-workspace choose different directories: pass one. Run "odek ${command} --help".`,
    );
  }
  const layer: ConfigLayer = {};
  if (v["dedicated-workspace"] === true) layer.dedicatedWorkspace = true;
  if (typeof v.model === "string") layer.model = v.model;
  if (typeof v["base-url"] === "string") layer.baseUrl = v["base-url"];
  if (typeof v.provider === "string") {
    layer.provider = v.provider as ConfigLayer["provider"];
    // The preset's base URL, so `continue --provider` moves a session too; --base-url wins.
    const preset: ProviderPreset | undefined = Object.hasOwn(PROVIDER_PRESETS, v.provider)
      ? PROVIDER_PRESETS[v.provider as ProviderName]
      : undefined;
    if (preset && layer.baseUrl === undefined) layer.baseUrl = preset.baseUrl;
  }
  if (typeof v.trust === "string") layer.trustLevel = v.trust as ConfigLayer["trustLevel"];
  const budgets: NonNullable<ConfigLayer["budgets"]> = {};
  const usage = (flag: string, what: string, raw: string) =>
    new OdekError("USAGE", `--${flag} takes ${what}, got "${raw}". Run "odek ${command} --help".`);
  const whole = (flag: string, key: keyof typeof budgets) => {
    const raw = v[flag];
    if (typeof raw !== "string") return;
    if (!/^\d+$/.test(raw)) throw usage(flag, "a whole number", raw);
    budgets[key] = Number(raw);
  };
  whole("max-iterations", "maxIterations");
  whole("max-tool-calls", "maxToolCalls");
  whole("max-input-tokens", "maxInputTokens");
  whole("max-output-tokens", "maxOutputTokens");
  if (typeof v["max-runtime"] === "string") {
    try {
      budgets.maxRuntimeSeconds = parseDurationSeconds(v["max-runtime"]);
    } catch {
      throw usage("max-runtime", "a duration such as 90, 90s, 5m or 2h", v["max-runtime"]);
    }
  }
  if (typeof v["max-cost-usd"] === "string") {
    const raw = v["max-cost-usd"];
    if (!/^\d+(\.\d+)?$/.test(raw)) {
      throw usage("max-cost-usd", "an amount in US dollars such as 2.50", raw);
    }
    budgets.maxCostUsd = Number(raw);
  }
  if (Object.keys(budgets).length > 0) layer.budgets = budgets;
  const ports = (v["allow-host-port"] as string[] | undefined) ?? [];
  for (const raw of ports) {
    if (!/^\d{1,5}$/.test(raw) || Number(raw) < 1 || Number(raw) > 65535) {
      throw usage("allow-host-port", "a port from 1 to 65535", raw);
    }
  }
  if (ports.length > 0) layer.network = { allowHostPorts: ports.map(Number) };
  return {
    layer,
    workspace: v.workspace as string | undefined,
    addDirs: (v["add-dir"] as string[] | undefined) ?? [],
    dedicatedWorkspace: v["dedicated-workspace"] === true,
    session: v.session as string | undefined,
    system: v.system as string | undefined,
    json: v.json === true,
    record: v.record as string | undefined,
    replay: v.replay as string | undefined,
    eventsJsonl: v["events-jsonl"] as string | undefined,
    ...(typeof v.yes === "string"
      ? { yes: parseYesFlag(v.yes === "all" ? true : (v.yes as string)) }
      : {}),
    print: v.print === true,
    help: v.help === true,
    positionals: parsed.positionals,
  };
}
