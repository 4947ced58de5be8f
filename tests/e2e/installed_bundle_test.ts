/**
 * The installed command runs a bundle of the core (`scripts/build_bundle.ts`, `src/bundle_main.ts`):
 * `--version`, a run with a `shell` and a `read_file` call, `odek continue` (a lazy chunk), a real
 * MCP server (the lazy MCP chunk), `odek serve`'s page (the checkout's `web/`), and a bundle whose
 * stamp no longer matches the checkout is not run (the sources are). And when bundling fails, the
 * install still succeeds and its launcher runs the sources.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { BUNDLE_STAMP_FILE, type BundleStamp } from "../../src/_util/bundle_stamp.ts";
import { ODEK_VERSION } from "../../src/cli/version.ts";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { bwrap } from "../_helpers/sandbox.ts";
import { installAsUser, odekFixture, ROOT, toolMessages } from "./_odek.ts";

const STALE = /not running the installed bundle/;

const FILESYSTEM = join(
  ROOT,
  "tests/mcp/fixtures/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
);
const hasFixture = await Deno.stat(FILESYSTEM).then(() => true, () => false);
const hasNode = await Deno.stat("/usr/bin/node").then(() => true, () => false);
const mcpSkip = !hasFixture
  ? "the MCP fixture servers are not installed: npm ci --prefix tests/mcp/fixtures"
  : !hasNode
  ? "node is not installed at /usr/bin (apt-get install nodejs)"
  : undefined;
if (bwrap === null) {
  console.error(
    "skipping the installed-bundle test: bwrap is missing (apt-get install bubblewrap)",
  );
} else if (mcpSkip) console.error(`skipping the installed bundle's MCP step: ${mcpSkip}`);

Deno.test({
  name:
    "the installed odek runs its bundle: --version, shell and read_file, continue, an MCP server, serve's page; a stale bundle is not run",
  ignore: bwrap === null,
  async fn(t) {
    await using fx = await odekFixture();
    // A folder name that a file URL percent-encodes (a space, a "%" and what looks like an escape):
    // the bundle's entry takes its folder from its module URL.
    const prefix = join(fx.home, "my bin %41 %zz");
    const log = await installAsUser(prefix);
    assert.match(log, /it runs a bundle of odek's core \(.*\/bundle-[^/]+\/bundle_main\.js\)/);
    const launcher = join(prefix, "odek");
    const script = await Deno.readTextFile(launcher);
    const entry = script.match(/'([^']+\/bundle_main\.js)' "\$@"\n$/)?.[1];
    assert.ok(entry, script);
    const bundleDir = entry.slice(0, -"/bundle_main.js".length);
    const as = { launcher, noTerminal: true };

    await t.step("--version answers from the bundle", async () => {
      const out = await fx.run(["--version"], as);
      assert.equal(out.code, 0, out.stderr);
      assert.ok(out.stdout.startsWith(`odek ${ODEK_VERSION} (deno `), out.stdout);
      assert.doesNotMatch(out.stderr, STALE);
      // odek doctor says what the core runs from.
      const doctor = await fx.run(["doctor", "--json"], as);
      const code = JSON.parse(doctor.stdout).launcher.code;
      assert.equal(code.runs, "bundle", doctor.stdout);
      assert.equal(code.bundle, bundleDir);
      assert.equal(code.stale, undefined);
    });

    await t.step("a run with a shell and a read_file call, then odek continue", async () => {
      await using model = await startFakeOpenAIServer({
        turns: [
          {
            toolCalls: [{
              id: "s1",
              name: "shell",
              arguments: { command: "echo made-by-shell > out.txt" },
            }],
          },
          { toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "out.txt" } }] },
          { text: "The file says made-by-shell." },
          { text: "Continued." },
        ],
      });
      const run = await fx.run(
        ["run", "--session", "bundled", "--base-url", model.url, "make out.txt and read it"],
        as,
      );
      assert.equal(run.code, 0, run.stderr);
      assert.doesNotMatch(run.stderr, STALE);
      assert.match(run.stderr, /✓ shell echo made-by-shell > out\.txt/);
      assert.match(run.stderr, /✓ read_file out\.txt/);
      assert.equal(await Deno.readTextFile(join(fx.workspace, "out.txt")), "made-by-shell\n");
      const [, read] = toolMessages(model.requests[2].body);
      assert.match(read.content, /made-by-shell/);
      const more = await fx.run(["continue", "bundled", "and now?"], as);
      assert.equal(more.code, 0, more.stderr);
      assert.equal(model.requests.length, 4);
      assert.match(JSON.stringify(model.requests[3].body), /and now\?/);
    });

    await t.step({
      name: "an MCP server's tool runs (the MCP provider is a chunk of the bundle)",
      ignore: mcpSkip !== undefined,
      fn: async () => {
        await Deno.writeTextFile(join(fx.workspace, "hello.txt"), "hello from the workspace\n");
        const modules = join(ROOT, "tests/mcp/fixtures/node_modules");
        const mcpServers = {
          fs: {
            command: "node",
            args: [FILESYSTEM, fx.workspace],
            readPaths: [modules],
            trusted: true,
          },
        };
        await Deno.writeTextFile(join(fx.odekHome, "config.jsonc"), JSON.stringify({ mcpServers }));
        try {
          await using model = await startFakeOpenAIServer({
            turns: [
              {
                toolCalls: [{
                  id: "m1",
                  name: "fs__read_text_file",
                  arguments: { path: join(fx.workspace, "hello.txt") },
                }],
              },
              { text: "done" },
            ],
          });
          const run = await fx.run(["run", "--base-url", model.url, "read hello.txt"], as);
          assert.equal(run.code, 0, run.stderr);
          const [read] = toolMessages(model.requests[1].body);
          assert.match(read.content, /hello from the workspace/);
        } finally {
          await Deno.remove(join(fx.odekHome, "config.jsonc"));
        }
      },
    });

    await t.step("odek serve serves the checkout's web/ page", async () => {
      const child = fx.spawn(["serve", "--port", "0"], { launcher });
      try {
        const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
        let said = "";
        while (!/open (http:\/\/127\.0\.0\.1:\d+\/\?token=\w+)/.test(said)) {
          const { value, done } = await lines.read();
          if (done) throw new Error(`serve ended before printing its address: ${said}`);
          said += value;
        }
        lines.releaseLock();
        const url = new URL(said.match(/open (\S+)/)![1]);
        const token = url.searchParams.get("token")!;
        const page = await fetch(new URL("/", url), {
          headers: { cookie: `odek_token=${token}` },
        });
        assert.equal(page.status, 200);
        assert.equal(await page.text(), await Deno.readTextFile(join(ROOT, "web/index.html")));
        const css = await fetch(new URL("/style.css", url));
        assert.equal(css.status, 200);
        assert.equal(await css.text(), await Deno.readTextFile(join(ROOT, "web/style.css")));
      } finally {
        child.kill("SIGTERM");
        await child.status;
        await child.stdout.cancel().catch(() => {});
        await child.stderr.cancel();
      }
    });

    await t.step("a bundle older than a source file is not run: the sources are", async () => {
      const path = join(bundleDir, BUNDLE_STAMP_FILE);
      const fresh = await Deno.readTextFile(path);
      const stamp: BundleStamp = JSON.parse(fresh);
      assert.ok(Object.keys(stamp.files).length > 300, "the stamp lists the bundle's inputs");
      assert.ok("src/cli/run_command.ts" in stamp.files && "deno.lock" in stamp.files);
      const notice = (file: string) =>
        new RegExp(
          `^odek: not running the installed bundle \\(${file} changed since the bundle was built\\): running the sources of ${
            ROOT.replace(/\/$/, "")
          } `,
        );
      // As if run_command.ts had been edited after the install (the checkout itself is shared).
      stamp.files["src/cli/run_command.ts"][0] -= 1000;
      await Deno.writeTextFile(path, JSON.stringify(stamp));
      const help = await fx.run(["run", "--help"], as);
      assert.equal(help.code, 0, help.stderr);
      assert.match(help.stdout, /odek run/);
      assert.match(help.stderr, notice("src/cli/run_command\\.ts"));
      assert.equal(help.stderr.trim().split("\n").length, 1, help.stderr);
      const doctor = await fx.run(["doctor", "--json"], as);
      const code = JSON.parse(doctor.stdout).launcher.code;
      assert.equal(code.runs, "sources", doctor.stdout);
      assert.match(code.stale, /src\/cli\/run_command\.ts changed since the bundle was built/);
      // --version compares only what it runs (the entry's static graph)...
      const version = await fx.run(["--version"], as);
      assert.equal(version.code, 0, version.stderr);
      assert.equal(version.stderr, "");
      // ...so a change there is caught by --version too.
      stamp.files["src/cli/version.ts"][1] += 1;
      await Deno.writeTextFile(path, JSON.stringify(stamp));
      const changed = await fx.run(["--version"], as);
      assert.equal(changed.code, 0, changed.stderr);
      assert.ok(changed.stdout.startsWith(`odek ${ODEK_VERSION} (deno `), changed.stdout);
      assert.match(changed.stderr, notice("src/cli/version\\.ts"));
      await Deno.writeTextFile(path, fresh);
    });
  },
});

Deno.test("when bundling fails, the install still succeeds and its launcher runs the sources, saying why once", async () => {
  await using fx = await odekFixture();
  // An empty deno cache and a registry nobody listens on: esbuild cannot be fetched.
  const denoDir = join(fx.home, "empty-deno-dir");
  await Deno.mkdir(denoDir);
  const env = {
    ...fx.env,
    DENO_DIR: denoDir,
    NPM_CONFIG_REGISTRY: "http://127.0.0.1:9/",
  };
  const prefix = join(fx.home, "bin");
  const log = await installAsUser(prefix, env);
  assert.match(log, /odek: it runs the checkout's sources: no bundle \(.+\)/);
  const script = await Deno.readTextFile(join(prefix, "odek"));
  assert.ok(script.endsWith(`'${join(ROOT, "main.ts")}' "$@"\n`), script);
  assert.deepEqual(
    [...Deno.readDirSync(join(prefix, `odek-deno-${Deno.version.deno}`))]
      .filter((e) => e.name.startsWith("bundle-") || e.name.startsWith(".bundle-")),
    [],
    "a failed bundle leaves nothing behind",
  );
  const out = await fx.run(["--version"], { launcher: join(prefix, "odek"), env });
  assert.equal(out.code, 0, out.stderr);
  assert.ok(out.stdout.startsWith(`odek ${ODEK_VERSION} (deno `), out.stdout);
  assert.equal(out.stderr, "");
});
