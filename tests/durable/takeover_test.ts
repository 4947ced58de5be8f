import { postgresMissing } from "./_durable_fixture.ts";
import { gitMissing } from "./_git_repository.ts";
import { takeoverCase } from "./_takeover_case.ts";

// The runs are on a local bare repository: they need git too.
const missing = postgresMissing() ?? gitMissing();
if (missing) console.log(`durable takeover tests skipped: ${missing}`);

Deno.test({
  name:
    "durable runs: a worker killed with SIGKILL in a tool call; its run completes on the other worker from its last completed step, the call recorded as interrupted",
  ignore: missing !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () => takeoverCase(4),
});
