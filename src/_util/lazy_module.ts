/**
 * The one way odek loads a module on demand. Deno loads the whole graph of every literal
 * `import("…")` together with its importer's, so a run from source (`deno task odek`, the tests)
 * loads these by a computed specifier here, only when asked. The installed command runs a bundle
 * in which each of them is an entry point of one `deno bundle --code-splitting` build
 * (`scripts/build_bundle.ts`), so code they share sits in shared chunks and every class exists
 * once (`instanceof` holds across them); its entry (`src/bundle_main.ts`) hands in a loader of
 * those outputs, again by computed specifiers, since Deno would pre-load a literal's graph of the
 * bundle too.
 *
 * @module
 */

/**
 * Every module odek loads on demand, by its path under `src/`: a new one is added here and loaded
 * with {@linkcode lazyModule} (`tests/arch/lazy_modules_test.ts` checks both); the bundle build
 * makes each an entry point.
 */
export const LAZY_MODULES = [
  "_util/step_phase.ts",
  "cli/main.ts",
  "cli/cli_io.ts",
  "cli/chat_command.ts",
  "cli/run_command.ts",
  "cli/continue_command.ts",
  "cli/rewind_command.ts",
  "cli/sessions_command.ts",
  "cli/models_command.ts",
  "cli/doctor_command.ts",
  "cli/init_command.ts",
  "cli/config_command.ts",
  "cli/mcp_command.ts",
  "cli/serve_command.ts",
  "cli/worker_command.ts",
  "cli/classify_command.ts",
  "cli/subagent_command.ts",
  "danger/create_classifier.ts",
  "checkpoint/git_checkpoint_store.ts",
  "mcp/_mcp_provider.ts",
] as const;

/** A module {@linkcode lazyModule} loads: its path under `src/`. */
export type LazyModuleName = typeof LAZY_MODULES[number];

/** Loads a lazy module's output in the bundle (`<bundle>/<name without .ts>.js`). */
export type LazyLoader = (name: LazyModuleName) => Promise<unknown>;

let bundled: LazyLoader | undefined;

/**
 * Load the lazy modules through `loader` from now on: the bundle's entry calls this once, before
 * anything else runs.
 *
 * @param loader imports the bundle's output of a module of {@linkcode LAZY_MODULES}
 */
export function useBundledModules(loader: LazyLoader): void {
  bundled = loader;
}

/**
 * Load the lazy module `name` (once; later calls get the same module). Give the module's type at
 * the call site by a `typeof import(…)` of the same module (the arch test checks they agree).
 *
 * @param name the module's path under `src/`, one of {@linkcode LAZY_MODULES}
 * @returns the module's namespace
 * @throws whatever loading the module throws (a missing package under `--cached-only`, a syntax
 *   error)
 *
 * @example The step-phase counters, loaded on demand
 * ```ts
 * import { lazyModule } from "./lazy_module.ts";
 * const { stepPhaseSummary }: typeof import("./step_phase.ts") = await lazyModule(
 *   "_util/step_phase.ts",
 * );
 * if (typeof stepPhaseSummary !== "function") throw new Error("not loaded");
 * ```
 */
// deno-lint-ignore no-explicit-any -- what import() of a computed specifier returns; the call site types it
export function lazyModule(name: LazyModuleName): Promise<any> {
  if (bundled !== undefined) return bundled(name);
  // Computed, so that Deno does not load the module's graph with this one's.
  return import(new URL(`../${name}`, import.meta.url).href);
}
