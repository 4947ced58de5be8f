/**
 * The model client of a session host: the factory seam, the default OpenAI-compatible client,
 * and the cassettes (`--record`, `--replay`).
 *
 * @module
 */
import { basename, dirname, join } from "node:path";
import { OdekError } from "../_util/odek_error.ts";
import type { OdekConfig } from "../config/odek_config.ts";
import { resolveApiKey } from "../config/resolve_api_key.ts";
import { resolveProvider } from "../config/resolve_provider.ts";
import { isInside } from "../config/validate_workspace.ts";
import type { Clock } from "../llm/clock.ts";
import type { Model } from "../llm/model.ts";
import { OpenAIModel } from "../llm/openai_model.ts";
import { recordingFetch } from "../llm/recording_fetch.ts";
import { replayFetch } from "../llm/replay_fetch.ts";
import type { Settings } from "./compose.ts";

/**
 * What names the model of a session host, and how to reach it.
 *
 * @example What a factory is given
 * ```ts
 * import type { ModelSpec } from "./build_model.ts";
 * import { DEFAULT_CONFIG } from "../config/odek_config.ts";
 * const spec: ModelSpec = {
 *   model: "gpt-4.1-mini",
 *   baseUrl: "http://127.0.0.1:8080/v1",
 *   apiKey: undefined,
 *   config: DEFAULT_CONFIG,
 * };
 * if (new URL(spec.baseUrl).hostname !== "127.0.0.1") throw new Error("base URL");
 * ```
 */
export interface ModelSpec {
  /** The model id sent to the provider. */
  model: string;
  /** The OpenAI-compatible base URL. */
  baseUrl: string;
  /** The API key (never logged, never passed to a child). */
  apiKey: string | undefined;
  /** The configuration the host runs with (timeouts, retries). */
  config: OdekConfig;
  /** The `fetch` the client uses: a cassette's, the runtime's injected one, or the global. */
  fetch?: typeof fetch;
  /** The clock of the client's retries and timeouts. */
  clock?: Clock;
}

/**
 * Makes the model client of a session host. The runtime's default is {@linkcode openAIModelFor}
 * (which refuses a remote endpoint without an API key); tests inject a scripted model. A factory
 * may throw an `OdekError` for what the operator must fix.
 *
 * @example A scripted model for every host
 * ```ts
 * import type { ModelFactory } from "./build_model.ts";
 * import { ScriptedModel } from "../testing/scripted_model.ts";
 * const factory: ModelFactory = (spec) => new ScriptedModel([{ text: `Hello from ${spec.model}.` }]);
 * const model = await factory({ model: "m", baseUrl: "http://127.0.0.1:1/v1", apiKey: undefined, config: (await import("../config/odek_config.ts")).DEFAULT_CONFIG });
 * const reply = await model.complete({ messages: [{ role: "user", content: "hi" }], tools: [], iteration: 1 });
 * if (reply.message.content !== "Hello from m.") throw new Error(String(reply.message.content));
 * ```
 */
export type ModelFactory = (spec: ModelSpec) => Model | Promise<Model>;

/** The default {@linkcode ModelFactory}: the OpenAI-compatible client with odek's settings. */
export function openAIModelFor(spec: ModelSpec): Model {
  const { config } = spec;
  return new OpenAIModel({
    baseURL: spec.baseUrl,
    apiKey: spec.apiKey ?? "odek-no-key",
    model: spec.model,
    // The preset's quirks (docs/model_client.md): named by `provider`, or found by the base URL.
    quirks: resolveProvider({ provider: config.provider, baseUrl: spec.baseUrl }).quirks,
    requestTimeoutMs: config.timeouts.requestSeconds * 1000,
    connectTimeoutMs: config.timeouts.connectSeconds * 1000,
    streamIdleTimeoutMs: config.timeouts.streamIdleSeconds * 1000,
    retry: {
      maxAttempts: config.retry.maxAttempts,
      baseMs: config.retry.baseMs,
      maxMs: Math.max(config.retry.maxMs, config.retry.baseMs),
      retryAfterCapMs: config.retry.retryAfterCapSeconds * 1000,
    },
    ...(spec.fetch ? { fetch: spec.fetch } : {}),
    ...(spec.clock ? { clock: spec.clock } : {}),
  });
}

