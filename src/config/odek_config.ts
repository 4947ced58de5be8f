/**
 * The configuration schema (first form): what `ODEK_HOME/config.jsonc`, `ODEK_*` variables and
 * flags may set, with defaults. Every key is optional in a layer; {@linkcode resolveConfig}
 * applies the defaults after the layers are merged.
 *
 * @module
 */
import { z } from "zod";
import { type McpServerConfig, McpServersSchema } from "./mcp_server_config.ts";
import { PROVIDER_NAMES, type ProviderName } from "./provider_presets.ts";
import { type TrustLevel, TrustLevelSchema } from "./trust_level.ts";
import { DenyRulesSchema } from "./deny_rule.ts";

/**
 * One configuration layer (the config file, `ODEK_*` variables, the CLI's flags, a library's
 * `config` option): every key of {@linkcode OdekConfig} optional, and every key of its sections.
 * Layers are validated when they are read; unknown keys are refused.
 *
 * @example Run without sandboxing programs, with a small iteration budget
 * ```ts
 * import type { ConfigLayer } from "./odek_config.ts";
 * const layer: ConfigLayer = { sandbox: "none", budgets: { maxIterations: 5 } };
 * if (layer.budgets?.maxIterations !== 5) throw new Error("budgets");
 * ```
 */
export type ConfigLayer = {
  [K in keyof OdekConfig]?: OdekConfig[K] extends readonly unknown[] ? OdekConfig[K]
    : OdekConfig[K] extends Record<string, unknown> ? Partial<OdekConfig[K]>
    : OdekConfig[K];
};

