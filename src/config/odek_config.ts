/**
 * The configuration schema (first form): what `ODEK_HOME/config.jsonc`, `ODEK_*` variables and
 * flags may set, with defaults. Every key is optional in a layer; {@linkcode resolveConfig}
 * applies the defaults after the layers are merged.
 *
 * @module
 */
import { z } from "zod";
import { TrustLevelSchema } from "./trust_level.ts";

/** One configuration layer: every key optional, unknown keys refused. */
export const ConfigLayerSchema = z.strictObject({
  /** Model id sent to the provider. */
  model: z.string().min(1).max(200).optional(),
  /** OpenAI-compatible base URL, e.g. `https://api.openai.com/v1`. */
  baseUrl: z.url({ protocol: /^https?$/ }).optional(),
  /** The model's context window in tokens. */
  contextWindow: z.int().min(1024).max(10_000_000).optional(),
  /** `bwrap`: programs run in a bubblewrap sandbox (fails closed without it); `none`: unsandboxed. */
  sandbox: z.enum(["bwrap", "none"]).optional(),
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
  timeouts: z.strictObject({
    /** Whole model request, in seconds. */
    requestSeconds: z.int().min(1).max(3600).optional(),
    /** Default shell timeout, in seconds (a call may ask for less or more, up to 1800). */
    shellSeconds: z.int().min(1).max(1800).optional(),
  }).optional(),
  budgets: z.strictObject({
    /** Model turns per run before the run stops with exit code 4. */
    maxIterations: z.int().min(1).max(10_000).optional(),
    /** Tool calls of one reply that run at once. */
    maxToolParallel: z.int().min(1).max(16).optional(),
  }).optional(),
});
/** One configuration layer. */
export type ConfigLayer = z.infer<typeof ConfigLayerSchema>;

/** The resolved configuration: every key has a value. */
export interface OdekConfig {
  model: string;
  baseUrl: string;
  contextWindow: number;
  sandbox: "bwrap" | "none";
  sandboxMaxProcesses: number;
  sandboxTmpfsMiB: number;
  trustLevel: z.infer<typeof TrustLevelSchema>;
  trustedClasses: string[];
  timeouts: { requestSeconds: number; shellSeconds: number };
  budgets: { maxIterations: number; maxToolParallel: number };
}

/** Defaults of every key (odek-go §2.2 where it has one: 90 iterations, 4 parallel tools). */
export const DEFAULT_CONFIG: OdekConfig = {
  model: "gpt-4.1-mini",
  baseUrl: "https://api.openai.com/v1",
  contextWindow: 128_000,
  sandbox: "bwrap",
  sandboxMaxProcesses: 1024,
  sandboxTmpfsMiB: 1024,
  trustLevel: "standard",
  trustedClasses: [],
  timeouts: { requestSeconds: 600, shellSeconds: 1800 },
  budgets: { maxIterations: 90, maxToolParallel: 4 },
};
