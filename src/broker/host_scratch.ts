/**
 * The private scratch of one session host (design §2, issue 13): a directory the core creates
 * on the host (mode 0700) that every program of the host gets writable as `TMPDIR`, in place of
 * a private `/tmp` whose writes would silently vanish. All hosts of a user keep theirs under one
 * parent, `<tmp>/odek-<uid>` (0700), which every sandbox hides so no host sees another's.
 *
 * @module
 */
import { join } from "node:path";

/** A host's scratch: remove it when the host ends. */
export interface HostScratch extends AsyncDisposable {
  /** The parent of every host's scratch (hidden in every sandbox). */
  readonly root: string;
  /** This host's `TMPDIR`. */
  readonly dir: string;
  /** This host's private directory for sockets (host ports), not bound into any sandbox. */
  readonly sockets: string;
  /** Delete everything of this host's. Idempotent. */
  remove(): Promise<void>;
}

/**
 * Create a host's scratch under `base`.
 *
 * @param base the temporary directory (`TMPDIR` of odek's environment, usually `/tmp`)
 * @returns the scratch
 * @throws what `Deno.mkdir` throws when `base` is not writable
 *
 * @example
 * ```ts
 * import { createHostScratch } from "./host_scratch.ts";
 * await using scratch = await createHostScratch(await Deno.makeTempDir());
 * if ((Deno.statSync(scratch.dir).mode! & 0o777) !== 0o700) throw new Error("not private");
 * ```
 */
export async function createHostScratch(base: string): Promise<HostScratch> {
  const real = await Deno.realPath(base);
  let root = join(real, `odek-${uid() ?? "sandbox"}`);
  try {
    await Deno.mkdir(root, { mode: 0o700 });
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
  const info = await Deno.lstat(root);
  const mine = info.isDirectory && !info.isSymlink && (info.mode! & 0o077) === 0 &&
    (uid() === null || info.uid === uid());
  // Someone else's (or a link, or too open): this host gets a parent of its own.
  if (!mine) root = await Deno.makeTempDir({ dir: real, prefix: "odek-" });
  await Deno.chmod(root, 0o700);
  const host = await Deno.makeTempDir({ dir: root, prefix: "host-" });
  await Deno.chmod(host, 0o700);
  const dir = join(host, "tmp");
  const sockets = join(host, "sockets");
  await Deno.mkdir(dir, { mode: 0o700 });
  await Deno.mkdir(sockets, { mode: 0o700 });
  let removed: Promise<void> | undefined;
  const remove = () => removed ??= Deno.remove(host, { recursive: true }).catch(() => {});
  return { root, dir, sockets, remove, [Symbol.asyncDispose]: remove };
}

function uid(): number | null {
  try {
    return Deno.uid();
  } catch {
    return null; // no --allow-sys=uid
  }
}
