// Where a link of an import file is, named so that everyone can find it: its position (#3), its JSON path, its line and,
// in a minified file where one line holds many links, its column. Pure and small: the page's components use it.

/** A link's JSON path in a file of this format. */
export function linkPath(format: string | null, position: number): string {
  return format === "array" ? `$[${position}]` : format === "wrapped" ? `$.links[${position}]` : "$";
}

/**
 * Where a link is, in words everyone can find it by: its position (#3), its JSON path, its line, and its column when
 * the line holds more than one link (a minified file): "#3 ($[2], line 1, column 245)".
 */
export function whereInFile(link: { position: number; line: number; column: number; path: string }): string {
  const parts = [
    link.path !== "$" ? link.path : null,
    link.line > 0 ? `line ${link.line}` : null,
    link.line > 0 && link.column > 0 ? `column ${link.column}` : null,
  ].filter(Boolean);
  return `#${link.position + 1}${parts.length > 0 ? ` (${parts.join(", ")})` : ""}`;
}
