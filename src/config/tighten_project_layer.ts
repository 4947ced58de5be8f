/**
 * The trust rule of the project layer: each value a project file sets is compared with what the
 * earlier layers (defaults, `secrets.env`, the user's file) give, and only a tighter one is kept.
 * A looser one, or a key a project may not set at all, is ignored with one warning naming the key
 * and the file.
 *
 * @module
 */
import { matchAllowDomains } from "../_util/match_allow_domains.ts";
import { isPlainObject } from "./_validate_layer.ts";
import { formatKeyPath } from "./merge_config_layers.ts";
import type { ProjectMcpServer } from "./mcp_servers.ts";
import type { ConfigLayer, OdekConfig } from "./odek_config.ts";
import { hasRulesBelow, projectKeyRule } from "./project_key_rules.ts";
import type { ProjectLayer } from "./read_project_layer.ts";

/** What of a project layer takes effect. */
export interface TightenedProjectLayer {
  /** The accepted values only (merged after the user's file). */
  layer: ConfigLayer;
  /**
   * The project narrowed `network.allowDomains` to nothing (its list and the earlier layers' have
   * no entry in common, or it wrote `[]`): no egress at all.
   */
  noEgress: boolean;
  /** Project MCP servers: inert until the operator approves each (`approveProjectMcpServers`). */
  mcpServers: Record<string, ProjectMcpServer>;
  /** One per ignored key or dropped entry, each naming the key and the file. */
  warnings: string[];
}

const TRUST_ORDER = ["untrusted", "standard", "trusted"];
/** Keys that would reach an object's prototype when assigned. */
const UNSAFE_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Keep only what tightens: budgets and limits the lower (a budget's 0, meaning off, is the
 * loosest), trust the lower, deny rules and context files added, `network.allowDomains`
 * intersected (empty means no egress), a few keys with no bearing on containment taken as they
 * are (`model`, `context.*` tuning), and every other key — `baseUrl`, `provider`, API keys, the
 * system prompt, `trustedClasses`, `sandbox`, `addDirs`, hooks, approval policy, prices, and any
 * key the rule table does not list — ignored (`src/config/project_key_rules.ts`).
 *
 * @param project the project layer as read (validated)
 * @param base the configuration of the earlier layers (defaults, `secrets.env`, the user file)
 * @param file the project file, named in warnings
 * @returns the accepted layer, the MCP servers (inert) and the warnings
 *
 * @example A lower budget is kept, a base URL is not
 * ```ts
 * import { tightenProjectLayer } from "./tighten_project_layer.ts";
 * import { DEFAULT_CONFIG } from "./odek_config.ts";
 * const out = tightenProjectLayer(
 *   { budgets: { maxIterations: 10 }, baseUrl: "http://127.0.0.1:9/v1" },
 *   DEFAULT_CONFIG,
 *   "/w/odek.jsonc",
 * );
 * if (out.layer.budgets?.maxIterations !== 10 || out.layer.baseUrl !== undefined) throw new Error();
 * if (!out.warnings.some((w) => w.includes('"baseUrl"'))) throw new Error(out.warnings.join());
 * ```
 */
