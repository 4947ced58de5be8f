/**
 * Issue 21 end to end: a real `odek run` (the fake OpenAI-compatible server answering the parent
 * and its sub-agents) delegates three tasks on a pseudo terminal. While the sub-agents run, no
 * process under odek's core has the API key in its environment or command line, and the
 * sub-agents' Deno has no --allow-* flag at all; the one that needs approval is answered on the
 * parent's terminal prompt; a read-only one is refused its write; usage is summed in the parent's
 * journal. Then: SIGKILL of the parent leaves no sub-agent alive within 5 s, and `odek continue`
 * names the sub-agents it interrupted.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type RecordedRequest,
  startFakeOpenAIServer,
} from "../../src/testing/fake_openai_server.ts";
import type { ScriptedTurn } from "../../src/testing/fake_openai_server.ts";
import { ODEK_FLAGS, odekFixture, ROOT } from "./_odek.ts";
import { descendants, listProcesses, waitFor } from "./_process_tree.ts";
import { goalOf, isSubagent, subagentScript } from "../runtime/subagents/_subagent_script.ts";

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
const HAS_SCRIPT = await new Deno.Command("script", {
  args: ["--version"],
  stdout: "null",
  stderr: "null",
})
  .output().then(() => true, () => false);
if (!HAS_SCRIPT) {
  console.error("skipping the sub-agent pty test: `script` is missing (apt-get install bsdutils)");
}

function token(): string {
  return [...crypto.getRandomValues(new Uint8Array(6))].map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}

/**
 * Resolves once `count` callers arrived, or after `ms` (false). The last caller runs `before`
 * first, while every other caller still waits.
 */
function barrier(count: number, ms: number, before: () => Promise<void> = () => Promise.resolve()) {
  let arrived = 0;
  let open: (all: boolean) => void = () => {};
  const all = new Promise<boolean>((resolve) => (open = resolve));
  const timer = setTimeout(() => open(false), ms);
  return {
    all,
    async arrive() {
      if (++arrived === count) {
        clearTimeout(timer);
        await before();
        open(true);
      }
      return await all;
    },
  };
}

async function records(odekHome: string, id: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(join(odekHome, "sessions", `${id}.jsonl`));
  return text.trim().split("\n").map((line) => JSON.parse(line));
}

Deno.test({
  name:
    "odek run delegates three tasks: no key below the core, approval on the parent's terminal, usage summed",
  ignore: !HAS_SCRIPT,
  fn: async () => {
    await using fx = await odekFixture();
    await using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    await Deno.writeTextFile(join(fx.workspace, "a.txt"), "alpha\n");
    const session = `p${token()}`;
    const apiKey = `sk-odek-test-${token()}${token()}`;
    const seen = new Set<string>();
    const script = subagentScript((results) =>
      results.length === 0
        ? {
          toolCalls: [{
            id: "d1",
            name: "delegate_tasks",
            arguments: {
              tasks: [
                { goal: "read", context: "look at a.txt" },
                { goal: "write", trust_level: "standard", workspace_access: "write" },
                { goal: "ask", trust_level: "standard" },
              ],
            },
          }],
        }
        : { text: "all three done" }, {
      read: (r) =>
        r.length === 0
          ? {
            toolCalls: [{
              id: "r1",
              name: "write_file",
              arguments: { path: "sneak.txt", content: "x" },
            }],
          }
          : {
            text: `read: ${
              r[0].includes("unknown") || r[0].includes("Unknown") ? "refused" : r[0].slice(0, 200)
            }`,
          },
      write: (r) =>
        r.length === 0
          ? {
            toolCalls: [{
              id: "w1",
              name: "write_file",
              arguments: { path: "b.txt", content: "beta\n" },
            }],
          }
          : { text: "write: wrote b.txt" },
      ask: (r) =>
        r.length === 0
          ? {
            toolCalls: [{
              id: "h1",
              name: "http_request",
              arguments: { url: `http://127.0.0.1:${port}/` },
            }],
          }
          : { text: `ask: ${r[0].slice(0, 200)}` },
    });
    let leaks: string[] | undefined;
    let subagentArgv: string[][] = [];
    const child = { pid: 0 };
    // While all three sub-agents wait for their first turn: look at odek's whole process tree.
    const scan = async () => {
      leaks = [];
      const all = await listProcesses();
      const core = descendants(all, child.pid).find((p) =>
        p.argv[0] === Deno.execPath() && p.argv.includes(`${ROOT}main.ts`)
      );
      assert.ok(core, "odek's core process");
      const below = descendants(all, core.pid);
      subagentArgv = below.filter((p) => p.cmdline.includes("subagent_main.ts")).map((p) => p.argv);
      for (const p of below) {
        const who = `${p.pid} (${p.argv.slice(0, 4).join(" ")})`;
        if (p.cmdline.includes(apiKey)) leaks.push(`${who}: cmdline`);
        if (p.environ?.includes(apiKey)) leaks.push(`${who}: environ`);
        if (p.environ === null && p.cmdline.includes("subagent_main.ts")) {
          leaks.push(`${who}: a sub-agent's environment could not be read`);
        }
      }
    };
    const together = barrier(3, 60_000, scan);
    const turns = async (request: RecordedRequest): Promise<ScriptedTurn> => {
      const body = request.body;
      if (isSubagent(body) && !seen.has(goalOf(body))) {
        seen.add(goalOf(body));
        await together.arrive();
      }
      return script(body);
    };
    await using server = await startFakeOpenAIServer({ turns, strict: true });
    const argv = [
      Deno.execPath(),
      ...ODEK_FLAGS,
      join(ROOT, "main.ts"),
      "run",
      "--session",
      session,
      "--base-url",
      server.url,
      "delegate three tasks",
    ];
    const proc = new Deno.Command("script", {
      args: ["-qfec", argv.map(quote).join(" "), "/dev/null"],
      env: { ...fx.env, ODEK_API_KEY: apiKey },
      clearEnv: true,
      cwd: fx.workspace,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(120_000),
    }).spawn();
    child.pid = proc.pid;
    const writer = proc.stdin.getWriter();
    const reader = proc.stdout.getReader();
    let screen = "";
    while (!/Call 1 \(http_request\): y = yes once/.test(screen)) {
      const { value, done } = await reader.read();
      if (done) break;
      screen += new TextDecoder().decode(value);
    }
    assert.match(screen, /http_request \[network\] asked by sub-agent 3 of 3 \("ask"\)/, screen);
    await writer.write(new TextEncoder().encode("y\n"));
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      screen += new TextDecoder().decode(value);
    }
    await writer.close().catch(() => {});
    const { code } = await proc.status;
    await proc.stderr.cancel();
    assert.equal(code, 0, screen);
    assert.equal(await together.all, true, "the three sub-agents ran at once");
    assert.deepEqual(leaks, []);
    assert.equal(subagentArgv.length, 3);
    for (const a of subagentArgv) {
      assert.deepEqual(a.filter((x) => x.startsWith("--allow")), [], a.join(" "));
    }
    // The parent's last request holds the three results.
    const last = server.requests.at(-1)!.body;
    const tool = last.messages.find((m: { role: string }) => m.role === "tool").content as string;
    const { results } = JSON.parse(tool.slice(tool.indexOf("{"), tool.lastIndexOf("}") + 1));
    assert.deepEqual(results.map((r: { status: string }) => r.status), [
      "completed",
      "completed",
      "completed",
    ]);
    assert.equal(results[0].summary, "read: refused");
    assert.equal(results[1].summary, "write: wrote b.txt");
    assert.match(results[2].summary, /^ask: /);
    assert.equal(await Deno.readTextFile(join(fx.workspace, "b.txt")), "beta\n");
    await assert.rejects(Deno.stat(join(fx.workspace, "sneak.txt")), Deno.errors.NotFound);
    // Every request's tokens, the sub-agents' included, are in the parent's usage records.
    const usage = (await records(fx.odekHome, session)).filter((r) => r.t === "usage");
    const sum = (k: "inputTokens" | "outputTokens") => usage.reduce((n, r) => n + Number(r[k]), 0);
    assert.equal(usage.length, server.requests.length);
    assert.ok(sum("inputTokens") > 0);
    assert.equal(sum("inputTokens"), server.requests.reduce((n, r) => n + r.promptTokens, 0));
  },
});

