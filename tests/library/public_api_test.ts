import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, sourceFiles } from "../arch/_source_files.ts";

/**
 * The library's surface, on purpose: adding an export means adding it here (with its doc
 * comment and titled example) and, for a function or class, a line in docs/library.md.
 */
const EXPORTS: Record<string, string[]> = {
  "src/mod.ts": [
    // The runtime.
    "createRuntime",
    "RuntimeOptions",
    "Runtime",
    "OpenSessionOptions",
    "SessionTarget",
    "RunLimitsOverride",
    "SessionHost",
    "StartRunOptions",
    "Run",
    "ModelFactory",
    "ModelSpec",
    "OdekError",
    "OdekErrorCode",
    "ConfigLayer",
    "ModelFacts",
    "OdekConfig",
    "ListedModel",
    "OdekPaths",
    "ProviderName",
    "ProviderQuirks",
    // Events and outcomes.
    "EventSubscription",
    "RuntimeEvent",
    "SubscribeOptions",
    "RunSubscribeOptions",
    "RunEvent",
    "RunEventData",
    "RunEventType",
    "RunOutcome",
    "Discarded",
    "Stall",
    "FileChangeData",
    "RunStats",
    "BudgetBreach",
    "BudgetName",
    "RunBudgets",
    // Tools of your own.
    "defineTool",
    "DefineToolOptions",
    "ToolAccess",
    "ToolModuleContext",
    "ToolModuleHandler",
    "ToolProviderFactory",
    "ToolProviderHost",
    "ToolProviderSource",
    "ProvidedCall",
    "ProvidedCallContext",
    "ProvidedTool",
    "ToolProvider",
    // Sub-agents.
    "delegateTasks",
    "DelegateTasksOptions",
    "ArgsIssue",
    "ArgsResult",
    "ArgsSchema",
    "ClassificationRule",
    "RiskClass",
    "EgressRefusalDetail",
    "ModuleTool",
    "ProtectedRevert",
    "SandboxRefusal",
    "ToolBroker",
    "ToolError",
    "ToolErrorKind",
    "ToolInvocation",
    "ToolResult",
    "EgressDecision",
    "TrustLevel",
    "Verdict",
    "VerdictPart",
    "AddDir",
    "DenyRule",
    "DenyRuleKind",
    // The model.
    "Model",
    "ModelDelta",
    "ModelRequest",
    "ModelResponse",
    "ModelRetry",
    "ModelUsage",
    "ToolSpec",
    "OpenAIModel",
    "OpenAIModelOptions",
    "RetryPolicyOptions",
    "Clock",
    "AssistantMessage",
    "ChatMessage",
    "ToolCall",
    // Sessions.
    "CreateSessionInit",
    "OpenSession",
    "SessionCompaction",
    "SessionMeta",
    "SessionMetaPatch",
    "SessionStore",
    "SessionSummary",
    "PendingToolCall",
    "SessionCheckpoint",
    "SessionRecords",
    "SessionRewind",
    "SessionSpend",
    "SessionUsage",
    "TornTail",
    "ToolCallRepair",
    "RewindRecord",
    "FileSessionStore",
    "MemorySessionStore",
    // Approvals and questions.
    "ApprovalAnswer",
    "ApprovalCall",
    "ApprovalRequest",
    "Approver",
    "NonInteractiveApprover",
    "NonInteractiveApproverOptions",
    "Clarifier",
    "ClarifyAnswer",
    "NoOperatorClarifier",
    "ElicitationAnswer",
    "ElicitationRequest",
    "ElicitationField",
    "ElicitationFieldBase",
    "ElicitationOption",
    "ElicitationValue",
    // Project MCP servers and odek as an MCP server.
    "ApprovedProjectMcpServer",
    "AskProjectMcpServer",
    "McpServerAnswer",
    "McpServerApprovalRequest",
    "ProjectMcpServer",
    "DirectToolCall",
    "serveMcp",
    "McpServeOptions",
    "McpServeHandle",
    "McpServeTransport",
    // Undo and rewind.
    "ConflictAnswer",
    "RewindOutcome",
    "RewindRequest",
    "Turn",
    "WorkspaceSessions",
    "RestoreResult",
    "UnrecordedPath",
    "DiffOptions",
    "FileChange",
  ],
  "src/testing/mod.ts": [
    "FakeOpenAIServer",
    "FakeOpenAIServerOptions",
    "Fault",
    "RecordedRequest",
    "ScriptedToolCall",
    "ScriptedTurn",
    "startFakeOpenAIServer",
    "ScriptedModel",
    "ScriptedModelOptions",
    "ScriptedModelRequest",
    "ScriptedModelTurns",
  ],
};

/**
 * Members of public classes and interfaces hidden from the library's docs with `@internal`: each
 * exists for odek's own surfaces (the CLI, the loop, a durable engine) or is the producer's side
 * of a consumer's object. A new one is a conscious choice: add it here.
 */
