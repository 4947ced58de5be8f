/**
 * What only the file store has: modes, durability, cross-process locks, size limit.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { OdekError } from "../../src/_util/odek_error.ts";
import { FileSessionStore } from "../../src/session/file_session_store.ts";
import { MAX_JOURNAL_BYTES } from "../../src/session/_parse_journal.ts";
import { messageLine, metaLine } from "./_store_harness.ts";

const INIT = {
  workspace: "/work/space",
  model: "test-model",
  baseUrl: "http://127.0.0.1:9",
  title: "t",
};
const CHILD = fileURLToPath(new URL("./_fixtures/session_child.ts", import.meta.url));

async function withDir(body: (dir: string) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "odek-file-store-" });
  try {
    await body(`${root}/home/sessions`);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

function childCommand(
  dir: string,
  id: string,
  mode: "try" | "hold",
  stdout: "piped" | "null" = "piped",
) {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      `--allow-read=${dir}`,
      `--allow-write=${dir}`,
      CHILD,
      dir,
      id,
      mode,
    ],
    stdin: "null",
    stdout,
    stderr: "piped",
  });
}

async function errorCode(promise: Promise<unknown>): Promise<OdekError | undefined> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OdekError) return error;
    throw error;
  }
  return undefined;
}

Deno.test("FileSessionStore creates the directory 0700 and the journal, lock and sidecar 0600", async () => {
  await withDir(async (dir) => {
    const store = new FileSessionStore(dir);
    const session = await store.create({ ...INIT, id: "modes" });
    assert.equal((await Deno.stat(dir)).mode! & 0o777, 0o700);
    assert.equal((await Deno.stat(`${dir}/modes.jsonl`)).mode! & 0o777, 0o600);
    assert.equal((await Deno.stat(`${dir}/modes.lock`)).mode! & 0o777, 0o600);
    await session.close();
    await Deno.writeTextFile(`${dir}/modes.jsonl`, "{torn", { append: true });
    await (await store.open("modes")).close();
    assert.equal((await Deno.stat(`${dir}/modes.jsonl.torn`)).mode! & 0o777, 0o600);
  });
});

Deno.test("FileSessionStore append() is on disk for a second reader before it resolves, never rewriting", async () => {
  await withDir(async (dir) => {
    const session = await new FileSessionStore(dir).create({ ...INIT, id: "durable" });
    const before = await Deno.readFile(`${dir}/durable.jsonl`);
    const inode = (await Deno.stat(`${dir}/durable.jsonl`)).ino;
    await session.append({ role: "user", content: "first" });
    const seen = await new FileSessionStore(dir).read("durable");
    assert.deepEqual(seen.messages, [{ role: "user", content: "first" }]);
    await session.append({ role: "user", content: "second" });
    const after = await Deno.readFile(`${dir}/durable.jsonl`);
    assert.deepEqual(after.subarray(0, before.length), before);
    assert.equal((await Deno.stat(`${dir}/durable.jsonl`)).ino, inode);
    assert.equal(new TextDecoder().decode(after).split("\n").length, 4);
    await session.close();
    await assert.rejects(Deno.stat(`${dir}/durable.lock`), Deno.errors.NotFound);
  });
});

Deno.test("FileSessionStore open() is refused in a second process while the session is open", async () => {
  await withDir(async (dir) => {
    const session = await new FileSessionStore(dir).create({ ...INIT, id: "shared" });
    try {
      const output = await childCommand(dir, "shared", "try").output();
      assert.equal(new TextDecoder().decode(output.stdout).trim(), "SESSION_LOCKED");
    } finally {
      await session.close();
    }
    const output = await childCommand(dir, "shared", "try").output();
    assert.equal(new TextDecoder().decode(output.stdout).trim(), "OPENED");
  });
});

Deno.test("FileSessionStore open() takes over the lock of a SIGKILLed holder", async () => {
  await withDir(async (dir) => {
    const store = new FileSessionStore(dir);
    await (await store.create({ ...INIT, id: "killed" })).close();
    const child = childCommand(dir, "killed", "hold").spawn();
    const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    try {
      let text = "";
      while (!text.includes("\n")) {
        const chunk = await lines.read();
        if (chunk.done) break;
        text += chunk.value;
      }
      assert.equal(text.trim(), "READY");
      const refused = await errorCode(store.open("killed"));
      assert.equal(refused?.code, "SESSION_LOCKED");
      assert.match(refused!.message, new RegExp(`odek process ${child.pid} \\(since `));
      assert.match(refused!.message, /killed\.lock/);
    } finally {
      child.kill("SIGKILL");
      await child.status;
      await lines.cancel();
      await child.stderr.cancel();
    }
    const session = await store.open("killed");
    await session.close();
  });
});

Deno.test("FileSessionStore open() takes over a stale lock file left by a dead pid", async () => {
  await withDir(async (dir) => {
    const store = new FileSessionStore(dir);
    await (await store.create({ ...INIT, id: "stale" })).close();
    const stale = JSON.stringify({ pid: 2 ** 30, startedAt: "2020-01-01T00:00:00.000Z" });
    await Deno.writeTextFile(`${dir}/stale.lock`, stale, { mode: 0o600 });
    assert.equal((await store.list())[0].locked, false);
    const session = await store.open("stale");
    const holder = JSON.parse(await Deno.readTextFile(`${dir}/stale.lock`));
    assert.equal(holder.pid, Deno.pid);
    assert.equal((await store.list())[0].locked, true);
    await session.close();
    await assert.rejects(Deno.stat(`${dir}/stale.lock`), Deno.errors.NotFound);
  });
});

Deno.test("FileSessionStore refuses a journal over 64 MiB with its size", async () => {
  await withDir(async (dir) => {
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(
      `${dir}/huge.jsonl`,
      metaLine("huge") + messageLine({ role: "user", content: "x" }),
    );
    await Deno.truncate(`${dir}/huge.jsonl`, MAX_JOURNAL_BYTES + 1);
    const store = new FileSessionStore(dir);
    const error = await errorCode(store.open("huge"));
    assert.equal(error?.code, "SESSION_CORRUPT");
    assert.match(error!.message, new RegExp(`${MAX_JOURNAL_BYTES + 1} bytes`));
    const [row] = await store.list();
    assert.equal(row.id, "huge");
    assert.match(row.problem ?? "", /too large/);
    await assert.rejects(Deno.stat(`${dir}/huge.lock`), Deno.errors.NotFound);
  });
});

Deno.test("FileSessionStore list() ignores files that are not journals", async () => {
  await withDir(async (dir) => {
    const store = new FileSessionStore(dir);
    await (await store.create({ ...INIT, id: "real" })).close();
    await Deno.writeTextFile(`${dir}/notes.txt`, "x");
    await Deno.writeTextFile(`${dir}/.hidden.jsonl`, "x");
    await Deno.mkdir(`${dir}/dir.jsonl`);
    assert.deepEqual((await store.list()).map((row) => row.id), ["real"]);
  });
});
