/**
 * A second odek-like process for lock tests: `deno run … session_child.ts <dir> <id> try|hold`.
 * `try` opens the session and prints OPENED or the error code; `hold` opens it, prints READY and
 * keeps it open until killed.
 */
import { FileSessionStore } from "../../../src/session/file_session_store.ts";

const [dir, id, mode] = Deno.args;
try {
  const session = await new FileSessionStore(dir).open(id);
  if (mode === "hold") {
    console.log("READY");
    setInterval(() => {}, 60_000);
  } else {
    console.log("OPENED");
    await session.close();
  }
} catch (error) {
  console.log((error as { code?: string }).code ?? String(error));
}
