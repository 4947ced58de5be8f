/**
 * The client the MCP conformance runner starts for each client scenario (test program):
 * `deno run … _conformance_client.ts <server-url>` with `MCP_CONFORMANCE_SCENARIO` (and
 * `MCP_CONFORMANCE_CONTEXT`) set. It is odek itself: a runtime with the scenario's server in
 * `mcpServers`, a session host whose tools come from the CLI's MCP composition, and one run in
 * which a scripted model calls every `conf__<tool>` the server offers (arguments made from the
 * schema the model was shown); a scripted clarifier answers elicitations the way an operator
 * pressing Enter at every field would (defaults kept, required fields filled), and OAuth's
 * browser step is an opener that follows the authorization URL with `fetch` to the runner's
 * loopback servers. Every request goes to a loopback address or fails.
 *
 * Exit code 0 when the run ended (tool errors are data), 1 when odek failed.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Clarifier } from "../../../src/approval/clarifier.ts";
import {
  type ElicitationAnswer,
  type ElicitationField,
  type ElicitationRequest,
  type ElicitationValue,
  fieldDefault,
} from "../../../src/approval/elicitation.ts";
import { cliMcpTools } from "../../../src/cli/cli_mcp_tools.ts";
import type { McpServerConfig } from "../../../src/config/mcp_server_config.ts";
import type { ToolSpec } from "../../../src/llm/model.ts";
import { createRuntime } from "../../../src/runtime/create_runtime.ts";
import { ScriptedModel, type ScriptedModelRequest } from "../../../src/testing/scripted_model.ts";
import type { ScriptedTurn } from "../../../src/testing/fake_openai_server.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url)).replace(/\/$/, "");
/** The client id metadata document URL the suite expects (an identifier it compares; never fetched). */
const CIMD_URL = "https://conformance-test.local/client-metadata.json";
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

const serverUrl = Deno.args[0];
const scenario = Deno.env.get("MCP_CONFORMANCE_SCENARIO") ?? "";
const context = JSON.parse(Deno.env.get("MCP_CONFORMANCE_CONTEXT") ?? "{}") as Record<
  string,
  unknown
>;

/** `fetch` that reaches only loopback listeners (the runner's servers). */
const loopbackFetch: typeof fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (!LOOPBACK.has(url.hostname)) {
    return Promise.reject(
      new TypeError(`conformance client: refusing ${url.origin} (not loopback)`),
    );
  }
  return fetch(input, init);
};

/** The browser step: follow the authorization URL's redirects (loopback only) to odek's listener. */
async function followAuthorization(url: URL): Promise<void> {
  let next: URL = url;
  for (let hop = 0; hop < 8; hop++) {
    const response = await loopbackFetch(next, { redirect: "manual" });
    await response.body?.cancel();
    const location = response.headers.get("location");
    if (response.status < 300 || response.status >= 400 || !location) return;
    next = new URL(location, next);
  }
}

/** Answers like an operator who presses Enter at every field (defaults), filling required ones. */
const clarifier: Clarifier = {
  ask: () => Promise.resolve({ answered: false, reason: "The conformance client asks nobody." }),
  elicit: (request: ElicitationRequest): Promise<ElicitationAnswer> => {
    if (request.mode === "url") return Promise.resolve({ action: "accept", content: {} });
    const content: Record<string, ElicitationValue> = {};
    for (const field of request.fields) {
      const value = fieldDefault(field) ?? (field.required ? sample(field) : undefined);
      if (value !== undefined) content[field.name] = value;
    }
    return Promise.resolve({ action: "accept", content });
  },
};

function sample(field: ElicitationField): ElicitationValue {
  const options = "options" in field ? field.options : undefined;
  switch (field.type) {
    case "boolean":
      return true;
    case "number":
    case "integer":
      return 1;
    case "enum":
      return options?.[0]?.value ?? "";
    case "multi_enum":
      return options?.[0] ? [options[0].value] : [];
    default:
      return "test";
  }
}

