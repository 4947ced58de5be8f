// odek as a library: run one task, every tool call sandboxed (docs/library.md). From your project:
// deno run --config ~/odek/deno.json --allow-read --allow-write --allow-env --allow-net --allow-run --allow-sys=uid,gid,networkInterfaces sandboxed_task.ts "count the TODOs"
import { createRuntime } from "../src/mod.ts";

await using runtime = await createRuntime({ env: Deno.env.toObject(), cwd: Deno.cwd() });
await using host = await runtime.openSession({ task: Deno.args[0] ?? "Summarise this project." });
const run = await host.startRun();
for await (const event of run.events) {
  if (event.type === "tool_call_started") console.log(`→ ${event.data.name}`);
}
const outcome = await run.result;
console.log(
  outcome.type === "completed" ? outcome.text : `${outcome.type}: ${outcome.error.message}`,
);
Deno.exitCode = outcome.type === "completed" ? 0 : 1;
