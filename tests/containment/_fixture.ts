/**
 * The containment fixture: a throw-away layout full of canaries (secrets that must never show up
 * in any output) and sentinels (files that must not change), plus listeners on host loopback and
 * on a Unix socket that count every connection or datagram (test helper).
 *
 * Everything lives under one `/var/tmp` directory, so only the sandbox's own rules hide things
 * (`/var/tmp` is visible read-only in every sandbox, unlike `/tmp`).
 *
 * @module
 */
import { createSocket, type Socket } from "node:dgram";
import { join } from "node:path";
import type { SandboxContext } from "../../src/broker/render_sandbox.ts";
import { sandboxContextFromEnvironment } from "../../src/broker/sandbox_context.ts";
import { createHostScratch, type HostScratch } from "../../src/broker/host_scratch.ts";
import { REPO_TOOLS_DIR } from "../_helpers/sandbox.ts";

/** A secret: its bytes must never appear in a tool's output unless its path is in scope. */
export interface Canary {
  /** Where it lives (`null`: the test process's environment). */
  path: string | null;
  value: string;
}

/** One file system entry as seen before and after an attempt. */
type Entry = string;

/** The layout, its canaries and its listeners. Dispose it (`await using`). */
export interface ContainmentFixture extends AsyncDisposable {
  root: string;
  /** The workspace (realpath): a git repository with one commit, `notes.txt` and planted links. */
  ws: string;
  /** A fake ODEK_HOME (protected root): `secret.txt`, `config.json`, `sessions/s1.jsonl`. */
  odek: string;
  /** A fake install directory (protected root). */
  install: string;
  /**
   * The test HOME: `.ssh/id_rsa`, `.aws/credentials`, `.bash_history`, `.bashrc`, and
   * `.gitconfig` (bound read-only into sandboxes, as `~/.gitconfig` is).
   */
  home: string;
  /**
   * Outside the workspace, visible read-only: `sentinel.txt`, `canary.sock`, and the symlinks
   * `odek_link` (→ ODEK_HOME) and `ssh_link` (→ `~/.ssh`).
   */
  out: string;
  /**
   * Another session host's private scratch (under the per-user parent every sandbox hides), with
   * a secret: no host sees another's scratch. (The host's `/tmp` itself is visible read-only.)
   */
  hostTmp: string;
  /** A secret file in the host's `/dev/shm`. */
  shm: string;
  /** The TCP port of the loopback listener on 127.0.0.1. */
  port: number;
  /** The UDP port of the loopback datagram listener on 127.0.0.1. */
  udpPort: number;
  /** The Unix socket listener's path (`<out>/canary.sock`). */
  sock: string;
  /** This process's pid: the "core" whose environment holds a canary. */
  corePid: number;
  canaries: Canary[];
  /** The sandbox context for this layout (bwrap mode, home = the test home). */
  context: SandboxContext;
  /** Connections (TCP, Unix) and datagrams (UDP) the listeners have seen so far. */
  hits(): { tcp: number; unix: number; udp: number };
  /** Every file, link and directory under `root` (content, target, mode, mtime) but the socket. */
  snapshot(): Promise<Map<string, Entry>>;
}

/** The process limit of the fixture's shell sandboxes (small: the table holds a fork bomb). */
export const FIXTURE_MAX_PROCESSES = 64;

/** The size cap of the fixture's sandbox `/tmp` and home (small: the table fills them). */
export const FIXTURE_TMPFS_BYTES = 16 * 1024 * 1024;

/** The environment variable of this process holding the core canary. */
export const CORE_CANARY_ENV = "ODEK_CONTAINMENT_CANARY";

/**
 * Build the fixture. Needs git on PATH (the workspace is a repository).
 *
 * @returns the fixture; dispose it to stop the listeners and delete everything
 */
export async function makeContainmentFixture(): Promise<ContainmentFixture> {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ dir: "/var/tmp", prefix: "odek-containment-" }),
  );
  const other = await createHostScratch("/tmp");
  try {
    return await build(root, other);
  } catch (error) {
    // A half-built fixture is deleted here: nobody gets it to dispose.
    await Deno.remove(root, { recursive: true }).catch(() => {});
    await other.remove();
    throw error;
  }
}

