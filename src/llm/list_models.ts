/**
 * The models an OpenAI-compatible server offers (`GET <base>/models`), for `odek models` and the
 * interactive `/model`.
 *
 * @module
 */
import { z } from "zod";
import { OdekError } from "../_util/odek_error.ts";
import { describeBody } from "./_describe_body.ts";
import {
  baseUrlHint,
  causeText,
  displayURL,
  providerMessage,
  scrubSecret,
} from "./_model_error.ts";

/** Options for {@linkcode listModels}. */
export interface ListModelsOptions {
  /** Sent as `Authorization: Bearer …` when not empty; never appears in a message. @default none */
  apiKey?: string;
  /** The fetch to use. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** The whole request, body included, in ms. @default 15_000 */
  timeoutMs?: number;
  /** Largest body read, in bytes; a larger list fails. @default 8_388_608 (8 MiB) */
  maxBytes?: number;
  /** Extra headers. @default none */
  headers?: Record<string, string>;
  /** Aborts the request; its reason is thrown. */
  signal?: AbortSignal;
}

/**
 * One model the server lists.
 *
 * @example Pick a model with a large window
 * ```ts
 * import type { ListedModel } from "./list_models.ts";
 * const models: ListedModel[] = [{ id: "small", contextWindow: 8192 }, { id: "big", contextWindow: 200000 }];
 * const best = models.filter((m) => (m.contextWindow ?? 0) >= 100000).map((m) => m.id);
 * if (best.join() !== "big") throw new Error(best.join());
 * ```
 */
export interface ListedModel {
  /** The id to pass as `--model`. */
  id: string;
  /** `owned_by`, when given. */
  ownedBy?: string;
  /** `created` (Unix seconds), when given. */
  created?: number;
  /**
   * The context window the server reports, in tokens: `context_length` (OpenRouter, Together),
   * `context_window` (Groq), `max_model_len` (vLLM) or `max_context_length` (Mistral).
   */
  contextWindow?: number;
}

const Window = z.number().int().positive().max(100_000_000).nullish().catch(undefined);

const ModelListSchema = z.looseObject({
  data: z.array(z.looseObject({
    id: z.string().min(1).max(512),
    owned_by: z.string().max(512).nullish().catch(undefined),
    created: z.number().nullish().catch(undefined),
    context_length: Window,
    context_window: Window,
    max_model_len: Window,
    max_context_length: Window,
  })).max(100_000),
});

/**
 * Lists the server's models with one bounded `GET <baseURL>/models`, validated with zod, sorted by
 * id. Bounded in time (`timeoutMs`, body included) and size (`maxBytes`).
 *
 * @param baseURL the API root, e.g. `http://127.0.0.1:11434/v1`
 * @param options key, fetch, bounds and signal
 * @returns the models, sorted by id
 * @throws {OdekError} `MODEL_UNREACHABLE` (refused, DNS, timeout); `MODEL_ERROR` (an HTTP error:
 *   a 401/403 names the key, a 404/405 says the server lists no models there and what to check
 *   in the base URL); `MODEL_PROTOCOL` (a body that is not a JSON model list, or too large)
 * @throws the signal's reason when `options.signal` aborts
 *
 * @example List the fake server's models
 * ```ts
 * import { type ListedModel, listModels, type ListModelsOptions } from "./list_models.ts";
 * import { startFakeOpenAIServer } from "../testing/fake_openai_server.ts";
 * await using server = await startFakeOpenAIServer({ turns: [], models: ["b-model", "a-model"] });
 * const options: ListModelsOptions = { apiKey: "sk-test", timeoutMs: 5000 };
 * const models: ListedModel[] = await listModels(server.url, options);
 * if (models.map((m) => m.id).join() !== "a-model,b-model") throw new Error("unexpected list");
 * ```
 */
