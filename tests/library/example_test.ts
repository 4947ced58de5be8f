import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { ROOT } from "../arch/_source_files.ts";

const read = (path: string) => Deno.readTextFile(join(ROOT, path));

/** The fenced blocks of one language in a Markdown page, in order. */
function blocks(page: string, lang: string): string[] {
  return [...page.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]);
}

/** The code of a script without its comment lines and its import of odek. */
function body(code: string): string {
  return code.split("\n").filter((line) => !line.startsWith("//") && !line.startsWith("import "))
    .join("\n").trim();
}

/** This process's deno cache: the example and its tool children find their packages there. */
function denoDir(): string {
  const xdg = Deno.env.get("XDG_CACHE_HOME");
  return Deno.env.get("DENO_DIR") ??
    (xdg ? join(xdg, "deno") : join(Deno.env.get("HOME") ?? "/root", ".cache", "deno"));
}

Deno.test("docs/library.md starts with the example of examples/sandboxed_task.ts and the deno run line it needs", async () => {
  const page = await read("docs/library.md");
  const script = await read("examples/sandboxed_task.ts");
  const [code] = blocks(page, "ts");
  assert.ok(page.indexOf("```ts") < 600, "the example comes first");
  assert.equal(body(code), body(script));
  assert.match(code, /^import \{ createRuntime \} from "file:\/\/\/[^"]+\/src\/mod\.ts";/m);
  assert.ok(code.split("\n").length <= 14, "about ten lines");
  const [shell] = blocks(page, "sh");
  const line = shell.split("\n").find((l) => l.startsWith("deno run "));
  assert.ok(line, "a deno run line");
  assert.ok(script.includes(`// ${line}\n`), `the script names the same line: ${line}`);
  assert.doesNotMatch(line, /\s(-A|--allow-all|--allow-ffi)\b/);
});

sandboxTest(
  "examples/sandboxed_task.ts runs from a folder outside the checkout, importing odek by absolute file URL, against the fake server",
  async () => {
    const page = await read("docs/library.md");
    const line = blocks(page, "sh")[0].split("\n").find((l) => l.startsWith("deno run "))!;
    const words = line.split(/\s+/);
    const scriptAt = words.findIndex((w) => w.endsWith(".ts"));
    const flags = words.slice(2, scriptAt).map((w) => w.replace("~/odek/", ROOT));
    const root = await Deno.realPath(
      await Deno.makeTempDir({ dir: "/var/tmp", prefix: "odek-example-" }),
    );
    const home = join(root, "home");
    const scripts = join(root, "scripts");
    const workspace = join(root, "project");
    for (const dir of [home, scripts, workspace]) await Deno.mkdir(dir);
    // A canary in the home: a sandboxed program must not see it (its home is an empty tmpfs).
    await Deno.writeTextFile(join(home, "canary.txt"), "the real home");
    const entry = new URL("src/mod.ts", `file://${ROOT}`).href;
    const script = (await read("examples/sandboxed_task.ts")).replace(
      '"../src/mod.ts"',
      `"${entry}"`,
    );
    assert.ok(script.includes(entry), "the import was rewritten to an absolute file URL");
    await Deno.writeTextFile(join(scripts, "sandboxed_task.ts"), script);
    await using server = await startFakeOpenAIServer({
      turns: [
        {
          toolCalls: [
            { name: "write_file", arguments: { path: "note.txt", content: "written by a tool\n" } },
          ],
        },
        {
          toolCalls: [{
            name: "shell",
            arguments: { command: "cat note.txt; cat ~/canary.txt || echo home-hidden" },
          }],
        },
        { text: "The note is written." },
      ],
    });
    try {
      const output = await new Deno.Command(Deno.execPath(), {
        args: ["run", ...flags, join(scripts, "sandboxed_task.ts"), "write a note"],
        cwd: workspace,
        clearEnv: true,
        env: {
          PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
          HOME: home,
          DENO_DIR: denoDir(),
          ODEK_BASE_URL: server.url,
          ODEK_MODEL: "fake-model",
          NO_COLOR: "1",
        },
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(120_000),
      }).output();
      const stdout = new TextDecoder().decode(output.stdout);
      const stderr = new TextDecoder().decode(output.stderr);
      assert.equal(output.code, 0, `${stdout}\n${stderr}`);
      assert.equal(stdout, "→ write_file\n→ shell\nThe note is written.\n", stderr);
      assert.equal(await Deno.readTextFile(join(workspace, "note.txt")), "written by a tool\n");
      const sent = JSON.stringify(server.requests[2].body.messages);
      assert.match(sent, /written by a tool/);
      assert.match(sent, /home-hidden/);
      assert.doesNotMatch(sent, /the real home/);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
);
