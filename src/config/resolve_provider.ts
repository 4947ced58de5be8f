/**
 * Which provider preset a run's configuration means, and the quirks that follow from it.
 *
 * @module
 */
import type { OdekConfig } from "./odek_config.ts";
import { PROVIDER_PRESETS, type ProviderPreset } from "./provider_presets.ts";
import { DEFAULT_QUIRKS, type ProviderQuirks } from "./provider_quirks.ts";

/** The preset a configuration means, and how odek found it. */
export interface ResolvedProvider {
  /** The preset, or none for an endpoint odek knows nothing about. */
  preset?: ProviderPreset;
  /**
   * `config`: `provider` names it; `base_url`: `provider` is `auto` and the base URL's host is a
   * preset's; `none`: no preset applies.
   */
  source: "config" | "base_url" | "none";
  /** The preset's quirks, or {@linkcode DEFAULT_QUIRKS}. */
  quirks: Readonly<ProviderQuirks>;
}

/**
 * The preset of a configuration: the one `provider` names; with `provider: "auto"`, the hosted
 * preset whose host is the base URL's (so `baseUrl: "https://api.groq.com/openai/v1"` gets Groq's
 * quirks and key variable); otherwise none. A named preset keeps its quirks when `--base-url`
 * points elsewhere (a proxy in front of the provider).
 *
 * @param config the resolved configuration (`provider`, `baseUrl`)
 * @returns the preset, where it came from, and the quirks to use
 *
 * @example
 * ```ts
 * import { resolveProvider } from "./resolve_provider.ts";
 * const auto = resolveProvider({ provider: "auto", baseUrl: "https://api.mistral.ai/v1" });
 * if (auto.preset?.name !== "mistral" || auto.quirks.streamUsage) throw new Error("not mistral");
 * const none = resolveProvider({ provider: "auto", baseUrl: "http://127.0.0.1:9/v1" });
 * if (none.source !== "none" || !none.quirks.streamUsage) throw new Error("unexpected preset");
 * ```
 */
export function resolveProvider(
  config: Pick<OdekConfig, "provider" | "baseUrl">,
): ResolvedProvider {
  if (config.provider !== "auto") {
    const preset = PROVIDER_PRESETS[config.provider];
    return { preset, source: "config", quirks: preset.quirks };
  }
  const preset = presetForBaseUrl(config.baseUrl);
  return preset
    ? { preset, source: "base_url", quirks: preset.quirks }
    : { source: "none", quirks: DEFAULT_QUIRKS };
}

/** The hosted preset whose host (or an alias) is `baseUrl`'s host; never a local one. */
export function presetForBaseUrl(baseUrl: string): ProviderPreset | undefined {
  let host: string;
  try {
    host = new URL(baseUrl).hostname.toLowerCase();
  } catch {
    return undefined;
  }
  return Object.values(PROVIDER_PRESETS).find((preset) => {
    const own = new URL(preset.baseUrl).hostname;
    return own !== "127.0.0.1" && (own === host || (preset.aliases ?? []).includes(host));
  });
}
