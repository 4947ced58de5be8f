import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Every .ts file under `dir` (relative to the root), skipping node_modules. */
export async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(path: string) {
    for await (const entry of Deno.readDir(path)) {
      if (entry.name === "node_modules") continue;
      const full = join(path, entry.name);
      if (entry.isDirectory) await walk(full);
      else if (entry.isFile && entry.name.endsWith(".ts")) out.push(relative(ROOT, full));
    }
  }
  await walk(join(ROOT, dir));
  return out.sort();
}

/** The module specifiers a file imports (static and dynamic, including `export … from`). */
export function importsOf(text: string): string[] {
  const specs: string[] = [];
  const pattern =
    /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|(?:^|\n)\s*import\s+["']([^"']+)["']/g;
  for (const match of text.matchAll(pattern)) specs.push(match[1] ?? match[2] ?? match[3]);
  return specs;
}
