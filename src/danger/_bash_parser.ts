/**
 * Loads the Bash grammar (tree-sitter-bash) into web-tree-sitter, from `node_modules`, with no
 * network. After loading, parsing is synchronous.
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Language, type Node, Parser } from "web-tree-sitter";
import { checkoutRoot } from "../_util/checkout_root.ts";

export type { Node };

/** A loaded Bash parser. */
export interface BashParser {
  /**
   * Parse `text`; hand the root node to `use` and free the tree afterwards.
   * `use` gets `null` when the text is not valid Bash (any error or missing node).
   */
  parse<T>(text: string, use: (root: Node | null) => T): T;
}

/** Load web-tree-sitter and the Bash grammar from the files npm installed. */
export async function loadBashParser(): Promise<BashParser> {
  // Resolved from the checkout (its node_modules), not from this module's URL: in the installed
  // command this module is part of a bundle outside the checkout.
  const require = createRequire(join(checkoutRoot(), "deno.json"));
  const runtime = await readFile(require.resolve("web-tree-sitter/web-tree-sitter.wasm"));
  const grammar = await readFile(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
  await Parser.init({ wasmBinary: runtime } as Parameters<typeof Parser.init>[0]);
  const language = await Language.load(grammar);
  const parser = new Parser();
  parser.setLanguage(language);
  return {
    parse(text, use) {
      const tree = parser.parse(text);
      if (tree === null) return use(null);
      try {
        return use(tree.rootNode.hasError ? null : tree.rootNode);
      } finally {
        tree.delete();
      }
    },
  };
}
