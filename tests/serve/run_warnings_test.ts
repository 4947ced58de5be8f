/**
 * A serve run's record shows its session host's warnings — the failing input: `odek serve` never
 * showed them at all (a project key ignored, a shell disabled for want of bwrap), while the
 * terminal prints each. Those of the open are on the record from its start; those of the parts
 * (the sandbox's) once the parts are up, while the run still goes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { body, serveFixture, waitFor } from "./_serve_fixture.ts";

interface RunJson {
  key: string;
  session_id: string;
  state: string;
  warnings?: string[];
}

Deno.test("a serve run's record and session carry the host's warnings: the open's at once, the parts' while the run waits on a question", async () => {
  const empty = await Deno.makeTempDir(); // a PATH with no bwrap on it: the shell is disabled
  try {
    const turns = (_r: unknown, index: number) =>
      index === 0
        ? { toolCalls: [{ id: "c1", name: "clarify", arguments: { question: "Which branch?" } }] }
        : { text: "ok" };
    await using s = await serveFixture({
      sandbox: "bwrap",
      env: { PATH: empty },
      scripts: [turns],
    });
    const workspace = join(s.root, "project");
    await Deno.mkdir(workspace);
    // A project file may not raise its own trust: an ignored key, warned about at the open.
    await Deno.writeTextFile(join(workspace, "odek.jsonc"), '{ "trustLevel": "trusted" }');
    const started = await s.call("/api/runs", {
      method: "POST",
      json: { task: "ask", workspace },
    });
    assert.equal(started.status, 202);
    const run = await body<RunJson>(started);
    let id = "";
    await waitFor("the question", async () => {
      const { pending } = await body<{ pending: { id: string }[] }>(
        await s.call("/api/clarifications"),
      );
      id = pending[0]?.id ?? "";
      return id !== "";
    });
    // The run waits on the operator: its parts are up, and their warning is on the record.
    const shellDisabled = /bwrap is not installed, so the shell tool is disabled/;
    let going: RunJson | undefined;
    await waitFor("the parts' warning on the going run's record", async () => {
      const session = await body<{ run?: RunJson }>(
        await s.call(`/api/sessions/${encodeURIComponent(run.session_id)}`),
      );
      going = session.run;
      return (going?.warnings ?? []).some((w) => shellDisabled.test(w));
    });
    assert.equal(going!.state, "running");
    assert.ok(
      going!.warnings!.some((w) => /odek\.jsonc: "trustLevel" ignored/.test(w)),
      going!.warnings!.join("\n"),
    );
    assert.equal(
      (await s.call(`/api/clarifications/${id}`, { method: "POST", json: { answer: "main" } }))
        .status,
      204,
    );
    await waitFor("the run's end", () => s.runs.current(run.session_id) === undefined);
    const ended = await body<{ runs: RunJson[] }>(await s.call("/api/runs"));
    const record = ended.runs.find((r) => r.session_id === run.session_id)!;
    assert.equal(record.state, "completed");
    assert.ok(record.warnings!.some((w) => shellDisabled.test(w)));
  } finally {
    await Deno.remove(empty, { recursive: true });
  }
});

Deno.test("the parts' warnings that come after the run's end are saved on its record too (a restart shows them)", async () => {
  const empty = await Deno.makeTempDir(); // a PATH with no bwrap on it: the shell is disabled
  try {
    // The model answers at once: the run ends before its host's parts are up.
    await using s = await serveFixture({
      sandbox: "bwrap",
      env: { PATH: empty },
      scripts: [[{ text: "done" }]],
    });
    const run = await body<RunJson>(
      await s.call("/api/runs", { method: "POST", json: { task: "say done" } }),
    );
    await waitFor("the run's end", () => s.runs.current(run.session_id) === undefined);
    const shellDisabled = /bwrap is not installed, so the shell tool is disabled/;
    const { runs } = await body<{ runs: RunJson[] }>(await s.call("/api/runs"));
    const key = runs.find((r) => r.session_id === run.session_id)!.key; // the run's id by now
    const file = join(s.f.runtime.paths.odekHome, "serve", "runs", `${key}.json`);
    const saved = async () => {
      const text = await Deno.readTextFile(file).catch(() => "{}");
      return JSON.parse(text) as Partial<RunJson>;
    };
    await waitFor("the parts' warning on the record on disk", async () => {
      const record = await saved();
      return record.state === "completed" &&
        (record.warnings ?? []).some((w) => shellDisabled.test(w));
    }, 5_000);
  } finally {
    await Deno.remove(empty, { recursive: true });
  }
});

Deno.test("a run without warnings has no warnings field", async () => {
  await using s = await serveFixture({ scripts: [[{ text: "done" }]] });
  const run = await body<RunJson>(
    await s.call("/api/runs", { method: "POST", json: { task: "say done" } }),
  );
  await waitFor("the run's end", () => s.runs.current(run.session_id) === undefined);
  const { runs } = await body<{ runs: RunJson[] }>(await s.call("/api/runs"));
  const record = runs.find((r) => r.session_id === run.session_id)!;
  assert.equal(record.state, "completed");
  assert.equal(record.warnings, undefined, JSON.stringify(record.warnings));
});

Deno.test("a warning that quotes a project file's markup and terminal escapes reaches the record's JSON with the escapes quoted", async () => {
  await using s = await serveFixture({ scripts: [[{ text: "done" }]] });
  const workspace = join(s.root, "project");
  await Deno.mkdir(workspace);
  // A context file named to be rendered: markup, an OSC title sequence, a colour reset (it does
  // not exist: the warning quotes its name).
  const name = '<img src=x onerror="alert(1)">\u001b]0;owned\u0007\u001b[0m';
  await Deno.writeTextFile(join(workspace, "odek.jsonc"), JSON.stringify({ contextFiles: [name] }));
  const started = await s.call("/api/runs", { method: "POST", json: { task: "t", workspace } });
  const run = await body<RunJson>(started);
  await waitFor("the run's end", () => s.runs.current(run.session_id) === undefined);
  const raw = await (await s.call("/api/runs")).text();
  const record = (JSON.parse(raw) as { runs: RunJson[] }).runs.find((r) =>
    r.session_id === run.session_id
  )!;
  assert.equal(record.state, "completed");
  const warning = (record.warnings ?? []).find((w) => w.includes("<img"));
  assert.ok(warning, JSON.stringify(record.warnings));
  // deno-lint-ignore no-control-regex -- the escapes are quoted, never raw (the page and a terminal)
  assert.doesNotMatch(warning, /[\u001b\u0007]/);
  assert.ok(warning.includes(JSON.stringify(name).slice(1, -1)), warning);
});
