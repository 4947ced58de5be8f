/**
 * Which environment variable's value a run sends as its API key.
 *
 * @module
 */
import type { ProviderPreset } from "./provider_presets.ts";

/** The chosen key and the variable it came from. */
export interface ApiKeyChoice {
  /** The key; `undefined` when no variable in the order holds a non-empty value. */
  key?: string;
  /** The variable it was read from, e.g. `GROQ_API_KEY`. */
  variable?: string;
  /** The variables looked at, in order (for "set one of …" messages). */
  searched: string[];
}

/**
 * The API key, by precedence: `ODEK_API_KEY`, then the preset's own variable (`GROQ_API_KEY`,
 * …), then `OPENAI_API_KEY`. Empty values count as unset. Keys come only from the environment,
 * never from flags or config files (docs/configuration.md).
 *
 * @param env the environment variables
 * @param preset the run's provider preset, if any (see `resolveProvider`)
 * @returns the key, where it came from, and the order searched
 *
 * @example
 * ```ts
 * import { resolveApiKey } from "./resolve_api_key.ts";
 * const env = { OPENAI_API_KEY: "sk-openai", GROQ_API_KEY: "gsk-groq" };
 * const choice = resolveApiKey(env, { keyVariable: "GROQ_API_KEY" });
 * if (choice.key !== "gsk-groq" || choice.variable !== "GROQ_API_KEY") throw new Error("order");
 * ```
 */
export function resolveApiKey(
  env: Readonly<Record<string, string | undefined>>,
  preset?: Pick<ProviderPreset, "keyVariable">,
): ApiKeyChoice {
  const searched = [
    ...new Set([
      "ODEK_API_KEY",
      ...(preset?.keyVariable ? [preset.keyVariable] : []),
      "OPENAI_API_KEY",
    ]),
  ];
  for (const variable of searched) {
    const key = env[variable];
    if (key !== undefined && key !== "") return { key, variable, searched };
  }
  return { searched };
}