const INTERNAL_MEMBERS = [
  "src/broker/tool_broker.ts: entry?: ToolEntry;",
  "src/runtime/subagents/delegate_tasks.ts: classify?: (call: { name: string; args: Record<string, unknown> }) => Verdict | undefined;",
  "src/broker/tool_broker.ts: startServer?(spec: StdioServerSpec): Promise<StdioServerProcess>;",
  "src/broker/tool_broker.ts: startSubagent?(spec: StdioServerSpec): Promise<StdioServerProcess>;",
  "src/config/odek_config.ts: mcpServers: Record<string, McpServerConfig>;",
  "src/runtime/event_subscription.ts: constructor(options: { bufferSize?: number; onClose?: () => void } = {}) {",
  "src/runtime/event_subscription.ts: end(): void {",
  "src/runtime/event_subscription.ts: markDropped(runId: string, sessionId: string | undefined, from: number, to: number): void {",
  "src/runtime/event_subscription.ts: push(event: RuntimeEvent): void {",
  "src/runtime/run.ts: constructor(init: RunInit, warnings: readonly string[] = []) {",
  "src/runtime/runtime.ts: classifier(): Promise<Classifier> {",
  "src/runtime/runtime.ts: configFor(workspace: string): Promise<HostConfig> {",
  "src/runtime/runtime.ts: constructor(init: RuntimeInit) {",
  "src/runtime/runtime.ts: get secretsSummary(): SecretsSummary {",
  "src/runtime/runtime.ts: readonly childDeno: ChildDeno;",
  "src/runtime/runtime.ts: readonly redact: Redactor;",
  "src/runtime/runtime.ts: resolveAddDirs(specs: readonly string[] = []): Promise<{ parsed: AddDir[]; granted: AddDir[] }> {",
  "src/runtime/runtime.ts: resolveWorkspace(",
  'src/runtime/runtime.ts: sandboxContext(): Promise<Omit<SandboxContext, "workspace">> {',
  "src/runtime/session_host.ts: constructor(parts: HostParts) {",
  "src/runtime/session_host.ts: get redact(): Redactor {",
  "src/runtime/session_host_parts.ts: stepRunner?: (journal: StepJournal) => StepRunner;",
];

interface DocTag {
  kind: string;
  doc?: string;
}
interface DocSymbol {
  name: string;
  declarations: {
    location: { filename: string };
    jsDoc?: { doc?: string; tags?: DocTag[] };
  }[];
}

async function publicSymbols(): Promise<Map<string, DocSymbol[]>> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", ...Object.keys(EXPORTS)],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const json = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    nodes: Record<string, { symbols: DocSymbol[] }>;
  };
  const out = new Map<string, DocSymbol[]>();
  for (const entry of Object.keys(EXPORTS)) {
    const node = json.nodes[new URL(entry, `file://${ROOT}`).href];
    assert.ok(node, `deno doc has no node for ${entry}`);
    out.set(entry, node.symbols);
  }
  return out;
}

Deno.test("the library's public API: exactly the intended symbols, each documented with a titled example of its own", async (t) => {
  const symbols = await publicSymbols();
  await t.step("src/mod.ts and src/testing/mod.ts export exactly the intended symbols", () => {
    for (const [entry, expected] of Object.entries(EXPORTS)) {
      const names = symbols.get(entry)!.map((s) => s.name);
      assert.deepEqual([...names].sort(), [...expected].sort(), entry);
    }
  });
  await t.step(
    "each exported symbol is declared in odek's own files, never a third party's",
    () => {
      const foreign: string[] = [];
      for (const list of symbols.values()) {
        for (const symbol of list) {
          for (const { location } of symbol.declarations) {
            const file = location.filename.replace(`file://${ROOT}`, "");
            if (!/^(src|tools\/_catalogue)\//.test(file)) foreign.push(`${symbol.name}: ${file}`);
          }
        }
      }
      assert.deepEqual(foreign, []);
    },
  );
  await t.step(
    "each has a doc comment with a titled example that runs under deno test --doc",
    () => {
      const problems: string[] = [];
      for (const list of symbols.values()) {
        for (const symbol of list) {
          const docs = symbol.declarations.map((d) => d.jsDoc).filter((d) => d !== undefined);
          if (!docs.some((d) => (d.doc ?? "").trim() !== "")) {
            problems.push(
              `${symbol.name}: no doc`,
            );
          }
          const examples = docs.flatMap((d) => d.tags ?? []).filter((tag) =>
            tag.kind === "example"
          );
          if (examples.length === 0) {
            problems.push(`${symbol.name}: no example`);
            continue;
          }
          for (const example of examples) {
            const text = example.doc ?? "";
            const title = text.split("\n")[0].trim();
            if (title === "" || title.startsWith("```")) problems.push(`${symbol.name}: untitled`);
            if (/```(ts|typescript)?[^\n]*\bignore\b/.test(text)) {
              problems.push(`${symbol.name}: an example is ignored`);
            }
            if (!/```ts\n/.test(text)) problems.push(`${symbol.name}: no ts code block`);
          }
        }
      }
      assert.deepEqual(problems, []);
    },
  );
  await t.step("@internal hides only the listed members", async () => {
    const found: string[] = [];
    for (const file of [...(await sourceFiles("src")), ...(await sourceFiles("tools"))]) {
      const lines = (await Deno.readTextFile(join(ROOT, file))).split("\n");
      lines.forEach((line, i) => {
        if (!/^\s*\*?\s*@internal\b/.test(line.replace(/^\s*\/\*\*/, "*"))) return;
        const declaration = lines.slice(i + 1).find((l) => !/^\s*(\*|\/\*\*)/.test(l));
        found.push(`${file}: ${declaration?.trim()}`);
      });
    }
    assert.deepEqual(found.sort(), [...INTERNAL_MEMBERS].sort());
  });
  await t.step("docs/library.md names every exported function and class", async () => {
    const page = await Deno.readTextFile(join(ROOT, "docs/library.md"));
    const missing: string[] = [];
    for (const list of symbols.values()) {
      for (const symbol of list) {
        const kinds = symbol.declarations.map((d) => (d as { kind?: string }).kind);
        if (!kinds.some((k) => k === "function" || k === "class")) continue;
        if (!page.includes(`\`${symbol.name}`)) missing.push(symbol.name);
      }
    }
    assert.deepEqual(missing, []);
  });
});
