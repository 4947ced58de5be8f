import assert from "node:assert/strict";
import { join } from "node:path";
import { ToolFailure } from "../../tools/_catalogue/tool_failure.ts";
import { resolveReadTarget, resolveWriteTarget } from "../../tools/_resolve_target.ts";
import { fileToolServer } from "../../tools/files.ts";

/** A workspace, an added directory `cache` beside it and an outside directory with a secret. */
async function layout() {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-roots-" }));
  for (const dir of ["ws", "cache", "outside"]) await Deno.mkdir(join(root, dir));
  await Deno.writeTextFile(join(root, "cache", "a.txt"), "cached\n");
  await Deno.writeTextFile(join(root, "outside", "secret.txt"), "secret\n");
  return {
    ws: join(root, "ws"),
    cache: join(root, "cache"),
    outside: join(root, "outside"),
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
    },
  };
}

async function denial(promise: Promise<unknown>): Promise<ToolFailure> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ToolFailure, String(error));
    return error;
  }
  assert.fail("expected a refusal");
}

Deno.test("file-tool targets inside a granted root resolve, absolute or through ..; the rest stays refused", async () => {
  await using l = await layout();
  const a = join(l.cache, "a.txt");
  assert.equal(await resolveReadTarget(l.ws, a, [l.cache]), a);
  assert.equal(await resolveReadTarget(l.ws, "../cache/a.txt", [l.cache]), a);
  assert.equal(
    await resolveWriteTarget(l.ws, join(l.cache, "new/b.txt"), [l.cache]),
    join(l.cache, "new/b.txt"),
  );
  const outside = await denial(resolveReadTarget(l.ws, join(l.outside, "secret.txt"), [l.cache]));
  assert.equal(outside.kind, "denied");
  const without = await denial(resolveReadTarget(l.ws, a));
  assert.equal(without.kind, "denied", "a granted root leaked into a call without it");
});

Deno.test("a symlink inside a granted root that leads out of it is refused", async () => {
  await using l = await layout();
  await Deno.symlink(l.outside, join(l.cache, "escape"));
  const read = await denial(resolveReadTarget(l.ws, join(l.cache, "escape/secret.txt"), [l.cache]));
  assert.equal(read.kind, "denied");
  assert.match(read.message, /symlink/);
  const write = await denial(resolveWriteTarget(l.ws, join(l.cache, "escape/x.txt"), [l.cache]));
  assert.equal(write.kind, "denied");
  assert.deepEqual((await Array.fromAsync(Deno.readDir(l.outside))).map((e) => e.name), [
    "secret.txt",
  ]);
});

Deno.test("the file-tool protocol carries roots per request: read_file and glob reach the granted directory", async () => {
  await using l = await layout();
  const server = fileToolServer();
  const call = async (tool: string, args: Record<string, unknown>, roots?: string[]) => {
    const line = JSON.stringify({
      type: "call",
      id: 1,
      tool,
      args,
      workspace: l.ws,
      ...(roots ? { roots } : {}),
    });
    const answer = await server.answer(line);
    assert.equal(answer?.type, "result", JSON.stringify(answer));
    return answer as Exclude<typeof answer, { type: "rejected" } | undefined>;
  };
  const read = await call("read_file", { path: join(l.cache, "a.txt") }, [l.cache]);
  assert.ok(read.ok && read.output.startsWith("1|cached"), JSON.stringify(read));
  const refused = await call("read_file", { path: join(l.cache, "a.txt") });
  assert.ok(!refused.ok && refused.error.kind === "denied");
  const glob = await call("glob", { pattern: "*.txt", path: l.cache }, [l.cache]);
  assert.ok(glob.ok, JSON.stringify(glob));
  assert.equal(
    glob.ok && glob.output,
    join(l.cache, "a.txt"),
    "matches outside the workspace are absolute",
  );
});
