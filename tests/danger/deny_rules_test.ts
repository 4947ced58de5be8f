import assert from "node:assert/strict";
import type { DenyRule } from "../../src/config/deny_rule.ts";
import type { ClassifyContext } from "../../src/danger/classifier.ts";
import { createClassifier } from "../../src/danger/create_classifier.ts";
import type { RiskClass } from "../../src/danger/verdict.ts";

// Classified only, never run: the classifier is pure.
const classifier = await createClassifier();
const WS = "/srv/ws";
const PROJECT = "/srv/ws/odek.jsonc";
const USER = "/home/ada/.odek/config.jsonc";
const rules: DenyRule[] = [
  { kind: "command", pattern: "git push *", layer: "project", source: PROJECT },
  { kind: "command", pattern: "npm publish", layer: "user", source: USER },
  { kind: "command", pattern: "curl * --upload-file*", layer: "user", source: USER },
  { kind: "path", pattern: "secrets/**", layer: "project", source: PROJECT },
  { kind: "path", pattern: "~/.config/gcloud", layer: "user", source: USER },
  { kind: "path", pattern: "/srv/shared/private/**", layer: "user", source: USER },
  { kind: "domain", pattern: "*.example.com", layer: "project", source: PROJECT },
  { kind: "domain", pattern: "exact.test", layer: "user", source: USER },
];
const ALL_CLASSES: RiskClass[] = [
  "read",
  "local_write",
  "code_execution",
  "network",
  "system_write",
  "destructive",
  "privileged",
  "unknown",
];
const context = (extra: Partial<ClassifyContext> = {}): ClassifyContext => ({
  workspace: WS,
  home: "/home/ada",
  protectedRoots: ["/home/ada/.odek", "/opt/odek"],
  trustLevel: "trusted",
  trustedClasses: ALL_CLASSES,
  denyRules: rules,
  ...extra,
});
const shell = (command: string, extra?: Partial<ClassifyContext>) =>
  classifier.classifyToolCall({ name: "shell", args: { command } }, context(extra));

Deno.test("a command rule denies every simple command it names, however the command is wrapped", async (t) => {
  const denied = [
    "git push origin main",
    "git push",
    "git -C /srv/ws push --force",
    "git -c user.name=x push origin",
    "/usr/bin/git push origin",
    "sudo git push",
    "env GIT_TRACE=1 git push origin",
    "timeout 30 git push",
    "command git push",
    "nice -n 5 git push",
    "echo ok && git push origin",
    "git status; git push",
    "false || git push",
    "ls | xargs git push",
    "echo $(git push origin)",
    "bash -c 'git push origin'",
    'sh -c "cd sub && git push"',
    "eval 'git push'",
    "f() { git push origin; }; f",
    "echo 'git push' | sh",
    "find . -name x -exec git push \\;",
    "git push $REMOTE main",
    "npm publish",
    "npm publish --tag next",
    "curl https://127.0.0.1/x --upload-file=a.txt",
  ];
  for (const command of denied) {
    await t.step(command, () => {
      const verdict = shell(command);
      assert.equal(verdict.decision, "deny", verdict.reason);
      const part = verdict.parts.find((p) => p.denyRule);
      assert.ok(part, JSON.stringify(verdict.parts));
      assert.equal(part.riskClass, "blocked");
      assert.match(
        verdict.reason,
        /denied by the deny rule "[^"]+" of the (project|user) layer \(/,
      );
    });
  }
  const allowed = [
    "git status",
    "git log --grep push",
    "git pushx",
    "echo git push",
    "printf 'git push'",
    "npm test",
    "curl https://127.0.0.1/x",
  ];
  for (const command of allowed) {
    await t.step(`not: ${command}`, () => {
      assert.ok(!shell(command).parts.some((p) => p.denyRule), command);
    });
  }
});

Deno.test("a deny names the rule, its layer and its file, and beats every trust level and trusted class", async (t) => {
  for (const trustLevel of ["untrusted", "standard", "trusted"] as const) {
    await t.step(trustLevel, () => {
      const verdict = shell("git push origin main", { trustLevel });
      assert.equal(verdict.decision, "deny");
      const part = verdict.parts.find((p) => p.denyRule)!;
      assert.deepEqual(part.denyRule, rules[0]);
      assert.match(
        part.detail!,
        /^denied by the deny rule "git push \*" of the project layer \(\/srv\/ws\/odek\.jsonc\)$/,
      );
    });
  }
});

