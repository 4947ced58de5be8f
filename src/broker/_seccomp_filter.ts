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

/** Audit arch and syscall numbers (socket, io_uring_setup) per Deno arch. */
const ARCHES: Record<string, { audit: number; socket: number; ioUringSetup: number }> = {
  x86_64: { audit: 0xc000003e, socket: 41, ioUringSetup: 425 },
  aarch64: { audit: 0xc00000b7, socket: 198, ioUringSetup: 425 },
};

/**
 * The compiled classic-BPF program (the bytes bwrap's `--seccomp FD` reads), or `null` on an
 * architecture it does not know. It allows everything but:
 *
 * - `socket(AF_UNIX, …)` → EPERM (`socketpair`, which needs no path, still works);
 * - `io_uring_setup` → EPERM (io_uring can create sockets without the `socket` syscall);
 * - any syscall of another ABI (i386 `socketcall` through `int 0x80`, x32) → EPERM.
 *
 * Layout of `struct seccomp_data`: `nr` at offset 0, `arch` at 4, `args[0]` (low word on
 * little-endian) at 16 (linux/seccomp.h).
 *
 * @param arch `Deno.build.arch`
 * @returns the program, 8 bytes per instruction, little-endian
 *
 * @example The x86_64 program has ten instructions
 * ```ts
 * import { unixSocketFilter } from "./_seccomp_filter.ts";
 * if (unixSocketFilter("x86_64")?.length !== 80) throw new Error("unexpected size");
 * ```
 */
export function unixSocketFilter(arch: string): Uint8Array | null {
  const a = ARCHES[arch];
  if (a === undefined) return null;
  // [code, jt, jf, k]; jumps are relative to the next instruction. 8 = ALLOW, 9 = DENY.
  const program: [number, number, number, number][] = [
    [LD_W_ABS, 0, 0, 4], // 0: A = arch
    [JEQ_K, 0, 7, a.audit], // 1: foreign ABI → DENY
    [LD_W_ABS, 0, 0, 0], // 2: A = nr
    [JGE_K, 5, 0, X32_BIT], // 3: x32 → DENY
    [JEQ_K, 4, 0, a.ioUringSetup], // 4: io_uring_setup → DENY
    [JEQ_K, 0, 2, a.socket], // 5: not socket → ALLOW
    [LD_W_ABS, 0, 0, 16], // 6: A = domain
    [JEQ_K, 1, 0, AF_UNIX], // 7: AF_UNIX → DENY, else ALLOW
    [RET_K, 0, 0, RET_ALLOW], // 8
    [RET_K, 0, 0, RET_EPERM], // 9
  ];
  const bytes = new Uint8Array(program.length * 8);
  const view = new DataView(bytes.buffer);
  program.forEach(([code, jt, jf, k], i) => {
    view.setUint16(i * 8, code, true);
    view.setUint8(i * 8 + 2, jt);
    view.setUint8(i * 8 + 3, jf);
    view.setUint32(i * 8 + 4, k, true);
  });
  return bytes;
}

/**
 * Write {@linkcode unixSocketFilter} for this machine's architecture to a new private file
 * (a `0700` temporary directory, removed when the process exits) for bwrap's `--seccomp`.
 *
 * Needs `--allow-write` and `--allow-read` for the temporary directory.
 *
 * @returns the file's path, or `null` on an architecture the filter does not know
 *
 * @example Write the filter
 * ```ts
 * import { writeSeccompFilter } from "./_seccomp_filter.ts";
 * const path = await writeSeccompFilter();
 * if (path !== null && (await Deno.stat(path)).size !== 80) throw new Error("unexpected size");
 * ```
 */
export async function writeSeccompFilter(): Promise<string | null> {
  const filter = unixSocketFilter(Deno.build.arch);
  if (filter === null) return null;
  const dir = await Deno.makeTempDir({ prefix: "odek-seccomp-" });
  await Deno.chmod(dir, 0o700);
  const path = `${dir}/unix_sockets.bpf`;
  await Deno.writeFile(path, filter, { mode: 0o600 });
  globalThis.addEventListener("unload", () => {
    try {
      Deno.removeSync(dir, { recursive: true });
    } catch {
      // Already gone.
    }
  });
  return await Deno.realPath(path);
}