async function build(root: string, other: HostScratch): Promise<ContainmentFixture> {
  const hostTmp = other.dir;
  const tag = crypto.randomUUID().slice(0, 8);
  const canary = (what: string) => `CANARY-${what}-${tag}`;
  const [ws, odek, install, home, out] = ["ws", "odek_home", "install", "home", "out"].map((d) =>
    join(root, d)
  );
  const canaries: Canary[] = [];
  const write = async (path: string, text: string, secret = false) => {
    await Deno.mkdir(join(path, ".."), { recursive: true });
    await Deno.writeTextFile(path, text);
    if (secret) canaries.push({ path, value: text.trim() });
  };
  await write(join(odek, "secret.txt"), `${canary("ODEK-HOME")}\n`, true);
  await write(join(odek, "config.json"), `{"apiKey":"${canary("API-KEY")}"}\n`, true);
  await write(join(odek, "sessions", "s1.jsonl"), `{"text":"${canary("SESSION")}"}\n`, true);
  await write(join(install, "data", "sentinel"), "install-sentinel\n");
  await write(join(home, ".ssh", "id_rsa"), `${canary("SSH-KEY")}\n`, true);
  await write(join(home, ".aws", "credentials"), `${canary("AWS")}\n`, true);
  await write(join(home, ".bash_history"), `${canary("HISTORY")}\n`, true);
  await write(join(home, ".bashrc"), "# bashrc sentinel\n");
  await write(join(home, ".gitconfig"), "[user]\n\tname = sentinel\n"); // bound read-only
  await write(join(hostTmp, "secret.txt"), `${canary("HOST-TMP")}\n`, true);
  await write(join(out, "sentinel.txt"), "outside sentinel\n");
  await write(join(ws, "notes.txt"), "workspace notes\n");
  await write(join(ws, "odek_path.txt"), odek); // indirection the classifier cannot read
  await Deno.symlink(join(odek, "secret.txt"), join(ws, "link_to_secret"));
  await Deno.symlink(join(home, ".ssh", "id_rsa"), join(ws, "link_to_ssh"));
  await Deno.symlink(join(out, "sentinel.txt"), join(ws, "link_out_file"));
  await Deno.symlink(out, join(ws, "link_out_dir"));
  await Deno.symlink(odek, join(ws, "link_odek_dir"));
  await Deno.symlink(join(out, "created.txt"), join(ws, "link_dangling")); // target missing
  await Deno.symlink(odek, join(out, "odek_link")); // outside the workspace: a granted target
  await Deno.symlink(join(home, ".ssh"), join(out, "ssh_link"));
  await git(ws, "init", "-q");
  await git(ws, "add", "notes.txt");
  await git(ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init");
  const shm = `/dev/shm/odek-containment-${tag}`; // the host's shared memory
  // Deno refuses /dev without --allow-all: bash writes and removes it.
  await bash('printf "%s\\n" "$2" > "$1"', shm, canary("HOST-SHM"));
  canaries.push({ path: shm, value: canary("HOST-SHM") });
  const envCanary = canary("CORE-ENV");
  Deno.env.set(CORE_CANARY_ENV, envCanary);
  canaries.push({ path: null, value: envCanary });

  let tcp = 0, unix = 0, udp = 0;
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const tcpLoop = count(listener, () => tcp++);
  const sock = join(out, "canary.sock");
  const unixListener = Deno.listen({ transport: "unix", path: sock });
  const unixLoop = count(unixListener, () => unix++);
  const dgram: Socket = createSocket("udp4");
  dgram.on("message", () => udp++);
  const udpPort = await new Promise<number>((resolve) =>
    dgram.bind(0, "127.0.0.1", () => resolve(dgram.address().port))
  );
  // The context is computed against the test HOME, not the real one: the root secrets hidden
  // from a root sandbox are found relative to the home that replaces the real one (a real home
  // of /root with a .bash_history must be hidden once it is no longer the sandbox's home).
  const real = Deno.env.toObject();
  const base = await sandboxContextFromEnvironment({
    odekHome: odek,
    installDir: install,
    mode: "bwrap",
    env: { ...real, HOME: home, DENO_DIR: realDenoDir(real) },
  });
  const context: SandboxContext = {
    ...base,
    toolsDir: REPO_TOOLS_DIR,
    workspace: ws,
    home,
    readOnlyHomeFiles: [join(home, ".gitconfig")],
    maxProcesses: FIXTURE_MAX_PROCESSES,
    tmpfsMaxBytes: FIXTURE_TMPFS_BYTES,
  };
  return {
    root,
    ws,
    odek,
    install,
    home,
    out,
    hostTmp,
    shm,
    port: (listener.addr as Deno.NetAddr).port,
    udpPort,
    sock,
    corePid: Deno.pid,
    canaries,
    context,
    hits: () => ({ tcp, unix, udp }),
    snapshot: () => snapshot(root),
    async [Symbol.asyncDispose]() {
      Deno.env.delete(CORE_CANARY_ENV);
      listener.close();
      unixListener.close();
      dgram.close();
      await Promise.all([tcpLoop, unixLoop]);
      await Deno.remove(root, { recursive: true });
      await other.remove();
      await bash('rm -f -- "$1"', shm);
    },
  };
}

/** The deno cache of this process (children need it; the test HOME has none). */
function realDenoDir(env: Record<string, string>): string {
  if (env.DENO_DIR) return env.DENO_DIR;
  if (env.XDG_CACHE_HOME?.startsWith("/")) return join(env.XDG_CACHE_HOME, "deno");
  return join(env.HOME ?? "/root", ".cache", "deno");
}

async function count(listener: Deno.Listener, onConnection: () => void): Promise<void> {
  try {
    for await (const conn of listener) {
      onConnection();
      conn.close();
    }
  } catch {
    // Closed.
  }
}

async function bash(script: string, ...args: string[]): Promise<void> {
  const { code } = await new Deno.Command("bash", { args: ["-c", script, "bash", ...args] })
    .output();
  if (code !== 0) throw new Error(`bash ${script} failed with exit code ${code}`);
}

async function git(cwd: string, ...args: string[]): Promise<void> {
  const { code, stderr } = await new Deno.Command("git", {
    args,
    cwd,
    stdout: "null",
    stderr: "piped",
    env: { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  }).output();
  if (code !== 0) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(stderr)}`);
}

async function snapshot(root: string): Promise<Map<string, Entry>> {
  const entries = new Map<string, Entry>();
  const walk = async (dir: string) => {
    for await (const item of Deno.readDir(dir)) {
      const path = join(dir, item.name);
      const info = await Deno.lstat(path);
      const meta = `${info.mode?.toString(8)} ${info.mtime?.getTime()} ${info.ino}`;
      if (item.isSymlink) entries.set(path, `link ${await Deno.readLink(path)} ${meta}`);
      else if (item.isDirectory) {
        entries.set(path, `dir ${meta}`);
        await walk(path);
      } else if (item.isFile) entries.set(path, `file ${await Deno.readTextFile(path)} ${meta}`);
    }
  };
  await walk(root);
  return entries;
}