Deno.test("SIGKILL of the parent leaves no sub-agent alive within 5 s; odek continue names them", async () => {
  await using fx = await odekFixture();
  const session = `k${token()}`;
  const together = barrier(2, 60_000);
  let hang: () => void = () => {};
  const hung = new Promise<void>((resolve) => (hang = resolve));
  let resumed = false;
  const turns = async (request: RecordedRequest): Promise<ScriptedTurn> => {
    const body = request.body;
    if (resumed) return { text: "resumed" };
    if (isSubagent(body)) {
      await together.arrive();
      await hung; // Never answered before the parent dies.
      return { text: "too late" };
    }
    return {
      toolCalls: [{
        id: "d1",
        name: "delegate_tasks",
        arguments: { tasks: [{ goal: "slow one" }, { goal: "slow two" }] },
      }],
    };
  };
  await using server = await startFakeOpenAIServer({ turns, strict: true });
  const proc = fx.spawn(["run", "--session", session, "--base-url", server.url, "delegate"], {
    noTerminal: true,
  });
  try {
    assert.equal(await together.all, true, "both sub-agents asked for their first turn");
    const marker = `${session}.sub-`;
    const all = await listProcesses();
    const subagents = all.filter((p) => p.cmdline.includes(marker));
    assert.equal(subagents.length, 2, JSON.stringify(subagents.map((p) => p.argv)));
    const core = all.find((p) =>
      p.argv[0] === Deno.execPath() && p.argv.includes(`${ROOT}main.ts`) && p.argv.includes(session)
    );
    assert.ok(core);
    Deno.kill(core.pid, "SIGKILL");
    const gone = await waitFor(
      async () => (await listProcesses()).every((p) => !p.cmdline.includes(marker)),
      5_000,
    );
    assert.equal(gone, true, "no sub-agent process is left 5 s after the parent was killed");
  } finally {
    hang();
    await proc.status;
    await proc.stdout.cancel();
    await proc.stderr.cancel();
  }
  resumed = true;
  const result = await fx.run(["continue", session, "--base-url", server.url], {
    noTerminal: true,
  });
  assert.equal(result.code, 0, result.stderr);
  const named =
    result.stderr.match(/sub-agent \S+\.sub-[0-9a-f]{6} \("slow (one|two)"\) was interrupted/g) ??
      [];
  assert.equal(named.length, 2, result.stderr);
});
