// `odek mcp serve --http 127.0.0.1:0` through the library with the conformance fixture tools
// added (test helper, run as its own process): the same serveMcp() the CLI runs, plus the
// suite's fixture tools as a tool provider. Prints the URL like the CLI, on stderr.
import { createRuntime } from "../../../src/runtime/create_runtime.ts";
import { serveMcp } from "../../../src/mcp/mcp_serve.ts";
import { conformanceTools } from "./_conformance_tools.ts";

await using runtime = await createRuntime({ env: Deno.env.toObject(), cwd: Deno.cwd() });
await using server = await serveMcp({
  runtime,
  version: "0.0.0-conformance",
  transport: { type: "http", hostname: "127.0.0.1", port: 0 },
  tools: [conformanceTools],
  warn: (message) => console.error(`odek: warning: ${message}`),
});
Deno.addSignalListener("SIGTERM", () => void server.close());
console.error(`odek mcp serve: listening on ${server.tokenUrl}`);
await server.finished;