/** What {@linkcode buildModel} needs besides the settings. */
export interface BuildModelOptions {
  model: string;
  baseUrl: string;
  /** A cassette to record to (absolute). */
  record?: string;
  /** A cassette to replay from (absolute). */
  replay?: string;
  factory: ModelFactory;
  fetch?: typeof fetch;
  clock?: Clock;
}

/**
 * The model for a session host: made by the factory, optionally recording to or replaying from a
 * cassette.
 *
 * @throws {OdekError} `USAGE` for a cassette that cannot be written, `MISSING_API_KEY`, and the
 *   cassette's own errors
 */
export async function buildModel(settings: Settings, options: BuildModelOptions): Promise<Model> {
  const { config, apiKey, redact } = settings;
  let fetchImpl: typeof fetch | undefined = options.fetch;
  if (options.replay) fetchImpl = await replayFetch(options.replay);
  else if (options.record) {
    const file = options.record;
    const folder = await Deno.stat(dirname(file)).catch(() => null);
    if (!folder?.isDirectory) {
      throw new OdekError(
        "USAGE",
        `Cannot record to ${file}: the folder ${dirname(file)} does not exist. Create it first.`,
      );
    }
    await refuseToReplace(file, settings.paths.odekHome);
    fetchImpl = recordingFetch(file, { redact, ...(fetchImpl ? { inner: fetchImpl } : {}) });
  }
  // The default client needs a key for a remote endpoint; an injected factory decides itself.
  const needsKey = options.factory === openAIModelFor && !options.replay;
  if (needsKey && !apiKey && !isLoopbackUrl(options.baseUrl)) {
    const { searched } = resolveApiKey(
      {},
      resolveProvider({ provider: config.provider, baseUrl: options.baseUrl }).preset,
    );
    throw new OdekError(
      "MISSING_API_KEY",
      `No API key for ${options.baseUrl}: set ${
        searched.join(", ")
      } (the first one set is used) in the environment or in ODEK_HOME/secrets.env (mode 0600). Keys are never read from flags or config files.${
        settings.layers.secrets.status === "ignored"
          ? ` Your secrets.env was not read: ${
            settings.layers.secrets.warnings[0] ?? "see odek doctor"
          }`
          : ""
      }`,
    );
  }
  return await options.factory({
    model: options.model,
    baseUrl: options.baseUrl,
    apiKey,
    config,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
}

function isLoopbackUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
    return host === "localhost" || host === "::1" || /^127\./.test(host);
  } catch {
    return false;
  }
}

/**
 * `--record` replaces its file after every turn: refuse a file that is not a cassette already
 * (a source file, a session journal, the config) and anything inside `ODEK_HOME`.
 */
async function refuseToReplace(file: string, odekHome: string): Promise<void> {
  const home = await Deno.realPath(odekHome).catch(() => odekHome);
  const real = join(await Deno.realPath(dirname(file)).catch(() => dirname(file)), basename(file));
  if (isInside(real, home)) {
    throw new OdekError(
      "USAGE",
      `Cannot record to ${file}: it is inside ${home}, where odek keeps its sessions and configuration. Choose a path outside it.`,
    );
  }
  const text = await Deno.readTextFile(file).catch(() => null);
  if (text === null) return; // a new file (or one that cannot be read: writing will say why)
  let schema: unknown;
  try {
    schema = (JSON.parse(text) as { schema?: unknown } | null)?.schema;
  } catch {
    schema = undefined;
  }
  if (schema !== "odek.cassette/v1") {
    throw new OdekError(
      "USAGE",
      `Cannot record to ${file}: it exists and is not an odek cassette, and recording would replace it. Choose a new file name, or remove the file first.`,
    );
  }
}