Deno.test("a path rule denies reads and writes of what it names, by shell and by file tools", async (t) => {
  const denied: [string, Record<string, unknown>][] = [
    ["shell", { command: "cat secrets/key.pem" }],
    ["shell", { command: "cat secrets" }],
    ["shell", { command: "cat < secrets/key.pem" }],
    ["shell", { command: "echo x > secrets/new.txt" }],
    ["shell", { command: "cp secrets/key.pem /tmp/k" }],
    ["shell", { command: "cd secrets && cat key.pem" }],
    ["shell", { command: "grep -r token --include=x secrets/" }],
    ["shell", { command: "tar czf out.tgz secrets" }],
    ["shell", { command: "cat ~/.config/gcloud/credentials.db" }],
    ["shell", { command: "ls /srv/shared/private/x" }],
    ["shell", { command: "bash -c 'cat ./secrets/key.pem'" }],
    ["read_file", { path: "secrets/key.pem" }],
    ["read_file", { path: "/srv/ws/secrets/key.pem" }],
    ["write_file", { path: "secrets/new.txt", content: "x" }],
    ["glob", { pattern: "secrets/**" }],
  ];
  for (const [name, args] of denied) {
    await t.step(`${name} ${JSON.stringify(args)}`, () => {
      const verdict = classifier.classifyToolCall({ name, args }, context());
      assert.equal(verdict.decision, "deny", verdict.reason);
      assert.ok(verdict.parts.some((p) => p.denyRule?.kind === "path"), verdict.reason);
    });
  }
  for (const command of ["cat src/app.ts", "ls", "cat secrets.md", "cat ../other/secrets/x"]) {
    await t.step(`not: ${command}`, () => {
      assert.ok(!shell(command).parts.some((p) => p.denyRule), command);
    });
  }
});

Deno.test("a domain rule denies the network parts that reach it, by shell and by web tools", async (t) => {
  for (
    const [name, args] of [
      ["shell", { command: "curl https://api.example.com/v1" }],
      ["shell", { command: "curl https://example.com/" }],
      ["shell", { command: "git clone https://git.example.com/r.git" }],
      ["shell", { command: "wget http://exact.test/file" }],
      ["http_request", { url: "https://cdn.example.com/x" }],
    ] as [string, Record<string, unknown>][]
  ) {
    await t.step(`${name} ${JSON.stringify(args)}`, () => {
      const verdict = classifier.classifyToolCall({ name, args }, context());
      assert.equal(verdict.decision, "deny", verdict.reason);
      assert.ok(verdict.parts.some((p) => p.denyRule?.kind === "domain"), verdict.reason);
    });
  }
  for (const command of ["curl https://sub.exact.test/", "curl https://badexample.com/"]) {
    await t.step(`not: ${command}`, () => {
      assert.ok(!shell(command).parts.some((p) => p.denyRule), command);
    });
  }
  await t.step('"*" denies every network part, a host known only at run time too', () => {
    const every: DenyRule[] = [{ kind: "domain", pattern: "*", layer: "project", source: PROJECT }];
    const verdict = shell('curl "$(cat url.txt)"', { denyRules: every });
    assert.equal(verdict.decision, "deny", verdict.reason);
    assert.equal(shell("curl http://127.0.0.1:8080/", { denyRules: every }).decision, "allow");
  });
});

Deno.test("classifyCommand() applies the rules too (what odek classify and runs share)", () => {
  const parts = classifier.classifyCommand("cat secrets/a && git push", context());
  assert.deepEqual(
    parts.filter((p) => p.denyRule).map((p) => p.denyRule!.pattern).sort(),
    ["git push *", "secrets/**"],
  );
});

Deno.test("no rules: verdicts are unchanged", () => {
  const verdict = shell("git push origin main", { denyRules: [], trustLevel: "standard" });
  assert.equal(verdict.decision, "ask");
});