/** The arguments a scenario names for its tools (`toolCalls` in the context), by tool name. */
const given = new Map(
  ((context.toolCalls ?? []) as { name: string; arguments: Record<string, unknown> }[])
    .map((call) => [`conf__${call.name}`, call.arguments]),
);

/** Arguments for a tool: the scenario's, else made from the parameters the model sees. */
function argumentsFor(tool: ToolSpec, all: ToolSpec[]): Record<string, unknown> {
  const named = given.get(tool.function.name);
  if (named) return named;
  if (tool.function.name === "conf__json_schema_echo") {
    const focal = all.find((t) => t.function.name === "conf__json_schema_2020_12_tool");
    return { schema: focal?.function.parameters ?? {} };
  }
  const schema = tool.function.parameters as {
    properties?: Record<string, Record<string, unknown>>;
  };
  const args: Record<string, unknown> = {};
  const numbers = [2, 3];
  for (const [name, sub] of Object.entries(schema.properties ?? {})) {
    args[name] = value(sub, numbers);
  }
  return args;
}

function value(schema: Record<string, unknown>, numbers: number[]): unknown {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "number":
    case "integer":
      return numbers.shift() ?? 1;
    case "boolean":
      return true;
    case "array":
      return [];
    case "object":
      return {};
    case "null":
      return null;
    default:
      return "test";
  }
}

let queue: ToolSpec[] | undefined;
const model = new ScriptedModel((request: ScriptedModelRequest): ScriptedTurn => {
  const offered = request.tools.filter((t) => t.function.name.startsWith("conf__"));
  queue ??= [...offered];
  const next = queue.shift();
  if (!next) return { text: `Called ${offered.length} tools.` };
  return { toolCalls: [{ name: next.function.name, arguments: argumentsFor(next, offered) }] };
});

const root = await Deno.realPath(await Deno.makeTempDir({ dir: "/var/tmp", prefix: "odek-conf-" }));
const code = await (async () => {
  try {
    const home = join(root, "home");
    const workspace = join(root, "ws");
    await Deno.mkdir(join(home, ".odek"), { recursive: true });
    await Deno.mkdir(workspace);
    const oauth = {
      ...(scenario === "auth/basic-cimd" ? { clientMetadataUrl: CIMD_URL } : {}),
      ...(typeof context.client_id === "string" ? { clientId: context.client_id } : {}),
      ...(typeof context.client_secret === "string" ? { clientSecret: context.client_secret } : {}),
    };
    const server: McpServerConfig = { url: serverUrl, oauth, timeoutSeconds: 20 };
    await using runtime = await createRuntime({
      env: {
        HOME: home,
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
      },
      installDir: ROOT,
      cwd: workspace,
      config: { sandbox: "none", baseUrl: "http://127.0.0.1:9/v1", mcpServers: { conf: server } },
      modelFactory: () => model,
    });
    const warnings: string[] = [];
    const io = {
      env: {},
      stderr: { write: (text: string) => void warnings.push(text) },
    } as unknown as Parameters<typeof cliMcpTools>[1];
    await using host = await runtime.openSession({ task: `conformance ${scenario}` }, {
      workspace,
      clarifier,
      approver: {
        decide: (r) =>
          Promise.resolve(
            r.calls.map((c) => ({ callId: c.callId, approved: true, scope: "once" })),
          ),
      },
      tools: cliMcpTools(runtime, io, clarifier, {
        opener: followAuthorization,
        fetch: loopbackFetch,
      }),
    });
    for (const warning of warnings) console.error(warning.trimEnd());
    const log = Deno.env.get("ODEK_CONFORMANCE_LOG");
    if (log) await Deno.writeTextFile(log, `${scenario}\n${warnings.join("")}`, { append: true });
    const run = await host.startRun();
    const outcome = await run.result;
    const { messages } = await runtime.sessions.read(host.sessionId);
    for (const m of messages.filter((m) => m.role === "tool")) console.log(String(m.content));
    console.error(`odek: run ${outcome.type}`);
    return outcome.type === "completed" ? 0 : 1;
  } catch (error) {
    console.error(`odek: ${(error as Error).stack ?? error}`);
    return 1;
  } finally {
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
})();
Deno.exit(code);
