/**
 * Where an HTTP MCP server's OAuth state lives: one file per server under
 * `ODEK_HOME/mcp/oauth/<server>.json` (mode 0600, its folder 0700), written whole through a
 * temporary file and a rename, so a crash never leaves half a token. It holds the tokens, the
 * client registration and the discovery state, for the server URL they were made for.
 *
 * @module
 */
import { join } from "node:path";
import { z } from "zod";

/** What is kept for one server. Unknown fields of the SDK's shapes are kept as they are. */
export interface OAuthRecord {
  /** The MCP server URL the record belongs to (another URL: the record is ignored). */
  serverUrl: string;
  /**
   * Client registrations by the issuer of the authorization server they were made with (SEP-2352:
   * credentials are bound to their issuer; `""` when unknown).
   */
  clients?: Record<string, Record<string, unknown>>;
  /** Tokens (`access_token`, `refresh_token`, `expires_in`, `scope`, …) by issuer. */
  tokens?: Record<string, Record<string, unknown>>;
  /** The issuer of the newest tokens. */
  issuer?: string;
  /** Protected-resource and authorization-server discovery results. */
  discovery?: Record<string, unknown>;
  /** When the tokens were saved (ms since the epoch), to judge their age. */
  savedAt?: number;
}

const RecordSchema: z.ZodType<OAuthRecord> = z.object({
  serverUrl: z.string(),
  clients: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  tokens: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  issuer: z.string().optional(),
  discovery: z.record(z.string(), z.unknown()).optional(),
  savedAt: z.number().optional(),
});

/**
 * The OAuth files of one `ODEK_HOME`.
 *
 * @example Save, load and forget
 * ```ts
 * import { OAuthStore } from "./oauth_store.ts";
 * const home = await Deno.makeTempDir();
 * const store = new OAuthStore(home);
 * await store.save("api", { serverUrl: "http://127.0.0.1:9/mcp", tokens: { "": { access_token: "t" } } });
 * if ((await store.load("api", "http://127.0.0.1:9/mcp"))?.tokens?.[""].access_token !== "t") throw new Error("load");
 * if ((Deno.statSync(store.path("api")).mode! & 0o777) !== 0o600) throw new Error("mode");
 * if (await store.load("api", "http://127.0.0.1:9/other") !== undefined) throw new Error("another URL");
 * await store.remove("api");
 * await Deno.remove(home, { recursive: true });
 * ```
 */
export class OAuthStore {
  readonly #dir: string;

  /** @param odekHome `ODEK_HOME` */
  constructor(odekHome: string) {
    this.#dir = join(odekHome, "mcp", "oauth");
  }

  /** The file of `server`. */
  path(server: string): string {
    return join(this.#dir, `${server}.json`);
  }

  /**
   * The record of `server` for `serverUrl`, or `undefined` (none, another URL, or unreadable:
   * a damaged file means logging in again, never a crash).
   */
  async load(server: string, serverUrl: string): Promise<OAuthRecord | undefined> {
    let text: string;
    try {
      text = await Deno.readTextFile(this.path(server));
    } catch {
      return undefined;
    }
    try {
      const record = RecordSchema.parse(JSON.parse(text));
      return record.serverUrl === serverUrl ? record : undefined;
    } catch {
      return undefined;
    }
  }

  /** Replace the record of `server` (0600, atomically). */
  async save(server: string, record: OAuthRecord): Promise<void> {
    await Deno.mkdir(this.#dir, { recursive: true, mode: 0o700 });
    const file = this.path(server);
    const temporary = `${file}.${crypto.randomUUID()}.tmp`;
    await Deno.writeTextFile(temporary, JSON.stringify(record), { mode: 0o600, createNew: true });
    try {
      await Deno.chmod(temporary, 0o600);
      await Deno.rename(temporary, file);
    } catch (error) {
      await Deno.remove(temporary).catch(() => {});
      throw error;
    }
  }

  /** Forget `server`'s tokens and registration. @returns whether there was a record */
  async remove(server: string): Promise<boolean> {
    try {
      await Deno.remove(this.path(server));
      return true;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return false;
      throw error;
    }
  }
}
