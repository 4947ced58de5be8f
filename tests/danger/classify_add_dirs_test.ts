import assert from "node:assert/strict";
import type { ClassifyContext } from "../../src/danger/classifier.ts";
import { createClassifier } from "../../src/danger/create_classifier.ts";
import { CONTEXT } from "./_table.ts";

const classifier = await createClassifier();
const WITH_DIRS: ClassifyContext = {
  ...CONTEXT,
  addDirs: [{ path: "/srv/cache", readOnly: false }, { path: "/srv/ref", readOnly: true }],
};

function parts(context: ClassifyContext, name: string, args: Record<string, unknown>): string[] {
  return classifier.classifyToolCall({ name, args }, context).parts.map((p) =>
    `${p.riskClass} ${p.targets.join(",")}`.trim()
  );
}

Deno.test("classifyToolCall() treats a writable added directory like the workspace, a read-only one like any other directory", async (t) => {
  const rows: [string, string, Record<string, unknown>, string, string][] = [
    // name, tool, args, without --add-dir, with
    [
      "write_file in a writable added dir",
      "write_file",
      { path: "/srv/cache/a.txt", content: "" },
      "system_write /srv/cache/a.txt",
      "local_write /srv/cache/a.txt",
    ],
    [
      "write_file in a read-only added dir",
      "write_file",
      { path: "/srv/ref/a.txt", content: "" },
      "system_write /srv/ref/a.txt",
      "system_write /srv/ref/a.txt",
    ],
    [
      "read_file in an added dir",
      "read_file",
      { path: "/srv/ref/a.txt" },
      "read /srv/ref/a.txt",
      "read /srv/ref/a.txt",
    ],
    [
      "shell redirect into a writable added dir",
      "shell",
      { command: "echo x > /srv/cache/out.txt" },
      "system_write /srv/cache/out.txt",
      "local_write /srv/cache/out.txt",
    ],
    [
      "deleting a whole writable added dir",
      "shell",
      { command: "rm -rf /srv/cache" },
      "destructive /srv/cache",
      "destructive /srv/cache",
    ],
    [
      "deleting inside a writable added dir",
      "shell",
      { command: "rm -rf /srv/cache/build" },
      "destructive /srv/cache/build",
      "local_write /srv/cache/build",
    ],
  ];
  for (const [name, tool, args, without, withDirs] of rows) {
    await t.step(name, () => {
      // A shell command also has a `read` part for the program itself: look for the effect's.
      const before = parts(CONTEXT, tool, args).filter((p) => p !== "read");
      const after = parts(WITH_DIRS, tool, args).filter((p) => p !== "read");
      assert.deepEqual(before, [without]);
      assert.deepEqual(after, [withDirs]);
    });
  }
});

Deno.test("classifyToolCall() keeps protected roots and secrets what they are inside an added directory", () => {
  const home: ClassifyContext = {
    ...CONTEXT,
    addDirs: [{ path: CONTEXT.home, readOnly: false }],
  };
  const [secret] = parts(home, "read_file", { path: `${CONTEXT.home}/.ssh/id_rsa` });
  assert.match(secret, /^system_write /);
  const [startup] = parts(home, "write_file", { path: `${CONTEXT.home}/.bashrc`, content: "" });
  assert.match(startup, /^system_write /);
  const [odek] = parts(home, "write_file", {
    path: `${CONTEXT.protectedRoots[0]}/x`,
    content: "",
  });
  assert.match(odek, /^blocked /);
});
