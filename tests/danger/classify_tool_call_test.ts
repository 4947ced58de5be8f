import assert from "node:assert/strict";
import type { ClassifyContext } from "../../src/danger/classifier.ts";
import { createClassifier } from "../../src/danger/create_classifier.ts";
import { CONTEXT } from "./_table.ts";

const classifier = await createClassifier();

function verdictOf(
  name: string,
  args: Record<string, unknown>,
  context: ClassifyContext = CONTEXT,
) {
  return classifier.classifyToolCall({ name, args }, context);
}

function summary(name: string, args: Record<string, unknown>, context?: ClassifyContext) {
  const verdict = verdictOf(name, args, context);
  return {
    decision: verdict.decision,
    parts: verdict.parts.map((p) => `${p.riskClass} ${p.targets.join(",")}`.trim()),
  };
}

Deno.test("classifyToolCall() classifies file tools by the path they touch", async (t) => {
  const rows: [string, Record<string, unknown>, string, string][] = [
    ["read_file", { path: "src/a.ts" }, "read /home/ada/proj/src/a.ts", "allow"],
    ["read_file", { path: "/etc/passwd" }, "read /etc/passwd", "allow"],
    ["read_file", { path: "~/.ssh/id_rsa" }, "read /home/ada/proj/~/.ssh/id_rsa", "allow"],
    ["read_file", { path: "/home/ada/.ssh/id_rsa" }, "system_write /home/ada/.ssh/id_rsa", "ask"],
    [
      "read_file",
      { path: "../.aws/credentials" },
      "system_write /home/ada/.aws/credentials",
      "ask",
    ],
    [
      "read_file",
      { path: "/home/ada/.odek/config.jsonc" },
      "blocked /home/ada/.odek/config.jsonc",
      "deny",
    ],
    ["read_file", { path: "/opt/odek/main.ts" }, "blocked /opt/odek/main.ts", "deny"],
    [
      "write_file",
      { path: "src/new.ts", content: "" },
      "local_write /home/ada/proj/src/new.ts",
      "allow",
    ],
    [
      "write_file",
      { path: "/home/ada/.bashrc", content: "" },
      "system_write /home/ada/.bashrc",
      "ask",
    ],
    ["write_file", { path: "../other/x", content: "" }, "system_write /home/ada/other/x", "ask"],
    ["write_file", { path: "/etc/hosts", content: "" }, "system_write /etc/hosts", "ask"],
    ["write_file", { path: "/home/ada/.odek/x", content: "" }, "blocked /home/ada/.odek/x", "deny"],
    ["write_file", { path: "/dev/sda", content: "" }, "blocked /dev/sda", "deny"],
    ["glob", { pattern: "src/**/*.ts" }, "read /home/ada/proj/src", "allow"],
    ["glob", { pattern: "*.md", path: "docs" }, "read /home/ada/proj/docs", "allow"],
    ["glob", { pattern: "/home/ada/.ssh/*" }, "system_write /home/ada/.ssh", "ask"],
    ["read_file", {}, "unknown", "ask"],
    ["write_file", { content: "x" }, "unknown", "ask"],
    ["patch", { path: "src/a.ts", diff: "@@" }, "local_write /home/ada/proj/src/a.ts", "allow"],
    ["patch", { path: "/home/ada/.bashrc" }, "system_write /home/ada/.bashrc", "ask"],
    ["patch", { path: "/opt/odek/main.ts" }, "blocked /opt/odek/main.ts", "deny"],
    ["patch", { old_string: "a" }, "unknown", "ask"],
    ["search_files", { pattern: "x" }, "read /home/ada/proj", "allow"],
    ["search_files", { pattern: "x", path: "src" }, "read /home/ada/proj/src", "allow"],
    [
      "search_files",
      { pattern: "x", path: "/home/ada/.ssh" },
      "system_write /home/ada/.ssh",
      "ask",
    ],
    ["tree", {}, "read /home/ada/proj", "allow"],
    ["tree", { path: "/home/ada/.odek" }, "blocked /home/ada/.odek", "deny"],
    ["file_info", { path: "a.txt" }, "read /home/ada/proj/a.txt", "allow"],
    ["file_info", {}, "unknown", "ask"],
    ["head_tail", { path: "log.txt" }, "read /home/ada/proj/log.txt", "allow"],
    ["head_tail", { path: "/opt/odek/x" }, "blocked /opt/odek/x", "deny"],
  ];
  for (const [name, args, part, decision] of rows) {
    await t.step(`${name} ${JSON.stringify(args)}`, () => {
      assert.deepEqual(summary(name, args), { decision, parts: [part] });
    });
  }
});

Deno.test("classifyToolCall() classifies compute tools as reads with no targets", () => {
  for (const name of ["math_eval", "diff", "json_query", "checksum", "base64"]) {
    assert.deepEqual(summary(name, { path: "/home/ada/.ssh/id_rsa" }), {
      decision: "allow",
      parts: ["read"],
    }, name);
    const untrusted = verdictOf(name, {}, { ...CONTEXT, trustLevel: "untrusted" });
    assert.equal(untrusted.decision, "allow", name);
  }
});