export async function listModels(
  baseURL: string,
  options: ListModelsOptions = {},
): Promise<ListedModel[]> {
  const url = `${baseURL.replace(/\/+$/, "")}/models`;
  const where = displayURL(url);
  const apiKey = options.apiKey ?? "";
  const timeoutMs = options.timeoutMs ?? 15_000;
  const limit = options.maxBytes ?? 8 * 1024 * 1024;
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  const signal = options.signal
    ? AbortSignal.any([options.signal, timeout.signal])
    : timeout.signal;
  const scrub = (text: string) => scrubSecret(text, apiKey);
  try {
    let response: Response;
    try {
      response = await (options.fetch ?? fetch)(url, {
        headers: {
          accept: "application/json",
          ...(apiKey !== "" ? { authorization: `Bearer ${apiKey}` } : {}),
          ...options.headers,
        },
        signal,
      });
    } catch (error) {
      throw requestError(error, where, timeoutMs, options.signal, timeout.signal, scrub);
    }
    const text = await readCapped(response, limit, where).catch((error) => {
      throw requestError(error, where, timeoutMs, options.signal, timeout.signal, scrub);
    });
    const type = response.headers.get("content-type") ?? "";
    if (!response.ok) throw statusError(response.status, text, type, baseURL, where, scrub);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new OdekError(
        "MODEL_PROTOCOL",
        `GET ${where} answered with ${
          describeBody(scrub(text), type)
        } instead of a JSON model list: ${baseUrlHint(baseURL)}`,
      );
    }
    const parsed = ModelListSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new OdekError(
        "MODEL_PROTOCOL",
        `GET ${where} answered JSON that is not an OpenAI model list: at "${
          issue.path.join(".") || "(root)"
        }", ${issue.message.toLowerCase()}. The server may not offer GET /models.`,
      );
    }
    return parsed.data.data.map((model): ListedModel => {
      const window = model.context_length ?? model.context_window ?? model.max_model_len ??
        model.max_context_length;
      return {
        id: model.id,
        ...(model.owned_by ? { ownedBy: model.owned_by } : {}),
        ...(typeof model.created === "number" ? { created: model.created } : {}),
        ...(window ? { contextWindow: window } : {}),
      };
    }).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  } finally {
    clearTimeout(timer);
  }
}

function statusError(
  status: number,
  text: string,
  type: string,
  baseURL: string,
  where: string,
  scrub: (text: string) => string,
): OdekError {
  let said = describeBody(scrub(text), type);
  try {
    const message = providerMessage((JSON.parse(text) as { error?: unknown }).error);
    if (message) said = `"${scrub(message).replace(/\s+/g, " ").slice(0, 300)}"`;
  } catch {
    // Not JSON: the description above stands.
  }
  const why = status === 401 || status === 403
    ? `The key was refused: check ODEK_API_KEY (or the provider's key variable).`
    : status === 404 || status === 405
    ? `The server lists no models there: it may not offer GET /models, or ${baseUrlHint(baseURL)}`
    : `Retry later, or check the provider's status.`;
  return new OdekError("MODEL_ERROR", `GET ${where} answered HTTP ${status}: ${said}. ${why}`);
}

function requestError(
  error: unknown,
  where: string,
  timeoutMs: number,
  caller: AbortSignal | undefined,
  timeout: AbortSignal,
  scrub: (text: string) => string,
): unknown {
  if (caller?.aborted) return caller.reason;
  if (error instanceof OdekError) return error;
  if (timeout.aborted) {
    return new OdekError(
      "MODEL_UNREACHABLE",
      `GET ${where} did not finish within ${timeoutMs / 1000} s. Check that the server is up.`,
      { cause: error },
    );
  }
  const detail = scrub(causeText(error));
  const reason = /refused/i.test(detail)
    ? "connection refused"
    : /dns error|lookup address|name or service not known|nodename nor servname/i.test(detail)
    ? "the host name does not resolve (DNS lookup failed)"
    : detail.replace(/\s+/g, " ").slice(0, 200);
  return new OdekError(
    "MODEL_UNREACHABLE",
    `Cannot reach ${where}: ${reason}. Check --base-url / ODEK_BASE_URL and that the server is running.`,
    { cause: error },
  );
}

/** The body as text, failing once it passes `limit` bytes. */
async function readCapped(response: Response, limit: number, where: string): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new OdekError(
        "MODEL_PROTOCOL",
        `GET ${where} sent more than ${limit} bytes; a model list is never that large. Check ` +
          `the base URL.`,
      );
    }
    parts.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return new TextDecoder().decode(bytes);
}
