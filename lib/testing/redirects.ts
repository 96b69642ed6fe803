import type { ReactElement, ReactNode } from "react";

// Test support for pages and actions that redirect: called directly, as the role matrix calls them, they end in
// Next.js's redirect(), which throws an error whose digest names the Location.

/** Where Next.js's redirect() was told to send the browser when `run` ran; throws when it did not redirect. */
export async function redirectedTo(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    // "NEXT_REDIRECT;<replace|push>;<url>;<status>;"
    const digest = (error as { digest?: unknown }).digest;
    if (typeof digest === "string" && digest.startsWith("NEXT_REDIRECT;"))
      return digest.split(";").slice(2, -2).join(";");
    throw error;
  }
  throw new Error("did not redirect");
}

/** The first element of `type` in a page's rendered tree (server components return plain elements). */
export function findElement(node: ReactNode, type: unknown): ReactElement<Record<string, unknown>> | undefined {
  if (Array.isArray(node)) return node.map((child: ReactNode) => findElement(child, type)).find(Boolean);
  if (!node || typeof node !== "object" || !("props" in node)) return undefined;
  const element = node as ReactElement<{ children?: ReactNode }>;
  if (element.type === type) return element as ReactElement<Record<string, unknown>>;
  return findElement(element.props.children, type);
}
