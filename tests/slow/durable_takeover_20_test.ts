import { takeoverCase } from "../durable/_takeover_case.ts";
import { postgresMissing } from "../durable/_durable_fixture.ts";
import { gitMissing } from "../durable/_git_repository.ts";
import { SLOW } from "./_slow.ts";

// The runs are on a local bare repository: they need git too.
const missing = postgresMissing() ?? gitMissing();
if (missing) console.log(`durable 20-run takeover skipped: ${missing}`);

Deno.test({
  name:
    "durable runs: 20 runs over two workers, one killed with SIGKILL in a tool call, all complete",
  ignore: !SLOW || missing !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () => takeoverCase(20),
});
