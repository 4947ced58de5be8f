import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { odekFixture, ROOT, toolMessages } from "./_odek.ts";

async function copyProject(to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  const parts = ["main.ts", "deno.json", "deno.lock", "src", "tools", "node_modules"].map((p) =>
    join(ROOT, p)
  );
  // The tool children's caches (tools/.deno_cache) hold SQLite -wal/-shm files that a child
  // running in a parallel test file creates and removes: a copy that saw one vanish is made again.
  let out = await new Deno.Command("cp", { args: ["-a", ...parts, to] }).output();
  for (let attempt = 1; !out.success && attempt < 5; attempt++) {
    out = await new Deno.Command("cp", { args: ["-a", ...parts, to] }).output();
  }
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
}

sandboxTest(
  "a copy of the project as install dir: relative paths land in the workspace, the install and ODEK_HOME stay untouched",
  async () => {
    await using fx = await odekFixture();
    const install = join(fx.home, "..", "install");
    await copyProject(install);
    await Deno.mkdir(join(install, "data"));
    await Deno.writeTextFile(join(install, "data", "sentinel"), "keep me\n");
    await Deno.writeTextFile(join(fx.odekHome, "config.jsonc"), '{ "model": "from-config" }\n');
    await Deno.writeTextFile(join(fx.home, "secret.txt"), "home secret\n");
    await Deno.writeTextFile(join(fx.workspace, "p1"), join(fx.odekHome, "config.jsonc"));
    await Deno.writeTextFile(join(fx.workspace, "p2"), join(fx.home, "secret.txt"));
    await Deno.writeTextFile(join(fx.workspace, "p3"), join(install, "data"));
    await using server = await startFakeOpenAIServer({
      turns: [
        {
          toolCalls: [{
            id: "incident",
            name: "shell",
            arguments: { command: "mkdir -p data && echo x > data/f && cat data/f && rm -rf data" },
          }],
        },
        {
          // Named directly, the classifier refuses these before anything runs.
          toolCalls: [
            {
              id: "cfg_direct",
              name: "shell",
              arguments: { command: `cat ${join(fx.odekHome, "config.jsonc")}` },
            },
            {
              id: "install_direct",
              name: "shell",
              arguments: { command: `ls ${join(install, "data")}` },
            },
          ],
        },
        {
          // Reached through paths kept in files, the classifier cannot know them: the sandbox must hold.
          toolCalls: [
            { id: "home_cfg", name: "shell", arguments: { command: 'cat "$(cat p1)"' } },
            { id: "real_home", name: "shell", arguments: { command: 'cat "$(cat p2)"' } },
            { id: "install", name: "shell", arguments: { command: 'ls "$(cat p3)"' } },
          ],
        },
        { text: "done" },
      ],
    });
    // Run from inside the install directory, with a separate workspace.
    const result = await fx.run([
      "run",
      "--base-url",
      server.url,
      "--workspace",
      fx.workspace,
      "replay the incident",
    ], {
      main: join(install, "main.ts"),
      cwd: install,
    });
    assert.equal(result.code, 0, result.stderr);
    const [incident] = toolMessages(server.requests[1].body);
    assert.match(incident.content, /^exit code 0[\s\S]*stdout:\nx\n/);
    const [cfgDirect, installDirect] = toolMessages(server.requests[2].body).slice(-2);
    assert.match(cfgDirect.content, /^error \(denied\): Not run: .*protected root/);
    assert.match(installDirect.content, /^error \(denied\): Not run: .*protected root/);
    const [cfg, home, installLs] = toolMessages(server.requests[3].body).slice(-3);
    assert.match(cfg.content, /^error \(failed\): exit code [1-9][\s\S]*No such file or directory/);
    assert.doesNotMatch(cfg.content, /from-config/);
    assert.match(
      home.content,
      /^error \(failed\): exit code [1-9][\s\S]*No such file or directory/,
    );
    assert.doesNotMatch(home.content, /home secret/);
    assert.match(installLs.content, /^error \(failed\)/);
    assert.equal(await Deno.readTextFile(join(install, "data", "sentinel")), "keep me\n");
    assert.equal(
      await Deno.readTextFile(join(fx.odekHome, "config.jsonc")),
      '{ "model": "from-config" }\n',
    );
    await assert.rejects(Deno.stat(join(fx.workspace, "data")), Deno.errors.NotFound);
  },
);

Deno.test("a --workspace that contains the install directory is refused, so the model cannot rewrite odek", async () => {
  await using fx = await odekFixture();
  const parent = join(fx.home, "..", "code");
  const install = join(parent, "odek");
  await copyProject(install);
  const result = await fx.run([
    "run",
    "--base-url",
    "http://127.0.0.1:9/v1",
    "--workspace",
    parent,
    "edit odek",
  ], {
    main: join(install, "main.ts"),
  });
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    result.stderr,
    /Cannot use workspace .*code.*: it contains odek's protected directory .*code\/odek/,
  );
});
