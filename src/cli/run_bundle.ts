/**
 * What the installed command's bundle runs once its stamp matched and the command is not
 * `--version`: one entry point of the code-split build (`scripts/build_bundle.ts`), so the
 * checkout root and the lazy modules' loader are set on the same module copies every lazy module
 * imports. The bundle's entry (`src/bundle_main.ts`, a build of its own) loads it by URL.
 *
 * @module
 */
import { useCheckoutRoot } from "../_util/checkout_root.ts";
import { type LazyModuleName, useBundledModules } from "../_util/lazy_module.ts";
import { odekEntry } from "./odek_entry.ts";

/** What {@linkcode runBundle} needs from the bundle's entry. */
export interface BundleRun {
  /** The checkout the bundle was built from (absolute; the stamp's `root`). */
  root: string;
  /** Loads a lazy module's output in this bundle. */
  load: (name: LazyModuleName) => Promise<unknown>;
  /** The command line after the program name (`Deno.args`). */
  args: string[];
}

/**
 * Run odek from the bundle: set the checkout root and the lazy modules' loader, then run the
 * command as `main.ts` does.
 *
 * @param run the checkout root, the loader and the arguments
 * @returns never: the process exits with the command's exit code
 *
 * @example In the bundle's entry (the loader resolves beside the entry's own file)
 * ```ts ignore
 * import { runBundle } from "./run_bundle.ts";
 * await runBundle({ root: "/srv/odek", load: (name) => import(`./${name}`), args: Deno.args });
 * ```
 */
export function runBundle(run: BundleRun): Promise<never> {
  performance.mark("odek:bundle-checked");
  useCheckoutRoot(run.root);
  useBundledModules(run.load);
  return odekEntry(run.args);
}
