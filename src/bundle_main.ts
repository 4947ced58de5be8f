/**
 * The entry of the installed command's bundle (`scripts/build_bundle.ts` runs `deno bundle
 * --platform deno --code-splitting` on it; it is never run from source). It checks the bundle's
 * stamp (`src/_util/bundle_stamp.ts`), gives the registry of lazy modules their literal loaders
 * (so each becomes a chunk of this bundle, sharing one copy of every class with the rest) and the
 * checkout root the bundle was built from, then runs odek as `main.ts` does. When a source file
 * changed since the bundle was built, it says so in one line and runs the checkout's sources.
 *
 * @module
 */
import { BUNDLE_STAMP_FILE, readBundleStamp, staleBundleReason } from "./_util/bundle_stamp.ts";
import { useCheckoutRoot } from "./_util/checkout_root.ts";
import { type LazyLoaders, useBundledModules } from "./_util/lazy_module.ts";
import { odekEntry } from "./cli/odek_entry.ts";

/** Each lazy module, by a literal import: a chunk of the bundle. The key is the literal's path. */
const LOADERS: LazyLoaders = {
  "_util/step_phase.ts": () => import("./_util/step_phase.ts"),
  "cli/main.ts": () => import("./cli/main.ts"),
  "cli/cli_io.ts": () => import("./cli/cli_io.ts"),
  "cli/chat_command.ts": () => import("./cli/chat_command.ts"),
  "cli/run_command.ts": () => import("./cli/run_command.ts"),
  "cli/continue_command.ts": () => import("./cli/continue_command.ts"),
  "cli/rewind_command.ts": () => import("./cli/rewind_command.ts"),
  "cli/sessions_command.ts": () => import("./cli/sessions_command.ts"),
  "cli/models_command.ts": () => import("./cli/models_command.ts"),
  "cli/doctor_command.ts": () => import("./cli/doctor_command.ts"),
  "cli/init_command.ts": () => import("./cli/init_command.ts"),
  "cli/config_command.ts": () => import("./cli/config_command.ts"),
  "cli/mcp_command.ts": () => import("./cli/mcp_command.ts"),
  "cli/serve_command.ts": () => import("./cli/serve_command.ts"),
  "cli/worker_command.ts": () => import("./cli/worker_command.ts"),
  "cli/classify_command.ts": () => import("./cli/classify_command.ts"),
  "cli/subagent_command.ts": () => import("./cli/subagent_command.ts"),
  "danger/create_classifier.ts": () => import("./danger/create_classifier.ts"),
  "checkpoint/git_checkpoint_store.ts": () => import("./checkpoint/git_checkpoint_store.ts"),
  "mcp/_mcp_provider.ts": () => import("./mcp/_mcp_provider.ts"),
};

/** A path's `file:` URL (not node:url's: no Node layer before the CLI loads). */
function fileUrl(path: string): string {
  return `file://${encodeURI(path).replace(/[?#]/g, encodeURIComponent)}`;
}

let stamp;
try {
  // The bundle's own file, beside this chunk (the one path taken from a module's URL here).
  stamp = readBundleStamp(new URL(`./${BUNDLE_STAMP_FILE}`, import.meta.url));
} catch (error) {
  console.error(
    `odek: this bundle has no readable stamp (${
      (error as Error).message
    }): run deno task install in the odek checkout again`,
  );
  Deno.exit(1);
}
const stale = staleBundleReason(stamp);
if (stale !== undefined) {
  console.error(
    `odek: not running the installed bundle (${stale}): running the sources of ${stamp.root} (a slower start); run deno task install there to rebuild it`,
  );
  // The checkout's own entry, with its own module graph: nothing of this bundle runs after this.
  const source: typeof import("./cli/odek_entry.ts") = await import(
    fileUrl(`${stamp.root}/src/cli/odek_entry.ts`)
  );
  await source.odekEntry(Deno.args);
}
performance.mark("odek:bundle-checked");
useCheckoutRoot(stamp.root);
useBundledModules(LOADERS);
await odekEntry(Deno.args);
