/**
 * The one way odek loads a module on demand. Deno loads the whole graph of every literal
 * `import("…")` together with its importer's, so a run from source (`deno task odek`, the tests)
 * loads these by a computed specifier here, only when asked; the installed command runs a bundle
 * whose entry (`src/bundle_main.ts`) hands in literal loaders, so the same modules are chunks of
 * that bundle and every class exists once (`instanceof` holds across chunks).
 *
 * @module
 */

/**
 * Every module odek loads on demand, by its path under `src/`. A new one is added here, in the
 * bundle entry's table (`src/bundle_main.ts`; the type checker names a missing one) and loaded
 * with {@linkcode lazyModule} (`tests/arch/lazy_modules_test.ts` checks all three).
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

/** A loader per lazy module, as the bundle's entry writes them (literal `import()`s). */
export type LazyLoaders = { readonly [K in LazyModuleName]: () => Promise<unknown> };

let bundled: LazyLoaders | undefined;

/**
 * Load the lazy modules through `loaders` from now on: the bundle's entry calls this once, before
 * anything else runs.
 *
 * @param loaders one literal `import()` per module of {@linkcode LAZY_MODULES}
 */
export function useBundledModules(loaders: LazyLoaders): void {
  bundled = loaders;
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
  if (bundled !== undefined) return bundled[name]();
  // Computed, so that Deno does not load the module's graph with this one's.
  return import(new URL(`../${name}`, import.meta.url).href);
}
