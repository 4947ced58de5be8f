/**
 * The seccomp filter every bwrap sandbox runs under: it refuses to create Unix-domain sockets, so
 * a command cannot connect to a socket file it can see on the read-only `/` (a Docker daemon, a
 * D-Bus bus, an agent, another process's listener) — `--unshare-net` isolates TCP and abstract
 * sockets but not socket files, and a read-only mount does not stop `connect()`.
 *
 * @module
 */

/** `struct sock_filter` opcodes (linux/filter.h, linux/bpf_common.h). */
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
/** `SECCOMP_RET_ERRNO | EPERM`. */
const RET_EPERM = 0x00050001;
/** The x32 ABI's syscall-number bit on x86_64: those calls are refused wholesale. */
const X32_BIT = 0x40000000;
const AF_UNIX = 1;

/** A jump target of the program: a relative offset or a label (resolved when compiling). */
type Target = number | "allow" | "deny";

/**
 * Audit arch and syscall numbers per Deno arch (linux/audit.h; arch/x86/entry/syscalls/
 * syscall_64.tbl; include/uapi/asm-generic/unistd.h for aarch64).
 */
const ARCHES: Record<string, { audit: number; socket: number; denied: Record<string, number> }> = {
  x86_64: {
    audit: 0xc000003e,
    socket: 41,
    denied: { io_uring_setup: 425, add_key: 248, request_key: 249, keyctl: 250 },
  },
  aarch64: {
    audit: 0xc00000b7,
    socket: 198,
    denied: { io_uring_setup: 425, add_key: 217, request_key: 218, keyctl: 219 },
  },
};

/**
 * The compiled classic-BPF program (the bytes bwrap's `--seccomp FD` reads), or `null` on an
 * architecture it does not know. It allows everything but, with EPERM:
 *
 * - `socket(AF_UNIX, …)` (`socketpair`, which needs no path, still works), unless
 *   `allowUnixSockets` (the filter of a scope with approved network, whose program reaches the
 *   egress proxy through a Unix socket);
 * - `io_uring_setup` (io_uring can create sockets without the `socket` syscall);
 * - `add_key`, `request_key`, `keyctl`: the kernel keyring is not namespaced, so a sandbox whose
 *   user is root would share root's user keyring (Docker's default profile refuses them too);
 * - any syscall of another ABI (i386 `socketcall` through `int 0x80`, x32).
 *
 * Layout of `struct seccomp_data`: `nr` at offset 0, `arch` at 4, `args[0]` (low word on
 * little-endian) at 16 (linux/seccomp.h).
 *
 * @param arch `Deno.build.arch`
 * @param options `allowUnixSockets`: leave `socket()` alone
 * @returns the program, 8 bytes per instruction, little-endian
 *
 * @example The x86_64 program has thirteen instructions
 * ```ts
 * import { unixSocketFilter } from "./_seccomp_filter.ts";
 * if (unixSocketFilter("x86_64")?.length !== 13 * 8) throw new Error("unexpected size");
 * ```
 */
export function unixSocketFilter(
  arch: string,
  options: { allowUnixSockets?: boolean } = {},
): Uint8Array<ArrayBuffer> | null {
  const a = ARCHES[arch];
  if (a === undefined) return null;
  // With approved network the program reaches the egress proxy through a Unix socket.
  const sockets: [number, Target, Target, number][] = options.allowUnixSockets ? [] : [
    [JEQ_K, 0, "allow", a.socket], // not socket()
    [LD_W_ABS, 0, 0, 16], // A = domain
    [JEQ_K, "deny", "allow", AF_UNIX],
  ];
  const program: [number, Target, Target, number][] = [
    [LD_W_ABS, 0, 0, 4], // A = arch
    [JEQ_K, 0, "deny", a.audit], // a foreign ABI
    [LD_W_ABS, 0, 0, 0], // A = nr
    [JGE_K, "deny", 0, X32_BIT], // x32
    ...Object.values(a.denied).map((
      nr,
    ): [number, Target, Target, number] => [JEQ_K, "deny", 0, nr]),
    ...sockets,
    [RET_K, 0, 0, RET_ALLOW],
    [RET_K, 0, 0, RET_EPERM],
  ];
  const labels = { allow: program.length - 2, deny: program.length - 1 };
  const jump = (target: Target, from: number) =>
    typeof target === "number" ? target : labels[target] - from - 1;
  const bytes = new Uint8Array(program.length * 8);
  const view = new DataView(bytes.buffer);
  program.forEach(([code, jt, jf, k], i) => {
    view.setUint16(i * 8, code, true);
    view.setUint8(i * 8 + 2, jump(jt, i));
    view.setUint8(i * 8 + 3, jump(jf, i));
    view.setUint32(i * 8 + 4, k, true);
  });
  return bytes;
}

/**
 * Write {@linkcode unixSocketFilter} for this machine's architecture for bwrap's `--seccomp`.
 * With `dir` (odek passes `ODEK_HOME`, hidden from every sandbox) the file is
 * `<dir>/sandbox/seccomp-<arch>-<hash>.bpf`, written once (atomically) and reused by every later
 * odek, so nothing accumulates. Without `dir`, or where it does not exist or cannot be written,
 * it goes to a new `0700` temporary directory removed when the process exits.
 *
 * Needs `--allow-write` and `--allow-read` for that directory.
 *
 * @param dir a private directory of odek's, e.g. `ODEK_HOME`
 * @param options `allowUnixSockets`: the filter of scopes with approved network
 * @returns the file's real path, or `null` on an architecture the filter does not know
 *
 * @example Write the filter to a temporary file
 * ```ts
 * import { writeSeccompFilter } from "./_seccomp_filter.ts";
 * const path = await writeSeccompFilter();
 * if (path !== null && (await Deno.stat(path)).size % 8 !== 0) throw new Error("unexpected size");
 * ```
 */
export async function writeSeccompFilter(
  dir?: string,
  options: { allowUnixSockets?: boolean } = {},
): Promise<string | null> {
  const filter = unixSocketFilter(Deno.build.arch, options);
  if (filter === null) return null;
  if (dir !== undefined) {
    try {
      return await writeShared(dir, filter);
    } catch {
      // Fall back to a temporary file.
    }
  }
  const temp = await Deno.makeTempDir({ prefix: "odek-seccomp-" });
  await Deno.chmod(temp, 0o700);
  const path = `${temp}/${options.allowUnixSockets ? "egress" : "unix_sockets"}.bpf`;
  await Deno.writeFile(path, filter, { mode: 0o600 });
  globalThis.addEventListener("unload", () => {
    try {
      Deno.removeSync(temp, { recursive: true });
    } catch {
      // Already gone.
    }
  });
  return await Deno.realPath(path);
}

async function writeShared(dir: string, filter: Uint8Array<ArrayBuffer>): Promise<string> {
  if (!(await Deno.stat(dir)).isDirectory) throw new Error(`${dir} is not a directory`);
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", filter));
  const hex = [...hash.slice(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("");
  const sandboxDir = `${dir}/sandbox`;
  await Deno.mkdir(sandboxDir, { recursive: true, mode: 0o700 });
  const path = `${sandboxDir}/seccomp-${Deno.build.arch}-${hex}.bpf`;
  const existing = await Deno.readFile(path).catch(() => null);
  if (existing === null || !sameBytes(existing, filter)) {
    const temp = `${path}.${crypto.randomUUID()}.tmp`;
    await Deno.writeFile(temp, filter, { mode: 0o600 });
    await Deno.rename(temp, path);
  }
  return await Deno.realPath(path);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
