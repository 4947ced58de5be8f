/**
 * Where the operator's approvals of project MCP servers are kept: `ODEK_HOME/mcp_approvals.json`
 * (mode 0600), one entry per (project path, server name) with the SHA-256 of the server's entry as
 * approved. A changed entry has another hash, so it is asked about again.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { z } from "zod";
import { OdekError } from "../_util/odek_error.ts";
import type { ProjectMcpServer } from "./mcp_servers.ts";

/** One stored approval. */
export interface McpApproval {
  /** The workspace's real path. */
  project: string;
  /** The server's name in the project file. */
  server: string;
  /** SHA-256 (hex) of the entry approved (see {@linkcode mcpServerHash}). */
  sha256: string;
  /** When it was approved (ISO 8601). */
  approvedAt: string;
}

const FileSchema = z.strictObject({
  version: z.literal(1),
  approvals: z.array(z.strictObject({
    project: z.string().min(1),
    server: z.string().min(1),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    approvedAt: z.string(),
  })),
});

/** The file's name under `ODEK_HOME`. */
export const MCP_APPROVALS_FILE = "mcp_approvals.json";

/**
 * The approvals file. Reads are fresh each time (another odek process may have approved
 * meanwhile); writes replace the file atomically (a temporary file, then a rename).
 *
 * @example Approve, then a changed hash is not approved
 * ```ts
 * import { McpApprovalStore } from "./mcp_approval_store.ts";
 * const home = await Deno.makeTempDir();
 * const store = McpApprovalStore.inHome(home);
 * await store.approve("/w", "files", "a".repeat(64));
 * if (!(await store.isApproved("/w", "files", "a".repeat(64)))) throw new Error("not stored");
 * if (await store.isApproved("/w", "files", "b".repeat(64))) throw new Error("a changed entry passed");
 * await Deno.remove(home, { recursive: true });
 * ```
 */
export class McpApprovalStore {
  /** The file's path. */
  readonly file: string;
  readonly #now: () => Date;

  /**
   * @param file the approvals file (`ODEK_HOME/mcp_approvals.json`)
   * @param options `now` for the approval times
   */
  constructor(file: string, options: { now?: () => Date } = {}) {
    this.file = file;
    this.#now = options.now ?? (() => new Date());
  }

  /**
   * The store of an `ODEK_HOME`.
   *
   * @param odekHome the directory
   * @returns the store of `ODEK_HOME/mcp_approvals.json`
   */
  static inHome(odekHome: string): McpApprovalStore {
    return new McpApprovalStore(join(odekHome, MCP_APPROVALS_FILE));
  }

  /**
   * Every stored approval. A missing file is none.
   *
   * @throws {OdekError} `CONFIG_INVALID` for a file that is not valid (its path, and how to fix it)
   */
  async list(): Promise<McpApproval[]> {
    let text: string;
    try {
      text = await Deno.readTextFile(this.file);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return [];
      throw new OdekError(
        "CONFIG_INVALID",
        `Cannot read ${this.file}: ${(error as Error).message}. Check its permissions.`,
        { cause: error },
      );
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      data = undefined;
    }
    const parsed = FileSchema.safeParse(data);
    if (!parsed.success) {
      throw new OdekError(
        "CONFIG_INVALID",
        `${this.file} is not a valid approvals file. Remove it (every project MCP server will be asked about again).`,
      );
    }
    return parsed.data.approvals;
  }

  /**
   * Whether the server's entry, as hashed, was approved for this project.
   *
   * @throws {OdekError} `CONFIG_INVALID` for an invalid file
   */
  async isApproved(project: string, server: string, sha256: string): Promise<boolean> {
    return (await this.list()).some((a) =>
      a.project === project && a.server === server && a.sha256 === sha256
    );
  }

  /**
   * Store an approval, replacing any earlier one of the same project and server.
   *
   * @throws {OdekError} `CONFIG_INVALID` for an invalid file (it is not overwritten)
   */
  async approve(project: string, server: string, sha256: string): Promise<void> {
    const kept = (await this.list()).filter((a) => !(a.project === project && a.server === server));
    kept.push({ project, server, sha256, approvedAt: this.#now().toISOString() });
    await this.#write(kept);
  }

  /**
   * Remove the approvals of a project (of one server, when named).
   *
   * @returns how many were removed
   * @throws {OdekError} `CONFIG_INVALID` for an invalid file
   */
  async revoke(project: string, server?: string): Promise<number> {
    const all = await this.list();
    const kept = all.filter((a) =>
      !(a.project === project && (server === undefined || a.server === server))
    );
    if (kept.length !== all.length) await this.#write(kept);
    return all.length - kept.length;
  }

  async #write(approvals: McpApproval[]): Promise<void> {
    const dir = dirname(this.file);
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    const temp = join(dir, `.${MCP_APPROVALS_FILE}.${crypto.randomUUID()}`);
    const text = `${JSON.stringify({ version: 1, approvals }, null, 2)}\n`;
    try {
      await Deno.writeTextFile(temp, text, { createNew: true, mode: 0o600 });
      await Deno.rename(temp, this.file);
    } catch (error) {
      await Deno.remove(temp).catch(() => {});
      throw error;
    }
  }
}

/**
 * The SHA-256 (hex) of a server's entry: its name and every key and value of the entry (the
 * environment's values included), in a canonical order. Any change to the entry changes it.
 *
 * @param server the server's name
 * @param entry its entry as the project file writes it
 * @returns 64 hex digits
 *
 * @example Key order does not matter, a value does
 * ```ts
 * import { mcpServerHash } from "./mcp_approval_store.ts";
 * const a = await mcpServerHash("s", { command: "node", args: ["x.js"] });
 * const b = await mcpServerHash("s", { args: ["x.js"], command: "node" });
 * const c = await mcpServerHash("s", { command: "node", args: ["y.js"] });
 * if (a !== b || a === c) throw new Error();
 * ```
 */
export async function mcpServerHash(server: string, entry: ProjectMcpServer): Promise<string> {
  const text = canonicalJson({ server, entry });
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
