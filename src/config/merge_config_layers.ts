/**
 * Merging configuration layers, later wins key by key, remembering which layer set each value
 * (for `odek config show`). Deny rules and context files are the union of every layer's.
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";
import { isPlainObject } from "./_validate_layer.ts";
import { type ConfigLayer, DEFAULT_CONFIG, type OdekConfig } from "./odek_config.ts";
import { PROVIDER_PRESETS } from "./provider_presets.ts";

/** The layers, lowest first: defaults, `secrets.env`, the user file, the project file, env, flags. */
export type LayerKind = "default" | "secrets" | "user" | "project" | "env" | "flags";

/** One validated layer and where it came from. */
export interface SourcedLayer {
  kind: LayerKind;
  /** The file it was read from, `environment` or `flags`. */
  source: string;
  layer: ConfigLayer;
  /** A finer name per key path, e.g. `budgets.maxIterations` → `ODEK_MAX_ITERATIONS`. */
  names?: Record<string, string>;
}

/** Which layer gave a value. */
export interface ValueOrigin {
  kind: LayerKind;
  /** The file, the environment variable or the flag. */
  source: string;
}

/** The merged configuration and the origin of its values. */
export interface MergedConfig {
  config: OdekConfig;
  /**
   * Origin per key path (`formatKeyPath`) of every value a layer set; a path without an entry
   * (or whose nearest ancestor has none) is a default.
   */
  origins: Record<string, ValueOrigin>;
  /** Per list that every layer adds to (`deny.commands`, `contextFiles`, …): each item's origin. */
  itemOrigins: Record<string, ValueOrigin[]>;
}

/** Lists whose items every layer adds to instead of replacing. */
export const ADDITIVE_KEYS: readonly string[] = [
  "deny.commands",
  "deny.paths",
  "deny.domains",
  "contextFiles",
];

/**
 * A key path as shown to the operator: identifiers joined with `.`, other keys quoted
 * (`models["gpt-4.1"].contextWindow`).
 *
 * @param keys the path's keys
 * @returns the printable path
 *
 * @example
 * ```ts
 * import { formatKeyPath } from "./merge_config_layers.ts";
 * if (formatKeyPath(["models", "gpt-4.1", "contextWindow"]) !== 'models["gpt-4.1"].contextWindow') throw new Error();
 * ```
 */
export function formatKeyPath(keys: readonly string[]): string {
  return keys.map((key, i) =>
    /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? (i === 0 ? key : `.${key}`) : `[${JSON.stringify(key)}]`
  ).join("");
}

/**
 * Merge layers over the defaults, later wins; lists in {@linkcode ADDITIVE_KEYS} collect every
 * layer's items (each once). A layer that names a provider preset also sets the preset's base URL
 * unless it sets `baseUrl` itself (so a later `--base-url` still wins).
 *
 * @param layers lowest first
 * @returns the configuration and the origins
 * @throws {OdekError} `CONFIG_INVALID` when the merged `toolOutput` is inconsistent
 *
 * @example Env over file, deny rules kept from both
 * ```ts
 * import { mergeConfigLayers } from "./merge_config_layers.ts";
 * const merged = mergeConfigLayers([
 *   { kind: "user", source: "/h/.odek/config.jsonc", layer: { model: "a", deny: { commands: ["git push"] } } },
 *   { kind: "env", source: "environment", layer: { model: "b" }, names: { model: "ODEK_MODEL" } },
 * ]);
 * if (merged.config.model !== "b" || merged.origins.model.source !== "ODEK_MODEL") throw new Error();
 * if (merged.config.deny.commands[0] !== "git push") throw new Error();
 * ```
 */
export function mergeConfigLayers(layers: readonly SourcedLayer[]): MergedConfig {
  const config = structuredClone(DEFAULT_CONFIG) as unknown as Record<string, unknown>;
  const origins: Record<string, ValueOrigin> = {};
  const itemOrigins: Record<string, ValueOrigin[]> = {};
  for (const sourced of layers) {
    const layer = withPresetBaseUrl(sourced.layer);
    const originAt = (dotted: string): ValueOrigin => ({
      kind: sourced.kind,
      source: sourced.names?.[dotted] ?? sourced.source,
    });
    const walk = (over: Record<string, unknown>, base: Record<string, unknown>, keys: string[]) => {
      for (const [key, value] of Object.entries(over)) {
        if (value === undefined || key === "__proto__") continue;
        const path = [...keys, key];
        const dotted = path.join(".");
        const current = base[key];
        if (ADDITIVE_KEYS.includes(dotted) && Array.isArray(value)) {
          const list = Array.isArray(current) ? [...current] : [];
          const from = itemOrigins[dotted] ?? [];
          for (const item of value) {
            if (list.includes(item)) continue;
            list.push(item);
            from.push(originAt(dotted));
          }
          base[key] = list;
          itemOrigins[dotted] = from;
        } else if (isPlainObject(value) && isPlainObject(current)) {
          const copy = { ...current };
          base[key] = copy;
          walk(value, copy, path);
        } else {
          base[key] = structuredClone(value);
          origins[formatKeyPath(path)] = originAt(dotted);
        }
      }
    };
    walk(layer as Record<string, unknown>, config, []);
  }
  const merged = config as unknown as OdekConfig;
  const { maxBytes, headBytes, tailBytes } = merged.toolOutput;
  if (headBytes + tailBytes > maxBytes) {
    throw new OdekError(
      "CONFIG_INVALID",
      `toolOutput.headBytes (${headBytes}) + toolOutput.tailBytes (${tailBytes}) exceed toolOutput.maxBytes (${maxBytes}): a cut result would be longer than the cap. Lower headBytes or tailBytes, or raise maxBytes.`,
    );
  }
  return { config: merged, origins, itemOrigins };
}

/**
 * The origin of the value at `keys`: its own, else its nearest ancestor's, else the default.
 *
 * @param merged what {@linkcode mergeConfigLayers} returned
 * @param keys the value's key path
 * @returns the origin
 */
export function originOf(merged: MergedConfig, keys: readonly string[]): ValueOrigin {
  for (let n = keys.length; n > 0; n--) {
    const origin = merged.origins[formatKeyPath(keys.slice(0, n))];
    if (origin) return origin;
  }
  return { kind: "default", source: "default" };
}

function withPresetBaseUrl(layer: ConfigLayer): ConfigLayer {
  if (layer.provider === undefined || layer.provider === "auto" || layer.baseUrl !== undefined) {
    return layer;
  }
  return { ...layer, baseUrl: PROVIDER_PRESETS[layer.provider].baseUrl };
}
