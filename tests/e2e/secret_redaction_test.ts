import assert from "node:assert/strict";
import { join } from "node:path";
import { type ScriptedTurn, startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { type OdekFixture, odekFixture, toolMessages } from "./_odek.ts";

// Every planted secret holds "planted" (any case): after redaction the word must appear nowhere.
const DOT_ENV = [
  "# app settings",
  "PORT=8080",
  "DEBUG=true",
  "APP_NAME=demo-app",
  "DATABASE_PASSWORD=pg-Pa55word-planted-1",
  'STRIPE_SECRET_KEY="sk_live_PLANTEDabcdefghijklmnop123"',
  "export SESSION_TOKEN='tok-planted-ABCDEF-987654'",
  "DATABASE_URL=postgres://app:dbpw-planted-42@db.internal:5432/app",
  "",
].join("\n");

const KEYS = [
  "openai: sk-proj-PLANTEDaaaaBBBBccccDDDD1234567890",
  "anthropic: sk-ant-api03-PLANTEDxxxxYYYYzzzz0987654321abcd",
  "github: ghp_PLANTED0123456789abcdefghijklmnopqrs",
  "github fine-grained: github_pat_PLANTED01234567890123456_abcdefghij",
  "aws id: AKIAPLANTED0123456XY",
  "aws_secret_access_key = wJalrXUtnPLANTED/K7MDENG/bPxRfiCYEXAMPLEKEY",
  "slack: xoxb-1234567890-PLANTED-abcdefghij",
  "jwt: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.PLANTEDsignature0123456789",
  "-----BEGIN OPENSSH PRIVATE KEY-----",
  "b3BlbnNzaC1rZXktdjEAAAAPLANTED",
  "AAAAC3NzaC1lZDI1NTE5AAAAIPLANTED",
  "-----END OPENSSH PRIVATE KEY-----",
  "notes: the build listens on port 8080",
  "",
].join("\n");

// Known values odek is given: a secret-named environment variable and the API key.
const ENV_TOKEN = "envtok-Planted-5ecret-value";
const API_KEY = "odek-key-planted-77aa88bb";
const NOTES = `token in env: ${ENV_TOKEN}\nits base64: ${
  btoa(ENV_TOKEN)
}\nkey: ${API_KEY}\nplain note\n`;

function turns(): ScriptedTurn[] {
  return [
    {
      text: "Reading the configuration.",
      toolCalls: [
        { id: "c_env", name: "read_file", arguments: { path: ".env" } },
        { id: "c_keys", name: "read_file", arguments: { path: "keys.txt" } },
        { id: "c_cat", name: "shell", arguments: { command: "cat .env keys.txt notes.txt" } },
      ],
    },
    {
      // A model that repeats a secret in its text and writes one into a file.
      text: "Saving a copy. The database password is pg-Pa55word-planted-1 by the way.",
      toolCalls: [{
        id: "c_write",
        name: "write_file",
        arguments: { path: "copy.env", content: "NEW_API_TOKEN=new-planted-token-55\nPORT=9090\n" },
      }],
    },
    { text: "Done: PORT is 8080, DEBUG is on, and the token was tok-planted-ABCDEF-987654." },
  ];
}

async function plant(fx: OdekFixture): Promise<void> {
  await Deno.writeTextFile(join(fx.workspace, ".env"), DOT_ENV);
  await Deno.writeTextFile(join(fx.workspace, "keys.txt"), KEYS);
  await Deno.writeTextFile(join(fx.workspace, "notes.txt"), NOTES);
}

/** Every file under `dir`, read as text. */
async function readTree(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) { for (const [p, t] of await readTree(path)) files.set(p, t); }
    else if (entry.isFile) files.set(path, await Deno.readTextFile(path));
  }
  return files;
}

function assertNoSecret(where: string, text: string): void {
  const at = text.search(/planted/i);
  assert.equal(at, -1, `${where} holds a planted secret: …${text.slice(at - 80, at + 40)}…`);
  assert.ok(!text.includes(btoa(ENV_TOKEN)), `${where} holds the base64 of a secret`);
}

