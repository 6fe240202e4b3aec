// A `deno lint` plugin for the project's two size rules on its program (lib/ and the entry files):
// no function over 65 lines of code, no file over 300 lines. Lines of code are the lines holding
// something other than blanks and comments; a function's lines include those of the functions
// inside it. Tests and scripts are not held to it.

const MAX_FUNCTION_LINES = 65;
const MAX_FILE_LINES = 300;

/**
 * The checkout's root as a path, from the URL of a folder: its escapes decoded, since a URL's path
 * spells a space `%20`, and a root left so matches no file there, holding none to the rules.
 */
export function rootOf(folder: URL): string {
  return decodeURIComponent(folder.pathname);
}

/** Whether the size rules hold `filename` (absolute): lib/ and the root's .ts entry files. */
export function governed(filename: string, root: string): boolean {
  if (!filename.startsWith(root)) return false;
  const path = filename.slice(root.length).replaceAll("\\", "/");
  return path.startsWith("lib/") || /^[a-z_]+\.ts$/.test(path);
}

/** The line numbers (from 0) that hold code, given the text and its comments' ranges. */
export function codeLines(text: string, comments: readonly [number, number][]): Set<number> {
  let blanked = text;
  for (const [start, end] of comments) {
    blanked = blanked.slice(0, start) + blanked.slice(start, end).replace(/[^\n]/g, " ") + blanked.slice(end);
  }
  const lines = new Set<number>();
  blanked.split("\n").forEach((line, index) => {
    if (line.trim() !== "") lines.add(index);
  });
  return lines;
}

function lineOf(text: string, offset: number): number {
  let line = 0;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

const ROOT = rootOf(new URL("../", import.meta.url));

const plugin: Deno.lint.Plugin = {
  name: "size",
  rules: {
    "function-lines": {
      create(context) {
        if (!governed(context.filename, ROOT)) return {};
        const text = context.sourceCode.text;
        const comments = context.sourceCode.getAllComments().map((c) => c.range as [number, number]);
        const code = codeLines(text, comments);
        const check = (node: Deno.lint.Node) => {
          const [from, to] = [lineOf(text, node.range[0]), lineOf(text, node.range[1])];
          let count = 0;
          for (let line = from; line <= to; line++) if (code.has(line)) count++;
          if (count > MAX_FUNCTION_LINES) {
            context.report({
              node,
              message: `${count} lines of code in one function; at most ${MAX_FUNCTION_LINES}: split it`,
            });
          }
        };
        return {
          FunctionDeclaration: check,
          FunctionExpression: check,
          ArrowFunctionExpression: check,
        };
      },
    },
    "file-lines": {
      create(context) {
        if (!governed(context.filename, ROOT) || !context.filename.includes("/lib/")) return {};
        return {
          Program(node) {
            const lines = context.sourceCode.text.replace(/\n$/, "").split("\n").length;
            if (lines > MAX_FILE_LINES) {
              context.report({
                node,
                message: `${lines} lines in one module; at most ${MAX_FILE_LINES}: split it`,
              });
            }
          },
        };
      },
    },
  },
};

export default plugin;
