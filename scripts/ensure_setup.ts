/**
 * The setup step, run only when it is due: `deno install --frozen` for the core and for the tool
 * children, once, and again only when a lock file or an import map changes (a stamp in
 * `node_modules/.odek-setup` holds their digest). `deno task odek` and `deno task install` use it,
 * so a call that finds everything in place never runs `deno install` (nor touches a registry).
 *
 * @module
 */
import { warmToolChildren } from "./warm_tool_children.ts";

const join = (...parts: string[]) => parts.join("/");

/** The files whose change makes setup due again (relative to the repository root). */
export const SETUP_INPUTS = ["deno.json", "deno.lock", "tools/deno.json", "tools/deno.lock"];

const STAMP = "node_modules/.odek-setup";

/** The digest of the setup inputs (SHA-256 hex; Web Crypto, so no Node layer loads). */
export async function setupDigest(root: string): Promise<string> {
  const parts = SETUP_INPUTS.flatMap((file) => [
    new TextEncoder().encode(`${file}\0`),
    Deno.readFileSync(join(root, file)),
  ]);
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", all));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Whether both `node_modules` folders are there and were installed from the current inputs, and
 * the tool children's own Deno caches were filled (`src/broker/tool_child_deno_dir.ts`; a
 * checkout set up before they existed runs setup once more).
 */
export async function setupIsCurrent(root: string): Promise<boolean> {
  try {
    if (!Deno.statSync(join(root, "tools/node_modules")).isDirectory) return false;
    if (!Deno.statSync(join(root, "tools/.deno_cache/files")).isDirectory) return false;
    return Deno.readTextFileSync(join(root, STAMP)).trim() === await setupDigest(root);
  } catch {
    return false;
  }
}

/**
 * Run setup when it is due (or always with `force`): the two `deno install --frozen` calls, then
 * the stamp.
 *
 * @param root the repository root
 * @param options `force`: run even when current; `deno`: the deno binary (default: the running one)
 * @returns whether setup ran
 * @throws {Error} when an install fails (its output is shown as it happens)
 */
export async function ensureSetup(
  root: string,
  options: { force?: boolean; deno?: string } = {},
): Promise<boolean> {
  if (!options.force && await setupIsCurrent(root)) return false;
  const deno = options.deno ?? Deno.execPath();
  for (
    const args of [["install", "--frozen"], ["install", "--frozen", "--config", "tools/deno.json"]]
  ) {
    const out = await new Deno.Command(deno, {
      args,
      cwd: root,
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (!out.success) {
      throw new Error(
        `deno ${args.join(" ")} failed (exit code ${out.code}); see its output above`,
      );
    }
  }
  await warmToolChildren(root, deno);
  Deno.writeTextFileSync(join(root, STAMP), `${await setupDigest(root)}\n`);
  return true;
}

if (import.meta.main) {
  const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  try {
    await ensureSetup(root);
  } catch (error) {
    console.error(`odek: setup failed: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