/** The layer's object schema (internal: `extend`ed by the project layer's schema). */
export const ConfigLayerObject = z.strictObject({
  /** Model id sent to the provider. */
  model: z.string().min(1).max(200).optional(),
  /** OpenAI-compatible base URL, e.g. `https://api.openai.com/v1`. */
  baseUrl: z.url({ protocol: /^https?$/ }).optional(),
  /**
   * A provider preset (docs/model_client.md): its base URL (unless this layer or a later one sets
   * `baseUrl`), its key variable and its quirks; `auto` picks the preset by the base URL's host.
   */
  provider: z.enum(["auto", ...PROVIDER_NAMES]).optional(),
  /**
   * The context window in tokens of every model without its own `models.<id>.contextWindow`;
   * `auto`: the model's known window, else 128 000.
   */
  contextWindow: z.union([z.int().min(1024).max(10_000_000), z.literal("auto")]).optional(),
  /**
   * `bwrap`: programs run in a bubblewrap sandbox (fails closed without it); `docker`: programs run
   * in a container from Dockerfile.odek; `none`: unsandboxed (the operator's explicit choice).
   */
  sandbox: z.enum(["bwrap", "docker", "none"]).optional(),
  /** Processes and threads one shell sandbox may hold at once (pids cgroup; fork-bomb bound). */
  sandboxMaxProcesses: z.int().min(8).max(1_000_000).optional(),
  /** Size cap of each sandbox's `/tmp` and home (tmpfs, in RAM), in MiB. */
  sandboxTmpfsMiB: z.int().min(1).max(1_048_576).optional(),
  /** Trust level of runs (design §3). */
  trustLevel: TrustLevelSchema.optional(),
  /** Risk classes that run without asking when the trust level is `trusted` (never `blocked`). */
  trustedClasses: z.array(
    z.enum([
      "read",
      "local_write",
      "code_execution",
      "network",
      "system_write",
      "destructive",
      "privileged",
      "unknown",
    ]),
  ).optional(),
  /**
   * Extra directories the operator grants besides the workspace, each `PATH` or `PATH:ro`
   * (docs/workspace.md). Validated like the workspace before every spawn.
   */
  addDirs: z.array(z.string().min(1).max(4096)).max(64).optional(),
  /** Work in the dedicated workspace beside ODEK_HOME instead of the current directory. */
  dedicatedWorkspace: z.boolean().optional(),
  timeouts: z.strictObject({
    /** Cap on one model request, from sending it to the end of its stream, in seconds. */
    requestSeconds: z.int().min(1).max(3600).optional(),
    /** Wait for a model response to start (status and headers), in seconds. */
    connectSeconds: z.int().min(1).max(600).optional(),
    /** Longest silence inside a model response stream, in seconds. */
    streamIdleSeconds: z.int().min(1).max(3600).optional(),
    /** Default shell timeout, in seconds (a call may ask for less or more, up to 1800). */
    shellSeconds: z.int().min(1).max(1800).optional(),
  }).optional(),
  /** Per-model settings, keyed by the model id sent to the provider. */
  models: z.record(
    z.string().min(1).max(200),
    z.strictObject({
      /** This model's context window in tokens; overrides `contextWindow`. */
      contextWindow: z.int().min(1024).max(10_000_000).optional(),
      /** USD per million input (prompt) tokens. */
      inputCostPerMillionUsd: z.number().min(0).max(10_000).optional(),
      /** USD per million output (completion) tokens. */
      outputCostPerMillionUsd: z.number().min(0).max(10_000).optional(),
    }),
  ).optional(),
  /** Context management (docs/context.md). */
  context: z.strictObject({
    /** Summarise dropped turn groups in a bounded side call (rolling compaction). */
    compaction: z.boolean().optional(),
    /** Tool results, newest first, that are never replaced by a marker. */
    keepRecentToolResults: z.int().min(0).max(100).optional(),
    /** Tokens kept free for the reply (at most a quarter of the window is used). */
    reserveTokens: z.int().min(0).max(1_000_000).optional(),
    /** Trim when the estimate passes this share of (window − reserve). */
    triggerRatio: z.number().min(0.1).max(1).optional(),
    /** Trim down to this share of (window − reserve); at most `triggerRatio`. */
    targetRatio: z.number().min(0.05).max(1).optional(),
    /** Time limit of one compaction side call, in seconds. */
    compactionTimeoutSeconds: z.int().min(1).max(600).optional(),
    /** `max_tokens` of one compaction side call (the digest's size bound). */
    compactionMaxTokens: z.int().min(64).max(32_768).optional(),
  }).optional(),
  toolOutput: z.strictObject({
    /** A tool result up to this many bytes reaches the model whole; a longer one is cut. */
    maxBytes: z.int().min(1024).max(16 * 1024 * 1024).optional(),
    /** Bytes kept from the start of a longer result. */
    headBytes: z.int().min(0).max(16 * 1024 * 1024).optional(),
    /** Bytes kept from its end. */
    tailBytes: z.int().min(0).max(16 * 1024 * 1024).optional(),
  }).optional(),
  network: z.strictObject({
    /**
     * When not empty, egress (web tools, shell commands granted network) reaches only these
     * domains and the names below them (`example.com` allows `api.example.com`); an IP literal
     * only when listed as is. Never lets a refused address through.
     */
    allowDomains: z.array(
      z.string().min(1).max(253).regex(
        /^(\*\.)?[A-Za-z0-9._:-]+$/,
        "a domain name or an IP address",
      ),
    ).max(1000).optional(),
    /**
     * Ports of services on the host's own `127.0.0.1` (a database on 5432) that programs may
     * reach: inside the sandbox `127.0.0.1:<port>` is forwarded to them. Every other loopback
     * port is the session's own loopback.
     */
    allowHostPorts: z.array(z.int().min(1).max(65535)).max(64).optional(),
  }).optional(),
  retry: z.strictObject({
    /** Model request attempts in all, the first included (1 = never retry). */
    maxAttempts: z.int().min(1).max(20).optional(),
    /** Backoff after the first failed attempt, in ms; doubles per attempt. */
    baseMs: z.int().min(1).max(60_000).optional(),
    /** Largest backoff before jitter, in ms. */
    maxMs: z.int().min(1).max(600_000).optional(),
    /** Longest Retry-After honoured, in seconds; a longer one fails fast. */
    retryAfterCapSeconds: z.int().min(0).max(86_400).optional(),
  }).optional(),
  mcpServe: z.strictObject({
    /**
     * Workspaces (absolute) a `run_task` of `odek mcp serve` may name besides the dedicated one;
     * each is validated like `--workspace` when a task names it.
     */
    workspaces: z.array(
      z.string().min(1).max(4096).refine((p) => p.startsWith("/"), {
        message: "an absolute path",
      }),
    ).max(64).optional(),
  }).optional(),
  serve: z.strictObject({
    /** Runs `odek serve` lets go at once; the rest queue. */
    maxConcurrentRuns: z.int().min(1).max(64).optional(),
    /** Absolute directories under which a session started over `odek serve` may name its workspace. */
    workspaceRoots: z.array(z.string().min(2).max(4096).regex(/^\//, "an absolute path")).max(64)
      .optional(),
  }).optional(),
  /** The durable queue (docs/scale_out.md): `odek serve` and `odek worker` use it when set. */
  queue: z.strictObject({
    /** The queue's PostgreSQL database, `postgres://user@host:port/database`. */
    url: z.string().regex(/^postgres(ql)?:\/\//, "a postgres:// URL").max(2000).optional(),
  }).optional(),
  checkpoints: z.strictObject({
    /** Checkpoint the workspace's files before and after each step that can write it (undo, rewind). */
    enabled: z.boolean().optional(),
    /** Files (not ignored by .gitignore) a checkpoint records at most; more turns checkpoints off. */
    maxFiles: z.int().min(1).max(10_000_000).optional(),
    /** MiB of files a checkpoint records at most; more turns checkpoints off. */
    maxMiB: z.int().min(1).max(1_048_576).optional(),
    /** A larger file is not recorded (and cannot be restored), in MiB. */
    maxFileMiB: z.int().min(1).max(1_048_576).optional(),
  }).optional(),
  subagents: z.strictObject({
    /** Sub-agents of one `delegate_tasks` call that run at once (docs/subagents.md). */
    maxConcurrency: z.int().min(1).max(8).optional(),
  }).optional(),
  budgets: z.strictObject({
    /** Model turns per run before the run stops with exit code 4. */
    maxIterations: z.int().min(1).max(10_000).optional(),
    /** Tool calls of one reply that run at once. */
    maxToolParallel: z.int().min(1).max(16).optional(),
    /** Wall-clock seconds a run may take (0 = off; at most 2,000,000, about 23 days: a timer limit). */
    maxRuntimeSeconds: z.int().min(0).max(2_000_000).optional(),
    /** Tool calls a session may execute, over all its runs (0 = off). */
    maxToolCalls: z.int().min(0).max(10_000_000).optional(),
    /** Prompt tokens a session may use, summed over the model calls of all its runs (0 = off). */
    maxInputTokens: z.int().min(0).max(1e12).optional(),
    /** Completion tokens a session may use, summed over all its runs (0 = off). */
    maxOutputTokens: z.int().min(0).max(1e12).optional(),
    /** Estimated US dollars a session may spend (0 = off; needs both prices in `models.<id>`). */
    maxCostUsd: z.number().min(0).max(1_000_000).optional(),
  }).optional(),
  /**
   * Deny rules (docs/configuration.md#deny-rules): commands as argv-prefix patterns with `*`
   * tokens, paths as picomatch globs, domains exact or `*.suffix`. A deny beats every approval.
   * Every layer's rules are kept (the union).
   */
  deny: DenyRulesSchema.optional(),
  /**
   * Files read into a new session's first messages besides `AGENTS.md`: workspace-relative (or,
   * in the user config only, absolute or `~/`), each capped. Every layer's files are kept.
   */
  contextFiles: z.array(z.string().min(1).max(4096)).max(32).optional(),
  /** Stall detection (docs/budgets.md): a cycle of 1–3 tool calls with the same results. */
  stall: z.strictObject({
    /** Repetitions of a cycle that get a hint to the model. */
    hintAfter: z.int().min(2).max(1000).optional(),
    /** Further repetitions after the hint that end the run `stalled` (exit 5); 0 = never. */
    stopAfter: z.int().min(0).max(1000).optional(),
  }).optional(),
  /**
   * MCP servers whose tools every run offers, by name (docs/mcp.md): a stdio program started in
   * a sandbox, or an HTTP endpoint.
   */
  mcpServers: McpServersSchema.optional(),
});
/** Zod schema of a {@linkcode ConfigLayer}: every key optional, unknown keys refused. */
export const ConfigLayerSchema: z.ZodType<ConfigLayer> = ConfigLayerObject;

/**
 * The resolved configuration: every key has a value.
 *
 * @example Read the resolved budgets
 * ```ts
 * import { DEFAULT_CONFIG, type OdekConfig } from "./odek_config.ts";
 * const config: OdekConfig = { ...DEFAULT_CONFIG, budgets: { ...DEFAULT_CONFIG.budgets, maxIterations: 5 } };
 * if (config.budgets.maxIterations !== 5 || config.sandbox !== "bwrap") throw new Error("config");
 * ```
 */
export interface OdekConfig {
  /** Model id sent to the provider. */
  model: string;
  /** The OpenAI-compatible base URL. */
  baseUrl: string;
  /** A preset name, or `auto` (by the base URL's host). */
  provider: "auto" | ProviderName;
  /** Tokens, or `auto`: the model's known window, else 128 000 (see `contextWindowFor`). */
  contextWindow: number | "auto";
  /** How programs are sandboxed: `bwrap`, `docker`, or `none` (unsandboxed). */
  sandbox: "bwrap" | "docker" | "none";
  /** Processes and threads one shell sandbox may hold at once. */
  sandboxMaxProcesses: number;
  /** Size cap of each sandbox's `/tmp` and home, in MiB. */
  sandboxTmpfsMiB: number;
  /** Trust level of runs. */
  trustLevel: TrustLevel;
  /** Risk classes that run without asking at trust level `trusted`. */
  trustedClasses: string[];
  /** Extra directories granted besides the workspace, each `PATH` or `PATH:ro`. */
  addDirs: string[];
  /** Work in the dedicated workspace beside ODEK_HOME. */
  dedicatedWorkspace: boolean;
  /** Model request and shell timeouts, in seconds. */
  timeouts: {
    requestSeconds: number;
    connectSeconds: number;
    streamIdleSeconds: number;
    shellSeconds: number;
  };
  /** The model client's retry policy. */
  retry: { maxAttempts: number; baseMs: number; maxMs: number; retryAfterCapSeconds: number };
  /** The limits of each run. */
  budgets: {
    maxIterations: number;
    maxToolParallel: number;
    /** 0 = off. */
    maxRuntimeSeconds: number;
    /** 0 = off. */
    maxToolCalls: number;
    /** 0 = off. */
    maxInputTokens: number;
    /** 0 = off. */
    maxOutputTokens: number;
    /** US dollars; 0 = off. */
    maxCostUsd: number;
  };
  /** Stall detection: hint after `hintAfter` repetitions, stop `stopAfter` later (0 = never). */
  stall: { hintAfter: number; stopAfter: number };
  /** The cap on each tool result the model reads; `headBytes + tailBytes <= maxBytes`. */
  toolOutput: { maxBytes: number; headBytes: number; tailBytes: number };
  /** Per-model facts by exact model id. */
  models: Record<string, ModelFacts>;
  /** Context management: trimming and rolling compaction (docs/context.md). */
  context: {
    compaction: boolean;
    keepRecentToolResults: number;
    reserveTokens: number;
    triggerRatio: number;
    targetRatio: number;
    compactionTimeoutSeconds: number;
    compactionMaxTokens: number;
  };
  /** Network: the egress proxy's domain allow-list (empty: every public host). */
  network: { allowDomains: string[]; allowHostPorts: number[] };
  /** Deny rules of every layer (the union); which layer each came from is in the host's rules. */
  deny: { commands: string[]; paths: string[]; domains: string[] };
  /** Context files of every layer (the union), as written. */
  contextFiles: string[];
  /** Checkpoints around each writing step (`odek undo`); the caps bound one checkpoint. */
  checkpoints: { enabled: boolean; maxFiles: number; maxMiB: number; maxFileMiB: number };
  /** The durable queue's database URL (`null`: none, runs are local; docs/scale_out.md). */
  queue: { url: string | null };
  /** `delegate_tasks` (docs/subagents.md): sub-agents of one call that run at once. */
  subagents: { maxConcurrency: number };
  /** `odek mcp serve`: the workspaces a `run_task` may name besides the dedicated one. */
  mcpServe: { workspaces: string[] };
  /** `odek serve`: its concurrency cap and the roots its sessions may name workspaces under. */
  serve: { maxConcurrentRuns: number; workspaceRoots: string[] };
  /**
   * MCP servers by name (docs/mcp.md), read by odek's MCP client.
   * @internal
   */
  mcpServers: Record<string, McpServerConfig>;
}

/**
 * What the config may say about one model.
 *
 * @example Prices and the window of one model
 * ```ts
 * import type { ModelFacts } from "./odek_config.ts";
 * const facts: ModelFacts = { contextWindow: 128_000, inputCostPerMillionUsd: 0.4, outputCostPerMillionUsd: 1.6 };
 * if (facts.contextWindow !== 128_000) throw new Error("window");
 * ```
 */
export interface ModelFacts {
  /** Context window in tokens. */
  contextWindow?: number;
  /** US dollars per million prompt tokens. */
  inputCostPerMillionUsd?: number;
  /** US dollars per million completion tokens. */
  outputCostPerMillionUsd?: number;
}

/**
 * Defaults of every key (odek-go §2.2 where it has one: 90 iterations, 4 parallel tools; tool
 * output 16 KiB = 12 KiB head + 4 KiB tail, issue 6; the retry policy of odek-go §3.3 as of PR
 * #123).
 */
export const DEFAULT_CONFIG: OdekConfig = {
  model: "gpt-4.1-mini",
  baseUrl: "https://api.openai.com/v1",
  provider: "auto",
  contextWindow: "auto",
  sandbox: "bwrap",
  sandboxMaxProcesses: 1024,
  sandboxTmpfsMiB: 1024,
  trustLevel: "standard",
  trustedClasses: [],
  addDirs: [],
  dedicatedWorkspace: false,
  timeouts: { requestSeconds: 600, connectSeconds: 30, streamIdleSeconds: 300, shellSeconds: 1800 },
  retry: { maxAttempts: 8, baseMs: 1000, maxMs: 30_000, retryAfterCapSeconds: 120 },
  budgets: {
    maxIterations: 90,
    maxToolParallel: 4,
    maxRuntimeSeconds: 0,
    maxToolCalls: 0,
    maxInputTokens: 0,
    maxOutputTokens: 0,
    maxCostUsd: 0,
  },
  stall: { hintAfter: 3, stopAfter: 3 },
  models: {},
  context: {
    compaction: true,
    keepRecentToolResults: 4,
    reserveTokens: 4096,
    triggerRatio: 0.85,
    targetRatio: 0.6,
    compactionTimeoutSeconds: 60,
    compactionMaxTokens: 1024,
  },
  toolOutput: { maxBytes: 16_384, headBytes: 12_288, tailBytes: 4_096 },
  network: { allowDomains: [], allowHostPorts: [] },
  deny: { commands: [], paths: [], domains: [] },
  contextFiles: [],
  checkpoints: { enabled: true, maxFiles: 20_000, maxMiB: 512, maxFileMiB: 16 },
  queue: { url: null },
  subagents: { maxConcurrency: 3 },
  mcpServe: { workspaces: [] },
  serve: { maxConcurrentRuns: 4, workspaceRoots: [] },
  mcpServers: {},
};
