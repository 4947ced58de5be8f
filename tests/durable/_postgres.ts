/**
 * A throw-away PostgreSQL cluster for one test file (test helper): initdb into a scratch folder,
 * run as the `postgres` user when the test runs as root (PostgreSQL refuses root), listening on
 * 127.0.0.1 only, on a free port; stopped and deleted on dispose. `findPostgres()` says why there
 * is none, with the install command.
 *
 * @module
 */
import { join } from "node:path";

const INSTALL = "sudo apt-get install -y postgresql";

/** The server binaries, or why they are missing. */
export function findPostgres(): { bin: string } | { missing: string } {
  for (const version of ["17", "16", "15", "14", "13"]) {
    const bin = `/usr/lib/postgresql/${version}/bin`;
    try {
      Deno.statSync(join(bin, "initdb"));
      Deno.statSync(join(bin, "pg_ctl"));
      if (Deno.uid() === 0) {
        const id = new Deno.Command("id", { args: ["-u", "postgres"] }).outputSync();
        if (!id.success) return { missing: `no postgres user to run the server as (${INSTALL})` };
      }
      return { bin };
    } catch {
      // The next version.
    }
  }
  return { missing: `PostgreSQL is not installed (${INSTALL})` };
}

/** A running throw-away cluster. */
export interface TestPostgres extends AsyncDisposable {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  /** A new empty database on it; its URL. */
  database(name: string): Promise<string>;
}

function run(bin: string, args: string[], asPostgres: boolean): Deno.CommandOutput {
  const command = asPostgres
    ? new Deno.Command("runuser", { args: ["-u", "postgres", "--", bin, ...args] })
    : new Deno.Command(bin, { args });
  return command.outputSync();
}

function check(out: Deno.CommandOutput, what: string): void {
  if (!out.success) {
    throw new Error(`${what} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
}

/** Start a cluster (call only after {@linkcode findPostgres} found one). */
export async function startTestPostgres(bin: string): Promise<TestPostgres> {
  const asRoot = Deno.uid() === 0;
  const dir = await Deno.makeTempDir({ dir: "/tmp", prefix: "odek-pg-" });
  if (asRoot) {
    const uid = Number(
      new TextDecoder().decode(
        new Deno.Command("id", { args: ["-u", "postgres"] }).outputSync().stdout,
      ),
    );
    await Deno.chown(dir, uid, null);
  }
  const data = join(dir, "data");
  check(
    run(join(bin, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8"], asRoot),
    "initdb",
  );
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const options =
    `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c max_connections=200`;
  check(
    run(
      join(bin, "pg_ctl"),
      ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "start"],
      asRoot,
    ),
    "pg_ctl start",
  );
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    database(name: string) {
      check(
        run(join(bin, "createdb"), [
          "-h",
          "127.0.0.1",
          "-p",
          String(port),
          "-U",
          "postgres",
          name,
        ], false),
        "createdb",
      );
      return Promise.resolve(`postgres://postgres@127.0.0.1:${port}/${name}`);
    },
    async [Symbol.asyncDispose]() {
      run(join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"], asRoot);
      await Deno.remove(dir, { recursive: true });
    },
  };
}