export function tightenProjectLayer(
  project: ProjectLayer,
  base: OdekConfig,
  file: string,
): TightenedProjectLayer {
  const accepted: Record<string, unknown> = {};
  const warnings: string[] = [];
  let noEgress = false;
  const ignore = (keys: string[], why: string) =>
    warnings.push(`${file}: "${formatKeyPath(keys)}" ignored: ${why}`);
  const { mcpServers = {}, ...rest } = project;
  const walk = (over: Record<string, unknown>, keys: string[]) => {
    for (const [key, value] of Object.entries(over)) {
      if (value === undefined) continue;
      const path = [...keys, key];
      if (UNSAFE_KEYS.has(key)) {
        ignore(path, "not a key odek has");
        continue;
      }
      const rule = projectKeyRule(path);
      if (rule === undefined) {
        if (isPlainObject(value) && hasRulesBelow(path)) walk(value, path);
        else ignore(path, "a project file may not set this key");
        continue;
      }
      const earlier = valueAt(base, path);
      const keep = (v: unknown) => setAt(accepted, path, v);
      switch (rule.type) {
        case "refuse":
          ignore(path, rule.why);
          break;
        case "free":
        case "union":
          keep(value);
          break;
        case "lower":
          if (typeof earlier !== "number" || (value as number) <= earlier) keep(value);
          else {ignore(
              path,
              `${value} is looser than ${earlier}, which the earlier layers give (a project may only lower it)`,
            );}
          break;
        case "lower_non_zero": {
          const n = value as number;
          const was = typeof earlier === "number" ? earlier : 0;
          if (n === 0 && was > 0) {
            ignore(path, `0 turns the limit off, looser than ${was} (a project may only lower it)`);
          } else if (n > 0 && was > 0 && n > was) {
            ignore(
              path,
              `${n} is looser than ${was}, which the earlier layers give (a project may only lower it)`,
            );
          } else if (n > 0) keep(n);
          break;
        }
        case "trust": {
          const asked = TRUST_ORDER.indexOf(value as string);
          const given = TRUST_ORDER.indexOf(earlier as string);
          if (asked <= given) keep(value);
          else {ignore(
              path,
              `"${value}" is looser than "${earlier}" (a project may only lower the trust level)`,
            );}
          break;
        }
        case "intersect": {
          const theirs = value as string[];
          const ours = (earlier as string[] | undefined) ?? [];
          const both = intersectDomains(ours, theirs);
          for (const entry of theirs) {
            if (!both.includes(entry) && !both.some((b) => matchAllowDomains(b, [entry]))) {
              ignore([...path, entry], "it is not allowed by the earlier layers' allow-list");
            }
          }
          keep(both);
          if (both.length === 0) noEgress = true;
          break;
        }
        default: {
          const unreachable: never = rule;
          throw new TypeError(`Unknown project key rule: ${JSON.stringify(unreachable)}`);
        }
      }
    }
  };
  walk(rest as Record<string, unknown>, []);
  const layer = accepted as ConfigLayer;
  const model = layer.model;
  if (model !== undefined && model !== base.model) {
    const prices = base.models[model];
    const costCap = Math.min(
      ...[base.budgets.maxCostUsd, layer.budgets?.maxCostUsd ?? 0].filter((n) => n > 0),
    );
    // deno-lint-ignore no-control-regex
    if (/[\u0000-\u001f\u007f-\u009f]/.test(model)) {
      delete layer.model;
      ignore(["model"], "a model id has no control characters");
    } else if (
      Number.isFinite(costCap) &&
      !(prices?.inputCostPerMillionUsd && prices?.outputCostPerMillionUsd)
    ) {
      // A model without your prices would turn your cost budget into a warning.
      delete layer.model;
      ignore(
        ["model"],
        `your cost budget ($${costCap}) could not be enforced for "${model}": your configuration has no prices for it (set models."${model}".inputCostPerMillionUsd and outputCostPerMillionUsd to allow it)`,
      );
    }
  }
  if (layer.toolOutput) {
    const combined = { ...base.toolOutput, ...layer.toolOutput };
    if (combined.headBytes + combined.tailBytes > combined.maxBytes) {
      delete layer.toolOutput;
      ignore(
        ["toolOutput"],
        "with the earlier layers' values, headBytes + tailBytes would exceed maxBytes",
      );
    }
  }
  return { layer, noEgress, mcpServers, warnings };
}

/**
 * The entries both allow-lists let through (`[]` in `ours` lets everything through): a project
 * entry the user's list covers, and a user entry the project's list covers.
 *
 * @param ours the earlier layers' `network.allowDomains` (`[]`: no allow-list)
 * @param theirs the project's
 * @returns the intersection (empty: nothing in common)
 */
export function intersectDomains(ours: readonly string[], theirs: readonly string[]): string[] {
  if (ours.length === 0) return [...new Set(theirs)];
  const out = new Set<string>();
  for (const entry of theirs) if (matchAllowDomains(bare(entry), ours)) out.add(entry);
  for (const entry of ours) if (matchAllowDomains(bare(entry), theirs)) out.add(entry);
  return [...out];
}

function bare(entry: string): string {
  return entry.replace(/^\*\./, "");
}

function valueAt(config: OdekConfig, keys: readonly string[]): unknown {
  let node: unknown = config;
  for (const key of keys) {
    if (!isPlainObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

function setAt(target: Record<string, unknown>, keys: readonly string[], value: unknown): void {
  let node = target;
  for (const key of keys.slice(0, -1)) {
    if (!isPlainObject(node[key])) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1]] = value;
}
