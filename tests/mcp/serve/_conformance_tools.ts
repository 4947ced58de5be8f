/**
 * The conformance suite's fixture tools that odek can host (test helper): a tool provider factory
 * (listing its tools up front) plugged into `serveMcp({ tools })`, so the suite's `tools-call-*`
 * and `elicitation-*` scenarios exercise odek's MCP server path — each call a one-step run on a
 * session host, classified (`read`), journaled, its result fenced as untrusted text, its
 * elicitation put to the client through the host's clarifier. The tools only return data.
 *
 * @module
 */
import { z } from "zod";
import type { ElicitationField } from "../../../src/approval/elicitation.ts";
import type { ProvidedTool, ToolProvider } from "../../../src/loop/tool_provider.ts";
import type { ToolProviderHost } from "../../../src/runtime/tool_provider_source.ts";

const NONE = z.strictObject({});

const TOOLS: ProvidedTool[] = [
  { name: "test_simple_text", description: "Returns a simple text.", args: NONE },
  { name: "test_error_handling", description: "Always fails.", args: NONE },
  {
    name: "test_elicitation",
    description: "Asks the user for a username and an email.",
    args: z.strictObject({ message: z.string() }),
  },
  {
    name: "test_elicitation_sep1034_defaults",
    description: "Asks with a default for every primitive type.",
    args: NONE,
  },
].map((tool) => ({ ...tool, classWithoutGate: "read" as const }));

const SEP1034: ElicitationField[] = [
  { name: "name", type: "string", default: "John Doe", required: false },
  { name: "age", type: "integer", default: 30, required: false },
  { name: "score", type: "number", default: 95.5, required: false },
  {
    name: "status",
    type: "enum",
    options: ["active", "inactive", "pending"].map((value) => ({ value, label: value })),
    default: "active",
    required: false,
  },
  { name: "verified", type: "boolean", default: true, required: false },
];

function provider(host: ToolProviderHost): ToolProvider {
  const ask = async (message: string, fields: ElicitationField[]) => {
    const answer = await host.clarifier?.elicit?.({
      mode: "form",
      source: "conformance fixture",
      message,
      fields,
    });
    return {
      ok: true as const,
      output: `Elicitation completed: action=${answer?.action ?? "none"}, content=${
        JSON.stringify(answer && answer.action === "accept" ? answer.content : {})
      }`,
    };
  };
  return {
    name: "conformance fixture tools",
    list: () => TOOLS,
    classify: (call) => ({ kind: "fixed", class: "read", detail: `fixture ${call.name}` }),
    async run(invocation) {
      switch (invocation.name) {
        case "test_simple_text":
          return { ok: true, output: "This is a simple text response for testing." };
        case "test_error_handling":
          return {
            ok: false,
            error: {
              kind: "failed",
              message: "This tool intentionally returns an error for testing",
            },
          };
        case "test_elicitation":
          return await ask(String(invocation.args.message), [
            { name: "username", type: "string", description: "User's response", required: true },
            { name: "email", type: "string", description: "User's email address", required: true },
          ]);
        case "test_elicitation_sep1034_defaults":
          return await ask("Please review and update the form fields with defaults", SEP1034);
        default:
          return { ok: false, error: { kind: "unknown_tool", message: invocation.name } };
      }
    },
  };
}

/** The factory, with its tools listed up front for `tools/list`. */
export const conformanceTools = Object.assign(provider, { list: () => TOOLS });
