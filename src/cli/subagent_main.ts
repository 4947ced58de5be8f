/**
 * The entry a sub-agent's process runs (`odek subagent` as its parent starts it): Deno without
 * any `--allow-*` flag refuses dynamic imports of local files, so this module imports what the
 * sub-agent needs statically instead of through `main.ts`'s lazy loading. Same code path as
 * `odek subagent`; the exit code follows the CLI table (design §8.4).
 *
 * @module
 */
import { subagentCommand } from "./subagent_command.ts";

if (import.meta.main) {
  Deno.exit(await subagentCommand(Deno.stdin.readable, Deno.stdout.writable));
}
