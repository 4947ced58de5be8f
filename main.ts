/**
 * odek's entry point when it runs from source (`deno task odek`, `deno run main.ts`). The
 * installed command runs a bundle of the same code instead (`src/bundle_main.ts`,
 * `scripts/install.ts`); both start in `src/cli/odek_entry.ts`.
 *
 * @module
 */
import { odekEntry } from "./src/cli/odek_entry.ts";

if (import.meta.main) await odekEntry(Deno.args);