Deno.test("classifyToolCall() classifies shell calls by their command", () => {
  assert.deepEqual(summary("shell", { command: "git status" }), {
    decision: "allow",
    parts: ["read"],
  });
  const risky = verdictOf("shell", { command: "npm test && rm -rf ~/projects" });
  assert.equal(risky.decision, "ask");
  assert.equal(risky.reason, "rm -rf ~/projects: destructive (deletes outside the workspace)");
  assert.deepEqual(summary("shell", {}), { decision: "ask", parts: ["unknown"] });
  assert.equal(verdictOf("shell", { command: "cat /home/ada/.odek/x" }).decision, "deny");
});

Deno.test("classifyToolCall() classifies web tools by the URL's host", () => {
  assert.deepEqual(summary("http_request", { url: "https://docs.e.example/a?b=c" }), {
    decision: "ask",
    parts: ["network docs.e.example"],
  });
  assert.deepEqual(summary("browser", { url: "https://docs.e.example/" }), {
    decision: "ask",
    parts: ["network docs.e.example"],
  });
  assert.deepEqual(summary("http_request", { url: "not a url" }), {
    decision: "ask",
    parts: ["network"],
  });
  // Names of web tools odek does not have are not tools: unknown, like any other name.
  for (const name of ["web_fetch", "web_search", "fetch_url", "http_batch"]) {
    assert.deepEqual(summary(name, { url: "https://docs.e.example/", query: "x" }).parts, [
      "unknown",
    ], name);
  }
});

Deno.test("classifyToolCall() applies a provider's rule to a tool the catalogue lacks", () => {
  const call = { name: "lookup", args: { url: "https://docs.e.example/" } };
  const rule = { kind: "url", arg: "url" } as const;
  assert.deepEqual(
    classifier.classifyToolCall({ ...call, rule }, CONTEXT).parts.map((p) => p.targets),
    [["docs.e.example"]],
  );
  const fixed = { kind: "fixed", class: "read", detail: "reads a cache" } as const;
  assert.equal(classifier.classifyToolCall({ ...call, rule: fixed }, CONTEXT).decision, "allow");
});

Deno.test("classifyToolCall() treats MCP tools as unknown unless their server is trusted", () => {
  assert.deepEqual(summary("github__create_issue", { title: "x" }), {
    decision: "ask",
    parts: ["unknown"],
  });
  const trusting = { ...CONTEXT, trustedMcpServers: ["github"] };
  assert.deepEqual(summary("github__create_issue", { title: "x" }, trusting), {
    decision: "allow",
    parts: ["code_execution"],
  });
  assert.deepEqual(summary("gitlab__create_issue", {}, trusting).parts, ["unknown"]);
  assert.deepEqual(summary("frobnicate", {}), { decision: "ask", parts: ["unknown"] });
});

Deno.test("classifyToolCall() decides at the context's trust level", () => {
  const call = { command: "curl https://e.example" };
  assert.equal(verdictOf("shell", call, { ...CONTEXT, trustLevel: "untrusted" }).decision, "deny");
  assert.equal(verdictOf("shell", call, { ...CONTEXT, trustLevel: "trusted" }).decision, "ask");
  const trusted = {
    ...CONTEXT,
    trustLevel: "trusted" as const,
    trustedClasses: ["network" as const],
  };
  assert.equal(verdictOf("shell", call, trusted).decision, "allow");
  const standard = { ...CONTEXT, trustedClasses: ["network" as const] };
  assert.equal(verdictOf("shell", call, standard).decision, "ask");
  const read = { command: "ls" };
  assert.equal(verdictOf("shell", read, { ...CONTEXT, trustLevel: "untrusted" }).decision, "allow");
});

Deno.test("classifyToolCall() returns unknown for a command it cannot classify, never throws", () => {
  for (const command of ["echo $((", "x".repeat(300_000), "\u0000", "$(((((("]) {
    const verdict = verdictOf("shell", { command });
    assert.equal(verdict.decision, "ask", command.slice(0, 20));
    assert.ok(verdict.parts.every((p) => p.riskClass === "unknown"), command.slice(0, 20));
  }
});

Deno.test("classifyToolCall(): bg_start is classified like shell; detached it always asks; core and bg_* inspection tools read", () => {
  assert.deepEqual(summary("bg_start", { command: "npm run dev" }).decision, "allow");
  assert.equal(summary("bg_start", { command: "curl https://e.example" }).decision, "ask");
  const everything = {
    ...CONTEXT,
    trustLevel: "trusted" as const,
    trustedClasses: ["code_execution" as const, "unknown" as const],
  };
  const detached = verdictOf("bg_start", { command: "npm run dev", detach: true }, everything);
  assert.equal(detached.decision, "ask");
  assert.match(detached.reason, /detached job always asks/);
  assert.equal(
    verdictOf("bg_start", { command: "npm run dev", detach: true }, {
      ...CONTEXT,
      trustLevel: "untrusted",
    }).decision,
    "deny",
  );
  for (const name of ["bg_list", "bg_status", "bg_output", "bg_stop", "plan", "clarify"]) {
    assert.deepEqual(summary(name, { id: "bg1" }), { decision: "allow", parts: ["read"] }, name);
  }
});
