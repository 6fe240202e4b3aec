// The wiki's two text rules the reads show: a page name as the relay normalizes it, and the links a
// page's Djot content makes (read_wiki_page's `links`): in order of first appearance, a wikilink's
// or an undefined reference's target as a page name, and every nostr: URI a link or a reference
// definition names. Code (fenced or inline), escaped brackets and table rows link nothing, as on
// the relay.

/** A page name: lowercase; spaces, - and _ one hyphen; letters, digits and marks kept; nothing else. */
export function normalizeName(raw: string): string {
  let out = "";
  for (const ch of raw.toLowerCase()) {
    if (/[\s_-]/u.test(ch)) {
      if (out !== "" && !out.endsWith("-")) out += "-";
    } else if (/[\p{L}\p{N}\p{M}]/u.test(ch)) out += ch;
  }
  return out.replace(/^-+|-+$/g, "");
}

const isNostr = (target: string) => target.toLowerCase().startsWith("nostr:");

/** A reference definition line, `[label]: target` with a target of one word. */
const DEFINITION = /^\[([^\]]*)\]:\s*(\S+)\s*$/;

interface Blocks {
  /** Text that may hold links: paragraphs, headings and list items, in order. */
  texts: string[];
  /** Reference definitions by lowercase label, in order. */
  definitions: Map<string, string>;
}

/** The line that closes a code block opened at `start` (three or more of its fence character alone). */
function fenceEnd(lines: string[], start: number, char: string): number {
  let i = start + 1;
  while (i < lines.length) {
    const line = lines[i].trim();
    if (line.length >= 3 && [...line].every((c) => c === char)) break;
    i++;
  }
  return i;
}

/** Splits content into the texts whose links count, leaving out code blocks and table rows. */
function blocksOf(content: string): Blocks {
  const texts: string[] = [];
  const definitions = new Map<string, string>();
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length) texts.push(paragraph.join("\n"));
    paragraph = [];
  };
  const lines = content.replaceAll("\r\n", "\n").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    const fence = line.slice(0, 3);
    const definition = DEFINITION.exec(line);
    if (line === "") flush();
    else if (fence === "```" || fence === "~~~") {
      flush();
      i = fenceEnd(lines, i, fence[0]);
    } else if (/^#{1,6} /.test(line)) {
      flush();
      texts.push(line.replace(/^#+ /, ""));
    } else if (definition && paragraph.length === 0) {
      definitions.set(definition[1].trim().toLowerCase(), definition[2]);
    } else if (line.length >= 2 && line.startsWith("|") && line.endsWith("|")) flush();
    else if (/^([-*+]|\d+[.)]) \S/.test(line) && paragraph.length === 0) {
      texts.push(line.replace(/^([-*+]|\d+[.)]) /, ""));
    } else paragraph.push(line);
  }
  flush();
  return { texts, definitions };
}

/** The link targets of one text, in order: code spans skipped, escapes taken literally. */
function targetsIn(text: string, definitions: Map<string, string>, add: (target: string) => void) {
  for (let i = 0; i < text.length; i++) {
    const rest = text.slice(i);
    if (text[i] === "\\") i++;
    else if (text[i] === "`") {
      const marker = /^`+/.exec(rest)![0];
      const end = rest.indexOf(marker, marker.length);
      if (end >= 0) i += end + marker.length - 1;
    } else if (rest.startsWith("[[") && rest.indexOf("]]") > 2) {
      const end = rest.indexOf("]]");
      add(normalizeName(rest.slice(2, end).split("|")[0].trim()));
      i += end + 1;
    } else if (text[i] === "[") {
      const link = /^\[([^\]]*)\](?:\(([^)]*)\)|\[([^\]]*)\])/.exec(rest);
      if (!link || link[1] === "") continue;
      if (link[2] !== undefined && isNostr(link[2].trim())) add(link[2].trim());
      if (link[3] !== undefined) {
        const label = link[3].trim() || link[1];
        const defined = definitions.get(label.toLowerCase());
        if (defined === undefined) add(normalizeName(label));
        else if (isNostr(defined)) add(defined);
      }
      i += link[0].length - 1;
    }
  }
}

/** The pages and nostr: URIs the content links to, each once, in order of first appearance. */
export function wikiLinks(content: string): string[] {
  const { texts, definitions } = blocksOf(content);
  const links: string[] = [];
  const add = (target: string) => {
    if (target !== "" && !links.includes(target)) links.push(target);
  };
  for (const target of definitions.values()) if (isNostr(target)) add(target);
  for (const text of texts) targetsIn(text, definitions, add);
  return links;
}
