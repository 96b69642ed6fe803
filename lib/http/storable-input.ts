// Text that Linkdesk can neither store nor put in an address, refused in words before it reaches the database.
//
// PostgreSQL refuses two things a JavaScript string can hold: a NUL character (in text: "invalid byte sequence for
// encoding UTF8: 0x00"; in jsonb: "unsupported Unicode escape sequence") and, in jsonb, half of a surrogate pair (a
// lone "\ud800"). Node's UTF-8 encoder would silently turn that half into U+FFFD in a text column, storing something
// other than what was sent. An address carries text as %-escaped UTF-8, which can hold neither a lone half nor a
// malformed escape (%ff), and a %00 decodes to NUL. Left alone, each of these ended as a bare 500 with the query and
// its parameters in Next.js's log, and the audit row of the attempt was lost with it.

export type Unstorable = "a NUL character" | "half of a surrogate pair";

/** What in `text` cannot be stored, or null when it all can. */
export function unstorableIn(text: string): Unstorable | null {
  if (text.includes("\0")) return "a NUL character";
  return text.isWellFormed() ? null : "half of a surrogate pair";
}

/** `text` with what cannot be stored replaced by visible stand-ins (␀ for NUL, U+FFFD for a lone surrogate half). */
export function storable(text: string): string {
  return text.replaceAll("\0", "\u2400").toWellFormed();
}

/**
 * A copy of `value` whose strings (object keys included) can be stored: for writing what a request carried, or what
 * the upstream answered, into the audit trail. Values other than plain objects, arrays and strings are kept as they are.
 */
export function storableDeep(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return unstorableIn(value) ? storable(value) : value;
  if (depth > MAX_DEPTH || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => storableDeep(item, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [storable(key), storableDeep(item, depth + 1)]));
}

/** Past this depth storableDeep leaves values as they are (an audit row's summary is a few levels deep). */
const MAX_DEPTH = 64;

export interface UnstorableAt {
  /** Where in the input: `linkId`, `items[3].transactionId`, a key itself when the key is the problem. */
  path: string;
  what: Unstorable;
}

/**
 * The first place in an action's input (anything React can send: plain objects, arrays, Maps, Sets, FormData, Files)
 * holding text that cannot be stored; null when there is none. Iterative, so no depth of nesting can overflow it.
 */
export function findUnstorable(input: unknown): UnstorableAt | null {
  const seen = new Set<object>();
  const stack: { value: unknown; path: string }[] = [{ value: input, path: "" }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === "string") {
      const what = unstorableIn(value);
      if (what) return { path: path || "the input", what };
      continue;
    }
    if (value === null || typeof value !== "object" || seen.has(value)) continue;
    seen.add(value);
    const visitKey = (key: string, item: unknown, child: string): UnstorableAt | null => {
      const what = unstorableIn(key);
      if (what) return { path: `a field name${path ? ` in ${path}` : ""}`, what };
      stack.push({ value: item, path: child });
      return null;
    };
    if (value instanceof File) {
      const what = unstorableIn(value.name);
      if (what) return { path: `${path || "the file"}'s name`, what };
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => stack.push({ value: item, path: deeper(path, `[${index}]`) }));
    } else if (value instanceof Set) {
      for (const item of value) stack.push({ value: item, path: deeper(path, "[…]") });
    } else if (value instanceof Map || value instanceof FormData) {
      for (const [key, item] of value.entries() as Iterable<[unknown, unknown]>) {
        if (typeof key !== "string") {
          stack.push({ value: key, path }, { value: item, path });
          continue;
        }
        const found = visitKey(key, item, joinPath(path, key));
        if (found) return found;
      }
    } else {
      for (const [key, item] of Object.entries(value)) {
        const found = visitKey(key, item, joinPath(path, key));
        if (found) return found;
      }
    }
  }
  return null;
}

const joinPath = (path: string, key: string) => (path ? deeper(path, `.${key}`) : key.slice(0, MAX_PATH));
/** Paths stop growing past this many characters: they name a place for a person, not for a parser. */
const MAX_PATH = 120;
const deeper = (path: string, step: string) =>
  path.length >= MAX_PATH ? (path.endsWith("…") ? path : `${path}…`) : `${path}${step}`.slice(0, MAX_PATH);

/** A refusal of unstorable input, in words: where it is and what it holds. */
export function describeUnstorable({ path, what }: UnstorableAt): string {
  return `Refused: ${storable(path)} holds ${what}, which Linkdesk cannot store. Remove it and try again.`;
}

/**
 * Why an address (its path and query, as they arrive, %-escaped) cannot be read, in words; null when it can. Every
 * segment and parameter must decode as UTF-8 and hold no NUL.
 */
export function unreadableAddress(pathname: string, search: string): string | null {
  for (const segment of pathname.split("/")) {
    const problem = undecodable(segment);
    if (problem) return `Refused: the address's path holds ${problem}. Linkdesk reads addresses as %-escaped UTF-8.`;
  }
  for (const pair of search.replace(/^\?/, "").split("&")) {
    const problem = undecodable(pair.replaceAll("+", " "));
    if (problem) return `Refused: the address's query holds ${problem}. Linkdesk reads addresses as %-escaped UTF-8.`;
  }
  return null;
}

function undecodable(escaped: string): string | null {
  let text: string;
  try {
    text = decodeURIComponent(escaped);
  } catch {
    const sample = /%(?![0-9a-f]{2})|%[0-9a-f]{2}(?:%[0-9a-f]{2})*/i.exec(escaped)?.[0] ?? "%";
    return `a malformed %-escape (${storable(sample.slice(0, 24))})`;
  }
  const what = unstorableIn(text);
  return what ? `${what} (${what === "a NUL character" ? "%00" : "a lone surrogate"})` : null;
}

/**
 * For route handlers: a 400 in words when the request's address or its route params hold what Linkdesk cannot store
 * or look up; null when they are fine. Next.js hands params over decoded, so a NUL (%00) arrives as a character. A
 * param that is empty, "." or ".." names nothing, and put into an upstream address it would name another resource
 * (a URL parser reads it as a path step: /links/.. is /).
 */
export async function refuseUnreadableInput(
  request: Request,
  params?: Promise<Record<string, string | string[] | undefined>>,
): Promise<Response | null> {
  const url = new URL(request.url);
  let problem = unreadableAddress(url.pathname, url.search);
  if (!problem && params) {
    for (const [name, value] of Object.entries(await params)) {
      const found = findUnstorable(value);
      if (found) {
        problem = describeUnstorable({ path: `the ${name} in the address`, what: found.what });
        break;
      }
      const step = [value].flat().find((text) => text === "" || text === "." || text === "..");
      if (step !== undefined) {
        problem = `Refused: the ${name} in the address is ${step === "" ? "empty" : `"${step}"`}, which names nothing.`;
        break;
      }
    }
  }
  return problem ? Response.json({ error: problem }, { status: 400, headers: { "Cache-Control": "no-store" } }) : null;
}