sandboxTest(
  "odek run: planted .env and key files reach the model with secrets redacted, and no secret reaches the session, cassette, terminal, --json or events",
  async () => {
    await using fx = await odekFixture();
    await plant(fx);
    const env = { ODEK_API_KEY: API_KEY, MY_SERVICE_TOKEN: ENV_TOKEN };
    const cassette = join(fx.home, "run.cassette.json");
    const eventsFile = join(fx.home, "events.jsonl");

    // 1. The terminal run, recording a cassette and an events file.
    await using server = await startFakeOpenAIServer({ turns: turns() });
    const terminal = await fx.run([
      "run",
      "--base-url",
      server.url,
      "--record",
      cassette,
      "--events-jsonl",
      eventsFile,
      "read the configuration files",
    ], { env });
    assert.equal(terminal.code, 0, terminal.stderr);
    assert.equal(server.requests.length, 3);

    // The model got the files: non-secret lines whole, secret values replaced, names kept.
    const results = toolMessages(server.requests[1].body);
    assert.deepEqual(results.map((m) => m.tool_call_id), ["c_env", "c_keys", "c_cat"]);
    for (const result of results) assertNoSecret(`tool result ${result.tool_call_id}`, result.raw);
    const [envFile, keysFile, cat] = results.map((m) => m.content);
    for (const text of [envFile, cat]) {
      for (const line of ["PORT=8080", "DEBUG=true", "APP_NAME=demo-app", "# app settings"]) {
        assert.ok(text.includes(line), `${line} did not reach the model: ${text}`);
      }
      assert.ok(text.includes("DATABASE_PASSWORD=[REDACTED]"), text);
      assert.ok(text.includes('STRIPE_SECRET_KEY="[REDACTED]"'), text);
      assert.ok(text.includes("export SESSION_TOKEN='[REDACTED]'"), text);
      assert.ok(text.includes("postgres://app:[REDACTED]@db.internal:5432/app"), text);
    }
    for (const text of [keysFile, cat]) {
      assert.ok(text.includes("notes: the build listens on port 8080"), text);
      assert.ok(text.includes("aws_secret_access_key = [REDACTED]"), text);
      assert.ok(text.includes("-----BEGIN OPENSSH PRIVATE KEY----- [REDACTED]"), text);
      assert.equal(text.match(/\[REDACTED\]/g)!.length >= 9, true, text);
    }
    assert.match(cat, /token in env: \[REDACTED\]\nits base64: \[REDACTED\]\nkey: \[REDACTED\]/);
    assert.ok(cat.includes("plain note"), cat);
    // The write really happened with the real value: redaction is for records, not for tools.
    assert.match(await Deno.readTextFile(join(fx.workspace, "copy.env")), /new-planted-token-55/);

    assertNoSecret("terminal stdout", terminal.stdout);
    assertNoSecret("terminal stderr", terminal.stderr);
    assert.match(terminal.stdout, /The database password is \[REDACTED\] by the way\./);
    const sessions = await readTree(join(fx.odekHome, "sessions"));
    assert.ok(sessions.size > 0, "no session files");
    for (const [path, text] of sessions) assertNoSecret(path, text);
    const recorded = await Deno.readTextFile(cassette);
    assertNoSecret("cassette", recorded);
    assert.match(recorded, /DATABASE_PASSWORD=\[REDACTED\]/);
    const audit = await Deno.readTextFile(eventsFile);
    assert.match(audit, /"type":"tool_call_completed"/);
    assertNoSecret("events file", audit);

    // 2. The same run with --json.
    await using server2 = await startFakeOpenAIServer({ turns: turns() });
    const json = await fx.run(["run", "--base-url", server2.url, "--json", "read them again"], {
      env,
    });
    assert.equal(json.code, 0, json.stderr);
    assertNoSecret("--json stdout", json.stdout);
    assertNoSecret("--json stderr", json.stderr);
    const events = json.stdout.trim().split("\n").map((line) => JSON.parse(line));
    const started = events.find((e) =>
      e.data?.call_id === "c_write" && e.type === "tool_call_started"
    );
    assert.equal(started.data.args.content, "NEW_API_TOKEN=[REDACTED]\nPORT=9090\n");
  },
);
